// What the ordered indexes built from (keys, values) spans share: the argument checks of their
// building constructors (as many values as keys; strictly increasing keys for a bulk load),
// which throw std::invalid_argument naming the index ("bplus_tree: 3 keys but 2 values"), and
// the distinct keys with the position of their first occurrence, for the indexes built in
// insertion order. first_positions_by_key is O(n log n) time and O(n) space.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace braid::detail {

inline void check_same_length(std::size_t keys, std::size_t values, const std::string& index) {
  if (keys != values) {
    throw std::invalid_argument(index + ": " + std::to_string(keys) + " keys but " + std::to_string(values) + " values");
  }
}

template <class Key>
void check_strictly_increasing(std::span<const Key> keys, const std::string& index) {
  for (std::size_t i = 1; i < keys.size(); ++i) {
    if (!(keys[i - 1] < keys[i])) {
      throw std::invalid_argument(index + ": keys must be strictly increasing (position " + std::to_string(i) + ")");
    }
  }
}

// Each distinct key once, in key order, with the position of its first occurrence in `keys`.
template <class Key>
std::vector<std::pair<Key, std::size_t>> first_positions_by_key(std::span<const Key> keys) {
  std::vector<std::pair<Key, std::size_t>> by_key(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) by_key[i] = {keys[i], i};
  std::sort(by_key.begin(), by_key.end());
  by_key.erase(std::unique(by_key.begin(), by_key.end(),
                           [](const auto& left, const auto& right) { return left.first == right.first; }),
               by_key.end());
  return by_key;
}

}  // namespace braid::detail
