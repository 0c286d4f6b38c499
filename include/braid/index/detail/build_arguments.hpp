// What the ordered indexes built from (keys, values) spans share: the argument checks of their
// building constructors (as many values as keys; strictly increasing keys for a bulk load),
// which throw std::invalid_argument naming the index ("bplus_tree: 3 keys but 2 values"), and
// the distinct keys with the position of their first occurrence, for the indexes built in
// insertion order. first_positions_by_key is O(n) time for integer keys (radix sort), O(n log n)
// otherwise, and O(n) space.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "braid/core/radix_sort.hpp"

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

// A key and where it stands. A plain aggregate, not std::pair: trivially copyable for
// trivially copyable keys, so the radix sort writes it a cache line at a time.
template <class Key, class Position = std::size_t>
struct key_position {
  Key key;
  Position position;
};

// Each distinct key once, in key order, with the position of its first occurrence in `keys`.
template <class Key>
std::vector<key_position<Key>> first_positions_by_key(std::span<const Key> keys) {
  std::vector<key_position<Key>> by_key(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) by_key[i] = {keys[i], i};
  // Stable by key: equal keys keep their positions ascending.
  stable_sort_by_key(std::span(by_key), [](const key_position<Key>& entry) -> const Key& { return entry.key; });
  by_key.erase(std::unique(by_key.begin(), by_key.end(),
                           [](const auto& left, const auto& right) { return left.key == right.key; }),
               by_key.end());
  return by_key;
}

// The positions of the entries of `by_key`, ascending.
template <class Key>
std::vector<std::size_t> ascending_positions(const std::vector<key_position<Key>>& by_key) {
  std::vector<std::size_t> positions(by_key.size());
  for (std::size_t i = 0; i < by_key.size(); ++i) positions[i] = by_key[i].position;
  sort_keys(std::span(positions));
  return positions;
}

}  // namespace braid::detail
