// The two fragments of a VARCHAR column (the interleaving thesis §4.3.1, SAP HANA's layout with
// text values):
//
//   varchar_main_fragment    read-only: a string_dictionary (sorted, front-coded in blocks,
//                            order-preserving codes) and a bit_packed_vector of codes per row;
//   varchar_delta_fragment   appendable: an unsorted dictionary in arrival order (each string
//                            stored once in a byte arena; code = arrival position), a CSB+-tree
//                            over the codes giving the sorted view (string_code_tree: each
//                            comparison in a leaf reads the dictionary entry and then the
//                            string) and a vector of codes per row.
//
//   braid::varchar_main_fragment main(rows);                  // string_views, row order
//   std::optional<std::uint32_t> code = main.locate("ada");
//   std::string text = main.get(row);
//   braid::varchar_delta_fragment delta;
//   delta.append(batch);                                      // all or nothing
//   braid::task<std::string> t = delta.get_task<braid::interleaved>(row);
//
// Each fragment's get is written once on the mode and on the coroutine type: read<M, Op>(row)
// (Op = coro<std::string> or task<std::string>, or any task / coro of a type a std::string
// converts to): one frame, suspending on the code (Main: its index-vector word; Delta: its
// slot), on the dictionary entry and on the rest of the string; get_nested<M> awaits a task per
// helper (code_at, extract_task).
//
// The Delta's sorted view is string_code_tree (string_code_tree.hpp): inner nodes hold each
// separator's code and an 8-byte window of its text past the node's common prefix, leaves hold
// codes only. The tree stores codes and node indices, never views into the byte arena, so
// copying or moving the fragment (append copies it, for the strong guarantee) keeps it valid;
// each lookup resolves codes through the fragment's entries and bytes. Lookups, all equal to
// find: lookup<M> (one coro<> frame: suspends on each node below the root, and on the entry and
// the string of each comparison that reads one), lookup_nested<M> (a child task per node and
// per probe), and multi_find with naive, coro, coro_nested or adaptive (no gp, amac, fiber or
// IMLP form: asking for one throws std::invalid_argument). Per locate against the sorted array
// of codes it replaces: about 2/3 of the instructions, about half the time plain and a third
// with coro at 10^6 strings (the numbers: string_code_tree.hpp).
//
// Complexity: Main construction O(n log d); locate O(log d) string comparisons; get O(length).
// Delta append O(n + d + bytes) (the fragment is copied, for the strong guarantee, and the
// tree is rebuilt: bulk-loaded from its codes merged with the batch's new ones) plus sorting the
// batch's new strings and locating every row (O(log d) each); truncate O(n + d) (a rebuild);
// locate O(log d) comparisons, O(tree levels + log2(15)) lines and strings read. Delta
// invariants: the tree lists every code once, in string order; codes below dictionary_size().
// Known limit: a batch's cost includes the whole rebuild, so the Delta is meant to stay small
// (a merge into Main empties it).
// Readers may share a fragment between appends; append is not thread-safe.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "braid/column/bit_packed_vector.hpp"
#include "braid/column/detail/fragment_gets.hpp"
#include "braid/column/string_code_tree.hpp"
#include "braid/column/string_dictionary.hpp"
#include "braid/core/coro.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/huge_page_allocator.hpp"
#include "braid/core/lookup_context.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/task.hpp"
#include "braid/index/detail/multi_find.hpp"

namespace braid {

class varchar_main_fragment : public detail::fragment_gets<varchar_main_fragment, std::string> {
 public:
  using code_type = std::uint32_t;

  varchar_main_fragment() = default;

  // Encodes `rows` (any order, repeats allowed).
  explicit varchar_main_fragment(std::span<const std::string_view> rows, page_size pages = page_size::huge_2m) {
    const std::vector<std::string_view> sorted = string_dictionary::sorted_distinct(rows);
    dictionary_ = string_dictionary(sorted, pages);
    codes_ = bit_packed_vector(rows.size(), bit_packed_vector::bits_for(sorted.size()), pages);
    for (std::size_t row = 0; row < rows.size(); ++row) {
      codes_.set(row, static_cast<code_type>(std::lower_bound(sorted.begin(), sorted.end(), rows[row]) - sorted.begin()));
    }
  }

