// libFuzzer target: the Bw-tree through the index protocol harness, on tiny nodes (4 keys a
// page, consolidation after 2 deltas) so short inputs already split pages and the root:
// insert, insert_or_assign, erase, scans and every multi_find technique against std::map,
// plus the blind upsert and batches that mix writes into the gets of group prefetching and
// AMAC (writes to keys no get of the batch reads, so every get's answer is exact).
#include "braid/index/bw_tree.hpp"
#include "index_fuzz_harness.hpp"

namespace {

using braid::fuzzing::fuzz_check;
using braid::fuzzing::fuzz_input;
using tree_type = braid::bw_tree<std::uint64_t, std::uint64_t, 4, 4, 2>;

// Gets and writes for the hand-written techniques; writes are applied when reached.
struct mixed_batch {
  tree_type& tree;
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

struct target {
  using structure = tree_type;
  using keys = braid::fuzzing::unsigned_keys;
  static constexpr std::size_t extra_operations = 2;
  static structure make() { return structure(braid::page_size::small_4k); }
  static constexpr const char* shape_names[] = {"consolidated", "splits", "root splits", "pages"};
  static std::array<std::size_t, 4> shape(const structure& tree) {
    const auto counts = tree.statistics();
    return {counts.consolidations, counts.splits, counts.root_splits, counts.pages};
  }

  template <class Map>
  static void extra(std::size_t which, structure& tree, Map& reference, fuzz_input& input) {
    if (which == 0) {
      const std::uint64_t key = keys::decode(input);
      const std::uint64_t value = input.byte();
      tree.upsert(key, value);
      reference[key] = value;
      return;
    }
    mixed_batch batch{tree, {}, {}, {}, {}};
    const std::size_t count = 1 + input.byte() % 16;
    for (std::size_t index = 0; index < count; ++index) {
      const bool get = input.byte() % 4 != 0;
      batch.gets.push_back(get);
      batch.keys.push_back(get ? keys::decode(input) % 128 : 128 + keys::decode(input) % 128);
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
      if (!batch.gets[index]) continue;
      const auto found = reference.find(batch.keys[index]);
      fuzz_check(batch.results[index] == (found == reference.end() ? std::nullopt : std::optional(found->second)),
                 "mixed batch get");
    }
    for (std::size_t index = 0; index < count; ++index) {
      if (!batch.gets[index]) reference[batch.keys[index]] = batch.values[index];
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return braid::fuzzing::fuzz_updatable<target>(data, size);
}
