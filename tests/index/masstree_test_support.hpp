// Keys for the Masstree-style index's tests: variable-length byte strings built to hit every
// case of the trie — the empty key, keys that differ only in length or in trailing zero
// bytes, keys that end exactly at a slice boundary or one byte past it, and long shared
// prefixes that force chains of layers.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>

namespace braid::testing {

inline std::string masstree_test_key(std::mt19937_64& random) {
  static const std::array<std::string, 12> prefixes = {
      std::string(),
      std::string("a"),
      std::string("a\0", 2),
      std::string("abcdefg"),
      std::string("abcdefgh"),
      std::string("abcdefghi"),
      std::string("abcdefghijklmnop"),
      std::string("abcdefghijklmnopq"),
      std::string(40, 'x'),
      std::string(7, '\0'),
      std::string(8, '\xff'),
      std::string("user:0000000000"),
  };
  static constexpr std::array<char, 4> alphabet = {'\0', 'a', 'b', '\xff'};
  std::string key = prefixes[random() % prefixes.size()];
  const std::size_t extra = random() % 2 == 0 ? random() % 3 : random() % 24;
  for (std::size_t index = 0; index < extra; ++index) key.push_back(alphabet[random() % alphabet.size()]);
  return key;
}

template <class Map>
std::optional<typename Map::mapped_type> expected_value(const Map& model, const typename Map::key_type& key) {
  const auto found = model.find(key);
  if (found == model.end()) return std::nullopt;
  return found->second;
}

}  // namespace braid::testing
