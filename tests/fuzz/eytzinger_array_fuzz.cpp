// libFuzzer target: the Eytzinger array over 64-bit integers, built from a decoded key set
// (repeats included) with every level suspending, a few cached levels or the default, then
// finds, find_without_prefetch and every multi_find technique: a found node must hold the key
// at the key's rank, an absent key must not be found.
#include <map>
#include <vector>

#include "braid/index/eytzinger_array.hpp"
#include "built_fuzz_targets.hpp"

namespace {

using braid::fuzzing::fuzz_input;

struct target {
  using keys = braid::fuzzing::signed_keys<std::int64_t>;
  using structure = braid::eytzinger_array<std::int64_t>;
  using oracle = std::map<std::int64_t, std::size_t>;

  static structure build(const std::vector<std::int64_t>& decoded, oracle& ranks, fuzz_input& input) {
    const std::vector<std::int64_t> distinct = braid::fuzzing::sorted_distinct(decoded);
    for (std::size_t rank = 0; rank < distinct.size(); ++rank) ranks.emplace(distinct[rank], rank);
    static constexpr std::size_t hot_bytes[] = {0, 64, 1024, structure::default_hot_bytes};
    return structure(decoded, braid::page_size::small_4k, hot_bytes[input.byte() % std::size(hot_bytes)]);
  }
  static bool matches(const structure& array, const oracle& ranks, std::int64_t key, const std::optional<std::size_t>& node) {
    const auto rank = ranks.find(key);
    if (rank == ranks.end()) return !node.has_value();
    return node.has_value() && *node >= 1 && *node <= array.size() && array[*node] == key &&
           array.sorted_position(*node) == rank->second;
  }
  static void other_finds(const structure& array, std::int64_t key) {
    braid::fuzzing::fuzz_check(array.find_without_prefetch(key) == array.find(key), "find_without_prefetch");
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return braid::fuzzing::fuzz_built<target>(data, size);
}