  // A Main over a built dictionary whose rows have `codes`. Throws std::invalid_argument for a
  // code out of range.
  varchar_main_fragment(string_dictionary dictionary, bit_packed_vector codes)
      : dictionary_(std::move(dictionary)), codes_(std::move(codes)) {
    codes_.for_each(0, codes_.size(), [this](std::uint32_t code) {
      if (code >= dictionary_.size()) throw std::invalid_argument("varchar_main_fragment: code " + std::to_string(code) + " out of range");
    });
  }

  [[nodiscard]] std::size_t size() const noexcept { return codes_.size(); }
  [[nodiscard]] std::size_t dictionary_size() const noexcept { return dictionary_.size(); }
  [[nodiscard]] const string_dictionary& dictionary() const noexcept { return dictionary_; }
  [[nodiscard]] const bit_packed_vector& codes() const noexcept { return codes_; }
  [[nodiscard]] std::size_t memory_bytes() const noexcept { return dictionary_.memory_bytes() + codes_.memory_bytes(); }

  [[nodiscard]] std::optional<code_type> locate(std::string_view text) const noexcept { return dictionary_.find(text); }
  // Preconditions: code < dictionary_size(), row < size().
  [[nodiscard]] std::string extract(code_type code) const { return dictionary_.extract(code); }
  [[nodiscard]] std::string get(std::size_t row) const { return dictionary_.extract(codes_[row]); }
  void get_into(std::size_t row, std::string& out) const { dictionary_.extract_into(codes_[row], out); }

  template <execution_mode M>
  coro<std::optional<code_type>> locate_lookup(std::string_view text) const {
    return dictionary_.template lookup<M>(text);
  }
  template <execution_mode M, class Operation = coro<std::string>>
  Operation read(std::size_t row) const {
    const code_type code = co_await codes_.template await_code<M>(row);
    const string_dictionary::entry& e = co_await dictionary_.template entry_of<M>(code);
    co_return co_await dictionary_.template text_of<M>(code, e);
  }
  // The same read assembling the text into `out` (a caller's reused string: no allocation once
  // its capacity suffices, no result to hand over): the flat form of tuple reconstruction.
  template <execution_mode M>
  coro<void> read_into(std::size_t row, std::string& out) const {
    const code_type code = co_await codes_.template await_code<M>(row);
    const string_dictionary::entry& e = co_await dictionary_.template entry_of<M>(code);
    co_await dictionary_.template text_into<M>(code, e, out);
  }
  template <execution_mode M, class... Context>
  task<code_type> code_at(std::size_t row, Context&...) const {
    co_return co_await codes_.template await_code<M>(row);
  }
  template <execution_mode M, class... Context>
  task<std::string> extract_task(code_type code, Context&... context) const {
    return dictionary_.template extract_task<M>(code, context...);
  }

