// delta_fragment<Key>: the appendable part of a column — an unsorted dictionary whose codes
// are in order of first arrival, a CSB+-tree over the codes giving the sorted view (braid's
// csb_plus_tree_over_codes: every comparison in a leaf reads dictionary[code]), and an index
// vector of codes (SAP HANA's Delta, the interleaving thesis §4.3.1).
//
//   braid::delta_fragment<std::int64_t> delta;
//   delta.append(rows);                                   // a batch of values, in row order
//   std::optional<std::uint32_t> code = delta.locate(42);
//   delta.extract(*code); delta.get(row);
//   delta.index().multi_find(values, codes, braid::technique::coro, 16);   // interleaved locate
//
// Appends come in batches: a batch extends the dictionary and the index vector, then rebuilds
// the tree (csb_plus_tree_over_codes is bulk-loaded), so a batch costs O(d log d) for d
// distinct values in the Delta. That keeps a Delta small, which is what a merge into Main is
// for. The dictionary lives once, in the tree's arena.
//
// Complexity: locate O(tree levels + log2(leaf capacity)) lines; extract and get O(1).
// Readers may share a Delta between appends; append is not thread-safe.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "braid/column/detail/fragment_gets.hpp"
#include "braid/core/coro.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/huge_page_allocator.hpp"
#include "braid/core/lookup_context.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/task.hpp"
#include "braid/index/csb_plus_tree.hpp"

namespace braid {

template <class Key>
class delta_fragment : public detail::fragment_gets<delta_fragment<Key>, Key> {
 public:
  using key_type = Key;
  using code_type = std::uint32_t;
  using index_type = csb_plus_tree_over_codes<Key>;
  // Row -> code; a large vector on the fragment's pages (huge_page_allocator).
  using code_vector = std::vector<code_type, huge_page_allocator<code_type>>;

  delta_fragment() = default;

  // A Delta over `dictionary` (code i = dictionary[i], distinct) whose rows have `codes`.
  // Throws std::invalid_argument for a repeated value or a code out of range.
  delta_fragment(std::span<const Key> dictionary, std::vector<code_type> codes, page_size pages = page_size::huge_2m)
      : codes_(codes.begin(), codes.end(), code_vector::allocator_type(pages)), index_(dictionary, pages) {
    for (const code_type code : codes_) {
      if (code >= dictionary.size()) throw std::invalid_argument("delta_fragment: code " + std::to_string(code) + " out of range");
    }
  }

  // Appends `rows`. Values already in the dictionary are located through the tree; only the
  // batch's new values are hashed. Strong guarantee: if it throws (std::bad_alloc, or
  // std::length_error when the dictionary would reach 2^32 - 1 values), nothing changed.
  void append(std::span<const Key> rows) {
    if (rows.empty()) return;
    const std::span<const Key> old = index_.dictionary();
    std::vector<Key> dictionary(old.begin(), old.end());
    std::unordered_map<Key, code_type> new_codes;
    code_vector codes = codes_;
    codes.reserve(codes.size() + rows.size());
    for (const Key& value : rows) {
      if (const auto code = index_.find(value)) {
        codes.push_back(*code);
        continue;
      }
      auto [at, inserted] = new_codes.try_emplace(value, static_cast<code_type>(dictionary.size()));
      if (inserted) {
        if (dictionary.size() + 1 >= std::size_t{UINT32_MAX}) throw std::length_error("delta_fragment: too many distinct values");
        dictionary.push_back(value);
      }
      codes.push_back(at->second);
    }
    index_type index{std::span<const Key>(dictionary), page_size::small_4k};
    codes_ = std::move(codes);
    index_ = std::move(index);
  }

  [[nodiscard]] std::size_t size() const noexcept { return codes_.size(); }
  [[nodiscard]] std::size_t dictionary_size() const noexcept { return index_.size(); }
  [[nodiscard]] std::span<const Key> dictionary() const noexcept { return index_.dictionary(); }
  [[nodiscard]] std::span<const code_type> codes() const noexcept { return codes_; }
  [[nodiscard]] const index_type& index() const noexcept { return index_; }

  void clear() { *this = delta_fragment(); }

  // Drops rows [rows, size()) and the dictionary values only they used (codes are in arrival
  // order, so those are the last ones). Precondition: rows <= size().
  void truncate(std::size_t rows) {
    codes_.resize(rows);
    std::size_t used = 0;
    for (const code_type code : codes_) used = std::max<std::size_t>(used, std::size_t{code} + 1);
    const std::vector<Key> kept(index_.dictionary().begin(), index_.dictionary().begin() + static_cast<std::ptrdiff_t>(used));
    index_ = index_type{std::span<const Key>(kept), page_size::small_4k};
  }

  [[nodiscard]] std::optional<code_type> locate(const Key& value) const { return index_.find(value); }
  // Precondition: code < dictionary_size().
  [[nodiscard]] Key extract(code_type code) const noexcept { return index_.dictionary()[code]; }
  // Precondition: row < size().
  [[nodiscard]] Key get(std::size_t row) const noexcept { return extract(codes_[row]); }

  template <execution_mode M>
  coro<std::optional<code_type>> locate_lookup(Key value) const {
    return index_.template lookup<M>(value);
  }
  // The whole get in one frame of type Operation (coro<Key> or task<Key>). get_lookup,
  // get_task and get_nested: detail::fragment_gets.
  template <execution_mode M, class Operation = coro<Key>>
  Operation read(std::size_t row) const {
    const code_type code = co_await fetch<M>(&codes_[row]);
    co_return co_await fetch<M>(&index_.dictionary()[code]);
  }
  // The same read storing its value into `out` (see main_fragment::read_into).
  template <execution_mode M, class Out>
  coro<void> read_into(std::size_t row, Out& out) const {
    const code_type code = co_await fetch<M>(&codes_[row]);
    out = co_await fetch<M>(&index_.dictionary()[code]);
  }
  template <execution_mode M, class... Context>
  task<code_type> code_at(std::size_t row, Context&...) const {
    co_return co_await fetch<M>(&codes_[row]);
  }
  template <execution_mode M, class... Context>
  task<Key> extract_task(code_type code, Context&...) const {
    co_return co_await fetch<M>(&index_.dictionary()[code]);
  }

 private:
  code_vector codes_;
  index_type index_{page_size::small_4k};
};

}  // namespace braid
