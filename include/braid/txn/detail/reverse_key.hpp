// reverse_key: an encoding of byte strings whose byte order is the reverse of the keys' order,
// so that a forward scan of an index over encoded keys is a reverse scan of the keys.
//
// Every key byte b becomes the two bytes {0x00, 0xFF - b}, and the key ends with 0x01. For
// keys x < y: at their first difference the encodings compare inverted bytes; if x is a
// proper prefix of y, x's terminator 0x01 meets y's 0x00 and x sorts after y. Encoding is
// O(length) and doubles the key; decoding inverts it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace braid::txn::detail {

inline void encode_reverse_key(std::string_view key, std::string& out) {
  out.resize(key.size() * 2 + 1);
  for (std::size_t index = 0; index < key.size(); ++index) {
    out[2 * index] = '\0';
    out[2 * index + 1] = static_cast<char>(0xFF - static_cast<unsigned char>(key[index]));
  }
  out[key.size() * 2] = '\x01';
}

inline void decode_reverse_key(std::string_view encoded, std::string& out) {
  const std::size_t length = encoded.empty() ? 0 : (encoded.size() - 1) / 2;
  out.resize(length);
  for (std::size_t index = 0; index < length; ++index) {
    out[index] = static_cast<char>(0xFF - static_cast<unsigned char>(encoded[2 * index + 1]));
  }
}

}  // namespace braid::txn::detail
