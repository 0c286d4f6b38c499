// fixed_string<Length>: a string of at most `Length` (<= 15) characters stored inline in 16
// bytes, NUL-padded — the fixed-width string key of the interleaving thesis's binary search
// (every key 15 characters), with no heap indirection per key.
//
// Order is lexicographic by unsigned character, as std::string_view orders strings without
// embedded NULs (a proper prefix sorts first). Comparing is one 128-bit big-endian integer
// comparison, so `a < b` compiles to branch-free code and a binary search over fixed_strings
// stays predicated like one over integers.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace braid {

template <std::size_t Length = 15>
class fixed_string {
  static_assert(Length >= 1 && Length <= 15, "fixed_string holds 1 to 15 characters in 16 bytes");
  __extension__ using wide_integer = unsigned __int128;

 public:
  static constexpr std::size_t max_length = Length;

  // Trivial, so arrays of keys can live in zero-filled pages; value-initialized
  // (`fixed_string{}`, or zero-filled memory) it is the empty string.
  fixed_string() noexcept = default;

  // Throws std::invalid_argument if `text` is longer than Length or contains a NUL.
  explicit fixed_string(std::string_view text) : characters_{} {
    if (text.size() > Length) {
      throw std::invalid_argument("fixed_string: '" + std::string(text) + "' is longer than " + std::to_string(Length) +
                                  " characters");
    }
    if (text.find('\0') != std::string_view::npos) throw std::invalid_argument("fixed_string: embedded NUL");
    std::memcpy(characters_.data(), text.data(), text.size());
  }

  [[nodiscard]] std::string_view view() const noexcept {
    return {characters_.data(), ::strnlen(characters_.data(), characters_.size())};
  }

  friend bool operator==(const fixed_string& a, const fixed_string& b) noexcept { return a.wide() == b.wide(); }
  friend std::strong_ordering operator<=>(const fixed_string& a, const fixed_string& b) noexcept {
    return a.wide() <=> b.wide();
  }
  friend bool operator<(const fixed_string& a, const fixed_string& b) noexcept { return a.wide() < b.wide(); }

 private:
  // The 16 bytes as one big-endian number: byte 0 most significant, so integer order is
  // lexicographic order.
  [[nodiscard]] wide_integer wide() const noexcept {
    std::uint64_t high;
    std::uint64_t low;
    std::memcpy(&high, characters_.data(), 8);
    std::memcpy(&low, characters_.data() + 8, 8);
    return (wide_integer{__builtin_bswap64(high)} << 64) | __builtin_bswap64(low);
  }

  alignas(16) std::array<char, 16> characters_;
};

static_assert(sizeof(fixed_string<>) == 16 && std::is_trivially_copyable_v<fixed_string<>> &&
              std::is_trivially_default_constructible_v<fixed_string<>>);

}  // namespace braid