 private:
  string_dictionary dictionary_;
  bit_packed_vector codes_;
};

class varchar_delta_fragment
    : public detail::multi_find_member<varchar_delta_fragment, std::string_view, std::optional<std::uint32_t>>,
      public detail::fragment_gets<varchar_delta_fragment, std::string> {
 public:
  using code_type = std::uint32_t;
  using result_type = std::optional<code_type>;
  using entry = string_dictionary::entry;
  using index_type = string_code_tree<>;
  static constexpr prefetch_hint default_prefetch_hint = prefetch_hint::t0;
  static constexpr const char* structure_name = "varchar_delta_fragment";

  // Large arrays (strings, entries, tree, codes) sit on pages of `pages` (huge_page_allocator).
  varchar_delta_fragment() : varchar_delta_fragment(page_size::huge_2m) {}
  explicit varchar_delta_fragment(page_size pages)
      : bytes_(huge_page_allocator<char>(pages)), entries_(huge_page_allocator<entry>(pages)), codes_(huge_page_allocator<code_type>(pages)) {
    bytes_.push_back('\0');
  }

  // A Delta over `dictionary` (code i = dictionary[i], distinct) whose rows have `codes`.
  // Throws std::invalid_argument for a repeated string or a code out of range.
  varchar_delta_fragment(std::span<const std::string_view> dictionary, const std::vector<code_type>& codes,
                         page_size pages = page_size::huge_2m)
      : varchar_delta_fragment(pages) {
    if (dictionary.size() >= std::size_t{UINT32_MAX}) throw std::invalid_argument("varchar_delta_fragment: too many strings");
    for (const std::string_view text : dictionary) add_string(text);
    const std::vector<code_type> sorted = sorted_codes(0, entries_.size());
    for (std::size_t i = 1; i < sorted.size(); ++i) {
      if (text(sorted[i - 1]) == text(sorted[i])) throw std::invalid_argument("varchar_delta_fragment: a repeated string");
    }
    for (const code_type code : codes) {
      if (code >= entries_.size()) throw std::invalid_argument("varchar_delta_fragment: code " + std::to_string(code) + " out of range");
    }
    index_ = index_type(sorted, texts(), pages);
    codes_.assign(codes.begin(), codes.end());
  }

  // Appends `rows`. Strings already present are located through the tree; the batch's new
  // ones are hashed, stored once, merged with the tree's codes, and the tree is rebuilt.
  // Strong guarantee: if it throws (std::bad_alloc, or std::length_error at 2^32 - 1
  // strings), nothing changed.
  void append(std::span<const std::string_view> rows) {
    if (rows.empty()) return;
    varchar_delta_fragment grown = *this;
    grown.add_rows(rows);
    *this = std::move(grown);
  }

  [[nodiscard]] std::size_t size() const noexcept { return codes_.size(); }
  [[nodiscard]] std::size_t dictionary_size() const noexcept { return entries_.size(); }
  [[nodiscard]] std::span<const code_type> codes() const noexcept { return codes_; }
  // Every code once, in increasing order of its string (read from the tree's leaves: O(d)).
  [[nodiscard]] std::vector<code_type> sorted_view() const { return index_.sorted_codes(); }
  [[nodiscard]] const index_type& index() const noexcept { return index_; }
  [[nodiscard]] std::size_t memory_bytes() const noexcept {
    return bytes_.capacity() + entries_.capacity() * sizeof(entry) + index_.memory_bytes() + codes_.capacity() * sizeof(code_type);
  }

  void clear() { *this = varchar_delta_fragment(pages()); }

  // Drops rows [rows, size()) and the strings only they used (codes are in arrival order, so
  // those are the last ones); the tree is rebuilt over the codes kept. Precondition:
  // rows <= size(). Strong guarantee: the new tree is built before anything changes.
  void truncate(std::size_t rows) {
    std::size_t used = 0;
    for (std::size_t row = 0; row < rows; ++row) used = std::max<std::size_t>(used, std::size_t{codes_[row]} + 1);
    if (used < entries_.size()) {
      std::vector<code_type> kept = index_.sorted_codes();
      std::erase_if(kept, [used](code_type code) { return code >= used; });
      index_type index(kept, texts(), pages());
      bytes_.resize(entries_[used].rest_offset + 1);  // the padding byte after the last string kept
      bytes_.back() = '\0';
      entries_.resize(used);
      index_ = std::move(index);
    }
    codes_.resize(rows);
  }

  // Precondition: code < dictionary_size(), row < size().
  [[nodiscard]] std::string_view text(code_type code) const noexcept {
    return {bytes_.data() + entries_[code].rest_offset, entries_[code].rest_length};
  }
  [[nodiscard]] std::string extract(code_type code) const { return std::string(text(code)); }
  [[nodiscard]] std::string get(std::size_t row) const { return extract(codes_[row]); }
  void get_into(std::size_t row, std::string& out) const { out.assign(text(codes_[row])); }

  // ---- locate: the CSB+-tree over codes (string_code_tree) -------------------------------------
  [[nodiscard]] result_type find(std::string_view key) const noexcept { return index_.find(key, texts()); }
  [[nodiscard]] result_type locate(std::string_view key) const noexcept { return find(key); }
  template <execution_mode M>
  coro<result_type> locate_lookup(std::string_view key) const {
    return lookup<M>(key);
  }
  // One frame: suspends on each node below the root, and per comparison that reads a string
  // (each leaf probe, each separator whose window ties) on its entry and on the string.
  template <execution_mode M>
  coro<result_type> lookup(std::string_view key) const {
    return index_.template lookup<M>(key, texts());
  }
  // A child task per node and per probe (technique::coro_nested).
  template <execution_mode M>
  task<result_type> lookup_nested(std::string_view key) const {
    return index_.template lookup_nested<M>(key, texts());
  }

  // Throws std::logic_error naming the first broken invariant of the tree or of the fragment.
  void check_invariants() const {
    index_.check_invariants(texts());
    if (index_.size() != entries_.size()) throw std::logic_error("varchar_delta_fragment: the tree does not list every code");
    for (const code_type code : codes_) {
      if (code >= entries_.size()) throw std::logic_error("varchar_delta_fragment: a row's code out of range");
    }
  }

  // ---- get -----------------------------------------------------------------------------------
  template <execution_mode M, class Operation = coro<std::string>>
  Operation read(std::size_t row) const {
    const code_type code = co_await fetch<M>(&codes_[row]);
    const entry& e = co_await fetch<M>(&entries_[code]);
    co_return co_await text_of<M>(e);
  }
  // The same read assembling the text into `out` (see varchar_main_fragment::read_into).
  template <execution_mode M>
  coro<void> read_into(std::size_t row, std::string& out) const {
    const code_type code = co_await fetch<M>(&codes_[row]);
    const entry& e = co_await fetch<M>(&entries_[code]);
    co_await detail::await_text_into<M>({}, bytes_.data() + e.rest_offset, e.rest_length, out);
  }
  template <execution_mode M, class... Context>
  task<code_type> code_at(std::size_t row, Context&...) const {
    co_return co_await fetch<M>(&codes_[row]);
  }
  template <execution_mode M, class... Context>
  task<std::string> extract_task(code_type code, Context&...) const {
    const entry& e = co_await fetch<M>(&entries_[code]);
    co_return co_await text_of<M>(e);
  }

 private:
  template <execution_mode M>
  auto text_of(const entry& e) const noexcept {
    return detail::await_text<M>({}, bytes_.data() + e.rest_offset, e.rest_length);
  }
  // What the tree resolves codes through: valid until the next change of this fragment.
  [[nodiscard]] code_texts texts() const noexcept { return {entries_.data(), bytes_.data(), entries_.size()}; }

  // Stores `text` as the next code (before the padding byte that ends the arena).
  void add_string(std::string_view text) {
    bytes_.pop_back();
    entries_.push_back({bytes_.size(), text.size()});
    bytes_.insert(bytes_.end(), text.begin(), text.end());
    bytes_.push_back('\0');
  }

  // Codes [first, last) in string order (sorting views, not codes, keeps the entries out of
  // each comparison).
  [[nodiscard]] std::vector<code_type> sorted_codes(std::size_t first, std::size_t last) const {
    std::vector<std::pair<std::string_view, code_type>> by_text(last - first);
    for (std::size_t i = 0; i < by_text.size(); ++i) by_text[i] = {text(static_cast<code_type>(first + i)), static_cast<code_type>(first + i)};
    std::sort(by_text.begin(), by_text.end());
    std::vector<code_type> codes(by_text.size());
    for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = by_text[i].second;
    return codes;
  }

  void add_rows(std::span<const std::string_view> rows) {
    const std::size_t old_strings = entries_.size();
    std::unordered_map<std::string_view, code_type> new_codes;
    codes_.reserve(codes_.size() + rows.size());
    for (const std::string_view row : rows) {
      if (const auto code = find(row)) {
        codes_.push_back(*code);
        continue;
      }
      auto [at, inserted] = new_codes.try_emplace(row, static_cast<code_type>(entries_.size()));
      if (inserted) {
        if (entries_.size() + 1 >= std::size_t{UINT32_MAX}) throw std::length_error("varchar_delta_fragment: too many distinct strings");
        add_string(row);
      }
      codes_.push_back(at->second);
    }
    if (entries_.size() == old_strings) return;
    const std::vector<code_type> added = sorted_codes(old_strings, entries_.size());
    const std::vector<code_type> old_sorted = index_.sorted_codes();
    std::vector<code_type> merged(old_sorted.size() + added.size());
    std::merge(old_sorted.begin(), old_sorted.end(), added.begin(), added.end(), merged.begin(),
               [this](code_type a, code_type b) { return text(a) < text(b); });
    index_ = index_type(merged, texts(), pages());
  }

  [[nodiscard]] page_size pages() const noexcept { return codes_.get_allocator().pages(); }

  template <class T>
  using array = std::vector<T, huge_page_allocator<T>>;
  array<char> bytes_;     // the strings in arrival order, then one padding byte
  array<entry> entries_;  // code -> {offset, length} in bytes_
  index_type index_;      // every code once, in increasing order of its string
  array<code_type> codes_;  // row -> code
};

}  // namespace braid
