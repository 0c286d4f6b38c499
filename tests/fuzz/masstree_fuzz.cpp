// libFuzzer target: random operation sequences on the Masstree-style index against std::map.
// Every form of every operation (plain, flat coroutine, nested tasks, interleaved batches),
// keys built to share long prefixes, end on slice boundaries and differ only in length.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "braid/core/scheduler.hpp"
#include "braid/index/masstree.hpp"
#include "fuzz_input.hpp"

namespace {

using braid::fuzzing::fuzz_check;
using braid::fuzzing::fuzz_input;
using model_type = std::map<std::string, std::uint64_t>;
constexpr std::array masstree_techniques{braid::technique::naive, braid::technique::coro_nested, braid::technique::coro,
                                         braid::technique::adaptive};

std::string decode_key(fuzz_input& input) {
  static const std::array<std::string, 8> prefixes = {
      std::string(), std::string("abcdefgh"), std::string("abcdefghijklmnop"), std::string(7, '\0'),
      std::string(8, '\0'), std::string(24, 'x'), std::string("a"), std::string(8, '\xff'),
  };
  static constexpr std::array<char, 4> alphabet = {'\0', 'a', 'b', '\xff'};
  std::string key = prefixes[input.byte() % prefixes.size()];
  const std::size_t extra = input.byte() % 20;
  for (std::size_t index = 0; index < extra; ++index) key.push_back(alphabet[input.byte() % alphabet.size()]);
  return key;
}

std::optional<std::uint64_t> expected(const model_type& model, const std::string& key) {
  const auto found = model.find(key);
  return found == model.end() ? std::nullopt : std::optional(found->second);
}

template <class Operation>
auto run_to_end(Operation operation) {
  if constexpr (!Operation::starts_eagerly) operation.resume();
  while (!operation.done()) operation.resume();
  return operation.take_result();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz_input input(data, size);
  braid::masstree<std::uint64_t> tree(braid::page_size::small_4k);
  model_type model;
  while (!input.empty()) {
    const std::uint8_t operation = input.byte() % 10;
    const std::string key = decode_key(input);
    const std::uint64_t value = input.byte();
    const auto before = expected(model, key);
    switch (operation) {
      case 0: fuzz_check(tree.put(key, value) == before, "put"); model[key] = value; break;
      case 1: fuzz_check(run_to_end(tree.put_flat<braid::interleaved>(key, value)) == before, "put_flat"); model[key] = value; break;
      case 2: fuzz_check(run_to_end(tree.put_nested<braid::interleaved>(key, value)) == before, "put_nested"); model[key] = value; break;
      case 3: fuzz_check(tree.remove(key) == before, "remove"); model.erase(key); break;
      case 4: fuzz_check(run_to_end(tree.remove_flat<braid::interleaved>(key)) == before, "remove_flat"); model.erase(key); break;
      case 5: fuzz_check(tree.find(key) == before, "find"); break;
      case 6: fuzz_check(run_to_end(tree.lookup_nested<braid::interleaved>(key)) == before, "get_nested"); break;
      case 7: {
        const std::size_t limit = input.byte() % 16;
        const auto scanned = tree.scan(key, limit);
        auto next = model.lower_bound(key);
        std::size_t index = 0;
        for (; index < limit && next != model.end(); ++index, ++next) {
          fuzz_check(index < scanned.size() && scanned[index].first == next->first &&
                         scanned[index].second == next->second,
                     "scan");
        }
        fuzz_check(scanned.size() == index, "scan length");
        break;
      }
      default: {
        // A batch of gets through one technique and group size.
        std::vector<std::string> storage(1 + input.byte() % 12);
        storage[0] = key;
        for (std::size_t index = 1; index < storage.size(); ++index) storage[index] = decode_key(input);
        std::vector<std::string_view> keys(storage.begin(), storage.end());
        std::vector<std::optional<std::uint64_t>> results(keys.size());
        const auto how = masstree_techniques[input.byte() % 4];
        tree.multi_find(keys, results, how, 1 + input.byte() % 8);
        for (std::size_t index = 0; index < keys.size(); ++index) {
          fuzz_check(results[index] == expected(model, storage[index]), "multi_find");
        }
      }
    }
  }
  std::size_t count = 0;
  auto next = model.begin();
  tree.scan("", [&](std::string_view key, std::uint64_t stored) {
    fuzz_check(next != model.end() && key == next->first && stored == next->second, "final contents");
    ++next;
    ++count;
  });
  fuzz_check(count == model.size(), "final size");
  return 0;
}
