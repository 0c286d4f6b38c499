// main_fragment<Key>: the read-only part of a column — a sorted dictionary with
// order-preserving codes (code = position in the sorted, distinct values) and an index vector
// of codes, bit-packed to the fewest bits the dictionary needs (SAP HANA's Main, the
// interleaving thesis §4.3.1).
//
//   braid::main_fragment<std::int64_t> main(rows);                  // rows in row order
//   std::optional<std::uint32_t> code = main.locate(42);            // code of 42, or absent
//   std::int64_t value = main.extract(*code);                       // dictionary[code]
//   std::int64_t cell = main.get(row);                              // extract(codes[row])
//   // each also as a coroutine on the mode: locate_lookup<M> (and the dictionary's
//   // lookup_nested<M>, a task per probe), get_lookup<M> (coro<>),
//   // get_task<M> (one task frame) and get_nested<M> (a task per helper: code_at, extract;
//   // get_nested<M>(row, context) takes every frame from a lookup_context's arena)
//
// The dictionary is a braid::sorted_array (so its locate has every technique of multi_find:
// naive, gp, amac, coro, coro_nested, fiber, adaptive); the index vector a bit_packed_vector.
//
// Complexity: construction O(n log d) for n rows and d distinct values; locate O(log d);
// extract O(1); get O(1) with two dependent loads (the code's word, then the dictionary entry:
// the two misses an interleaved get hides). Immutable once built: any number of readers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "braid/column/bit_packed_vector.hpp"
#include "braid/column/detail/fragment_gets.hpp"
#include "braid/core/coro.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/lookup_context.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/task.hpp"
#include "braid/index/sorted_array.hpp"

namespace braid {

template <class Key>
class main_fragment : public detail::fragment_gets<main_fragment<Key>, Key> {
 public:
  using key_type = Key;
  using code_type = std::uint32_t;

  main_fragment() = default;

  // Encodes `rows` (any order, repeats allowed). Throws std::invalid_argument if there are
  // 2^32 distinct values or more.
  explicit main_fragment(std::span<const Key> rows, page_size pages = page_size::huge_2m)
      : dictionary_(rows, pages) {
    if (dictionary_.size() > std::size_t{UINT32_MAX}) {
      throw std::invalid_argument("main_fragment: too many distinct values for 32-bit codes");
    }
    codes_ = bit_packed_vector(rows.size(), bit_packed_vector::bits_for(dictionary_.size()), pages);
    for (std::size_t row = 0; row < rows.size(); ++row) codes_.set(row, static_cast<code_type>(*dictionary_.find(rows[row])));
  }

  // A Main over a built dictionary whose rows have `codes` (bits at least bits_for(dictionary
  // size)). Throws std::invalid_argument for a code out of range.
  main_fragment(sorted_array<Key> dictionary, bit_packed_vector codes)
      : dictionary_(std::move(dictionary)), codes_(std::move(codes)) {
    if (dictionary_.size() > std::size_t{UINT32_MAX}) {
      throw std::invalid_argument("main_fragment: too many distinct values for 32-bit codes");
    }
    codes_.for_each(0, codes_.size(), [this](std::uint32_t code) {
      if (code >= dictionary_.size()) throw std::invalid_argument("main_fragment: code " + std::to_string(code) + " out of range");
    });
  }

  [[nodiscard]] std::size_t size() const noexcept { return codes_.size(); }
  [[nodiscard]] std::size_t dictionary_size() const noexcept { return dictionary_.size(); }
  [[nodiscard]] const sorted_array<Key>& dictionary() const noexcept { return dictionary_; }
  [[nodiscard]] const bit_packed_vector& codes() const noexcept { return codes_; }
  [[nodiscard]] std::size_t memory_bytes() const noexcept { return dictionary_.memory_bytes() + codes_.memory_bytes(); }

  // ---- the plain operations -------------------------------------------------------------------
  [[nodiscard]] std::optional<code_type> locate(const Key& value) const noexcept {
    const auto position = dictionary_.find(value);
    if (!position) return std::nullopt;
    return static_cast<code_type>(*position);
  }
  // Precondition: code < dictionary_size().
  [[nodiscard]] Key extract(code_type code) const noexcept { return dictionary_[code]; }
  // Precondition: row < size().
  [[nodiscard]] Key get(std::size_t row) const noexcept { return dictionary_[codes_[row]]; }

  // ---- the same, written once on the mode ------------------------------------------------------
  // The dictionary position of `value` (sorted_array's interleaved binary search).
  template <execution_mode M>
  coro<std::optional<std::size_t>> locate_lookup(Key value) const {
    return dictionary_.template lookup<M>(value);
  }

  // The whole get in one frame of type Operation (coro<Key> or task<Key>): the code's word,
  // then the dictionary entry. get_lookup, get_task and get_nested: detail::fragment_gets.
  template <execution_mode M, class Operation = coro<Key>>
  Operation read(std::size_t row) const {
    const code_type code = co_await codes_.template await_code<M>(row);
    co_return co_await fetch<M>(&dictionary_[code]);
  }
  // The same read storing its value into `out` (a caller's reused value; no result in the
  // frame to hand over): the flat form of tuple reconstruction.
  template <execution_mode M, class Out>
  coro<void> read_into(std::size_t row, Out& out) const {
    const code_type code = co_await codes_.template await_code<M>(row);
    out = co_await fetch<M>(&dictionary_[code]);
  }
  template <execution_mode M, class... Context>
  task<code_type> code_at(std::size_t row, Context&...) const {
    co_return co_await codes_.template await_code<M>(row);
  }
  template <execution_mode M, class... Context>
  task<Key> extract_task(code_type code, Context&...) const {
    co_return co_await fetch<M>(&dictionary_[code]);
  }

 private:
  sorted_array<Key> dictionary_;
  bit_packed_vector codes_;
};

}  // namespace braid
