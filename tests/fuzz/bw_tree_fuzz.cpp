// libFuzzer target: random operation sequences on the Bw-tree against std::map, on tiny nodes
// (4 keys a page, consolidation after 2 deltas) so short inputs already split pages and the
// root: upserts, erases, every get technique with any group size, batches that mix writes into
// the gets of group prefetching and AMAC, and scans.
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "braid/index/bw_tree.hpp"
#include "fuzz_input.hpp"

namespace {

using braid::fuzzing::fuzz_check;
using braid::fuzzing::fuzz_input;
using model_type = std::map<std::uint64_t, std::uint64_t>;
using tree_type = braid::bw_tree<std::uint64_t, std::uint64_t, 4, 4, 2>;

std::uint64_t decode_key(fuzz_input& input) {
  const std::uint8_t shape = input.byte();
  if (shape < 224) return input.byte();                   // a dense range: collisions, splits
  if (shape < 240) return ~std::uint64_t{0} - input.byte();  // the top of the key space
  return input.u64();
}

std::optional<std::uint64_t> expected(const model_type& model, std::uint64_t key) {
  const auto found = model.find(key);
  return found == model.end() ? std::nullopt : std::optional(found->second);
}

// Gets and writes for the hand-written techniques; writes are applied when reached.
struct mixed_batch {
  tree_type& tree;
  model_type& model;
  std::vector<bool> gets;
  std::vector<std::uint64_t> keys;
  std::vector<std::uint64_t> values;
  std::vector<std::optional<std::uint64_t>> results;
  std::size_t size() const { return keys.size(); }
  bool is_get(std::size_t index) const { return gets[index]; }
  std::uint64_t key(std::size_t index) const { return keys[index]; }
  void apply(std::size_t index) { tree.insert_or_assign(keys[index], values[index]); }
  void deliver(std::size_t index, std::optional<std::uint64_t> result) { results[index] = result; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz_input input(data, size);
  tree_type tree(braid::page_size::small_4k);
  model_type model;
  while (!input.empty()) {
    const std::uint8_t operation = input.byte() % 8;
    const std::uint64_t key = decode_key(input);
    switch (operation) {
      case 0:
      case 1: {
        const std::uint64_t value = input.byte();
        tree.insert_or_assign(key, value);
        model[key] = value;
        break;
      }
      case 2: tree.erase(key); model.erase(key); break;
      case 3: fuzz_check(tree.find(key) == expected(model, key), "find"); break;
      case 4: {
        std::vector<std::uint64_t> keys(1 + input.byte() % 16);
        keys[0] = key;
        for (std::size_t index = 1; index < keys.size(); ++index) keys[index] = decode_key(input);
        std::vector<std::optional<std::uint64_t>> results(keys.size());
        constexpr braid::technique techniques[] = {braid::technique::naive, braid::technique::gp,
                                                   braid::technique::amac, braid::technique::coro};
        tree.multi_find(keys, results, techniques[input.byte() % 4], 1 + input.byte() % 8);
        for (std::size_t index = 0; index < keys.size(); ++index) {
          fuzz_check(results[index] == expected(model, keys[index]), "multi_find");
        }
        break;
      }
      case 5: {
        // Writes only to keys no get of the batch reads: the results are then exact.
        mixed_batch batch{tree, model, {}, {}, {}, {}};
        const std::size_t count = 1 + input.byte() % 16;
        for (std::size_t index = 0; index < count; ++index) {
          const bool get = input.byte() % 4 != 0;
          batch.gets.push_back(get);
          batch.keys.push_back(get ? decode_key(input) % 128 : 128 + decode_key(input) % 128);
          batch.values.push_back(input.byte());
        }
        batch.results.assign(count, std::nullopt);
        const std::size_t group = 1 + input.byte() % 6;
        if (input.byte() % 2 == 0) {
          tree.find_group_prefetching(batch, group);
        } else {
          tree.find_amac(batch, group);
        }
        for (std::size_t index = 0; index < count; ++index) {
          if (batch.gets[index]) fuzz_check(batch.results[index] == expected(model, batch.keys[index]), "mixed batch get");
        }
        for (std::size_t index = 0; index < count; ++index) {
          if (!batch.gets[index]) model[batch.keys[index]] = batch.values[index];
        }
        break;
      }
      default: {
        const std::size_t limit = input.byte() % 12;
        std::size_t seen = 0;
        auto next = model.lower_bound(key);
        tree.scan(key, [&](std::uint64_t found, std::uint64_t stored) {
          fuzz_check(next != model.end() && found == next->first && stored == next->second, "scan");
          ++next;
          return ++seen < limit;
        });
      }
    }
  }
  auto next = model.begin();
  const std::size_t count = tree.scan(0, [&](std::uint64_t key, std::uint64_t stored) {
    fuzz_check(next != model.end() && key == next->first && stored == next->second, "final contents");
    ++next;
  });
  fuzz_check(count == model.size(), "final size");
  return 0;
}
