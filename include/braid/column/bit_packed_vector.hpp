// bit_packed_vector: the index vector of a column's Main fragment — one code per row, each
// stored in the fewest bits that hold the largest code (SAP HANA's Main index vector, the
// interleaving thesis §4.3.1).
//
//   braid::bit_packed_vector codes(rows, braid::bit_packed_vector::bits_for(dictionary_size));
//   codes.set(row, code);
//   std::uint32_t code = codes[row];
//   co_await braid::fetch<M>(codes.word_of(row));       // in a coroutine: the word's line, then
//   codes.decode(codes.word_of(row), codes.offset_of(row));  // the code from it
//   std::uint32_t code = co_await codes.await_code<M>(row);   // the two steps as one awaiter
//
// Layout: codes packed little-endian into 64-bit words, code i at bits [i*b, (i+1)*b); one
// padding word at the end, so a read always loads two adjacent words without a bounds test.
// bits_for(n) is bit_width(n - 1), at least 1 (a dictionary of one value still takes 1 bit).
// A large vector's words sit on 2 MiB pages unless constructed with page_size::small_4k
// (huge_page_allocator): a random row read then costs a miss, not also a page walk.
//
// Complexity: O(1) per read or write. Invariant: every stored code < 2^bits. Not thread-safe
// for writers; readers may share it once it is filled.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "braid/core/fetch.hpp"
#include "braid/core/huge_page_allocator.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/prefetch.hpp"

namespace braid {

class bit_packed_vector {
 public:
  static constexpr unsigned max_bits = 32;

  // Bits per code for a dictionary of `values` distinct values.
  static constexpr unsigned bits_for(std::size_t values) noexcept {
    return values <= 2 ? 1u : static_cast<unsigned>(std::bit_width(values - 1));
  }

  bit_packed_vector() = default;

  // `size` codes of `bits` bits each, all 0, a large vector on pages of `pages` (see
  // huge_page_allocator). Throws std::invalid_argument unless 1 <= bits <= 32.
  bit_packed_vector(std::size_t size, unsigned bits, page_size pages = page_size::huge_2m)
      : words_(huge_page_allocator<std::uint64_t>(pages)), size_(size), bits_(bits) {
    if (bits < 1 || bits > max_bits) {
      throw std::invalid_argument("bit_packed_vector: " + std::to_string(bits) + " bits per code (1 to 32)");
    }
    words_.assign(size * bits / 64 + 2, 0);
    mask_ = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] unsigned bits() const noexcept { return bits_; }
  [[nodiscard]] std::size_t memory_bytes() const noexcept { return words_.size() * sizeof(std::uint64_t); }

  // Precondition: index < size(), code < 2^bits().
  void set(std::size_t index, std::uint32_t code) noexcept {
    const std::size_t bit = index * bits_;
    const std::size_t word = bit / 64;
    const unsigned offset = bit % 64;
    const std::uint64_t value = code & mask_;
    words_[word] = (words_[word] & ~(mask_ << offset)) | (value << offset);
    if (offset + bits_ > 64) {
      const unsigned low_bits = 64 - offset;
      words_[word + 1] = (words_[word + 1] & ~(mask_ >> low_bits)) | (value >> low_bits);
    }
  }

  // Precondition: index < size().
  [[nodiscard]] std::uint32_t operator[](std::size_t index) const noexcept {
    const std::size_t bit = index * bits_;
    return decode(words_.data() + bit / 64, bit % 64);
  }

  // Calls f(code) for codes [first, last), in order: the scan of an IN-predicate.
  template <class F>
  void for_each(std::size_t first, std::size_t last, F&& f) const {
    std::size_t bit = first * bits_;
    for (std::size_t i = first; i < last; ++i, bit += bits_) f(decode(words_.data() + bit / 64, bit % 64));
  }

  // The address of the word holding the first bit of code `index`.
  [[nodiscard]] const std::uint64_t* word_of(std::size_t index) const noexcept {
    return words_.data() + index * bits_ / 64;
  }
  [[nodiscard]] unsigned offset_of(std::size_t index) const noexcept { return static_cast<unsigned>(index * bits_ % 64); }

  // Awaits the line of code `index`'s word (the next word's line prefetched too, for a code
  // that straddles them), then decodes the code.
  template <execution_mode M>
  [[nodiscard]] auto await_code(std::size_t index) const noexcept {
    struct awaiter {
      decltype(fetch<M>(static_cast<const std::uint64_t*>(nullptr))) load;
      const bit_packed_vector* codes;
      unsigned offset;
      bool await_ready() noexcept { return load.await_ready(); }
      auto await_suspend(std::coroutine_handle<> h) noexcept { return load.await_suspend(h); }
      std::uint32_t await_resume() noexcept { return codes->decode(&load.await_resume(), offset); }
    };
    const std::uint64_t* word = word_of(index);
    if constexpr (M::suspends) prefetch<M::hint>(word + 1);
    return awaiter{fetch<M>(word), this, offset_of(index)};
  }

  [[nodiscard]] std::uint32_t decode(const std::uint64_t* word, unsigned offset) const noexcept {
    const std::uint64_t low = word[0] >> offset;
    // offset + bits <= 64: the second word contributes nothing; (x << 1) << (63 - offset)
    // avoids a shift by 64 when offset is 0.
    const std::uint64_t high = (word[1] << 1) << (63 - offset);
    return static_cast<std::uint32_t>((low | high) & mask_);
  }

 private:
  std::vector<std::uint64_t, huge_page_allocator<std::uint64_t>> words_ = decltype(words_)(2, 0);
  std::size_t size_ = 0;
  unsigned bits_ = 1;
  std::uint64_t mask_ = 1;
};

}  // namespace braid
