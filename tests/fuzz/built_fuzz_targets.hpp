// Targets of fuzz_built (index_fuzz_harness.hpp) shared by several instantiations: the sorted
// array over any key type and the CSB+-tree over any node size. Each checks its constructor's
// argument errors on the decoded keys before building from valid ones.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "braid/index/csb_plus_tree.hpp"
#include "braid/index/sorted_array.hpp"
#include "index_fuzz_harness.hpp"

namespace braid::fuzzing {

// The decoded keys sorted, repeats dropped.
template <class Key>
std::vector<Key> sorted_distinct(std::vector<Key> keys) {
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

template <class Key>
bool strictly_increasing(const std::vector<Key>& keys) {
  return std::adjacent_find(keys.begin(), keys.end(), [](const Key& a, const Key& b) { return !(a < b); }) == keys.end();
}

// sorted_array: find gives the key's position among the distinct keys in order.
template <class Keys>
struct sorted_array_target {
  using keys = Keys;
  using key_type = typename Keys::key_type;
  using structure = sorted_array<key_type>;
  using oracle = std::map<key_type, std::size_t>;

  static structure build(const std::vector<key_type>& decoded, oracle& ranks, fuzz_input& input) {
    const std::vector<key_type> distinct = sorted_distinct(decoded);
    for (std::size_t rank = 0; rank < distinct.size(); ++rank) ranks.emplace(distinct[rank], rank);
    if (input.byte() % 2 == 0) return structure(decoded, page_size::small_4k);
    // from_sorted: refuses the decoded keys unless strictly ascending, then builds.
    refused_as_documented(
        !strictly_increasing(decoded),
        [&] { (void)structure::from_sorted(decoded.size(), [&](std::size_t i) { return decoded[i]; }, page_size::small_4k); },
        "sorted_array::from_sorted refused or accepted against its contract");
    return structure::from_sorted(distinct.size(), [&](std::size_t i) { return distinct[i]; }, page_size::small_4k);
  }
  static bool matches(const structure&, const oracle& ranks, const key_type& key, const std::optional<std::size_t>& found) {
    const auto rank = ranks.find(key);
    return rank == ranks.end() ? !found.has_value() : found == rank->second;
  }
  static void other_finds(const structure& array, const key_type& key) {
    fuzz_check(array.find_branchy(key) == array.find(key), "find_branchy");
  }
};

// csb_plus_tree: bulk-loaded from strictly increasing keys and their values.
template <std::size_t NodeBytes>
struct csb_plus_tree_target {
  using keys = unsigned_keys;
  using structure = csb_plus_tree<std::uint64_t, std::uint64_t, NodeBytes>;
  using oracle = std::map<std::uint64_t, std::uint64_t>;

  static std::uint64_t value_of(std::uint64_t key) noexcept { return key * 0x9e3779b97f4a7c15ULL + 1; }

  static structure build(const std::vector<std::uint64_t>& decoded, oracle& values_of, fuzz_input&) {
    std::vector<std::uint64_t> values(decoded.size());
    std::transform(decoded.begin(), decoded.end(), values.begin(), value_of);
    refused_as_documented(!strictly_increasing(decoded), [&] { structure(decoded, values, page_size::small_4k); },
                          "csb_plus_tree refused or accepted unsorted keys against its contract");
    if (!values.empty()) {
      values.pop_back();
      refused_as_documented(true, [&] { structure(decoded, values, page_size::small_4k); },
                            "csb_plus_tree accepted fewer values than keys");
    }
    const std::vector<std::uint64_t> keys_in_order = sorted_distinct(decoded);
    values.resize(keys_in_order.size());
    std::transform(keys_in_order.begin(), keys_in_order.end(), values.begin(), value_of);
    for (const std::uint64_t key : keys_in_order) values_of.emplace(key, value_of(key));
    return structure(keys_in_order, values, page_size::small_4k);
  }
  static bool matches(const structure&, const oracle& values_of, std::uint64_t key, const std::optional<std::uint64_t>& found) {
    const auto value = values_of.find(key);
    return value == values_of.end() ? !found.has_value() : found == value->second;
  }
  static void check(const structure& tree) { tree.check_invariants(); }
};

}  // namespace braid::fuzzing
