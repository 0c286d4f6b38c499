// string_dictionary: the sorted dictionary of a VARCHAR column's Main fragment — distinct
// strings in byte order, each one's code its position (order-preserving codes), stored with
// front coding in blocks (the interleaving thesis's prefix-compressed VARCHAR, §3.2.4 / §4.4.3).
//
//   braid::string_dictionary names(sorted_distinct_views);            // strictly ascending
//   std::optional<std::uint32_t> code = names.find("carol");          // "locate", or absent
//   std::string text = names.extract(*code);                          // "carol"
//   names.multi_find(views, codes, braid::technique::coro, 16);       // the IN-predicate's locate
//
// Layout: codes are grouped in blocks of block_entries (16) consecutive codes. A block stores
// once the longest prefix its strings share (in the prefix bytes); each code has an entry
// {offset, length} leading to the rest of its string after that prefix (in the rest bytes).
// So a decode reads the block's header and prefix (shared by 16 codes: often cached), then the
// entry and, through that indirection, the rest (a miss for distinct values).
//
// Suspension points (the choice the thesis argues for: blind suspension on the often-cached
// prefix is not worth it): every coroutine form suspends on the entry (its address is known
// from the code) and on the rest (its address is in the entry); the block header is only
// prefetched with the entry, and the prefix only prefetched before the suspension on the rest.
// locate's binary search over the blocks suspends on the block header (the block's first entry
// prefetched with it) and on the first string's rest; within the chosen block on each probed
// rest, the block's entries having been prefetched (four lines) once.
//
// Lookups, all equal to find(): lookup<M> (coro<>, one frame), lookup_nested<M> (a task per
// probe: the mechanical conversion), and multi_find with naive, coro, coro_nested or adaptive
// (no gp, amac, fiber or IMLP form: asking for one throws std::invalid_argument). The keys of
// an interleaved lookup are views: they must outlive it.
//
// Complexity: construction O(total bytes); find O(log(d / 16) + log 16) string comparisons;
// extract O(length). Invariants: strings strictly ascending; a block's prefix is the longest
// common prefix of its first and last strings; both byte arrays end in one padding byte, so
// the address of an empty rest is inside the array. Immutable once built: any number of readers.
// Known limit: at most 2^32 - 1 strings; the byte arrays hold the strings' total length.
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
#include <vector>

#include "braid/core/coro.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/lookup_context.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/prefetch.hpp"
#include "braid/core/task.hpp"
#include "braid/index/detail/multi_find.hpp"

namespace braid {

namespace detail {

// Awaits the rest of a string (all its lines fetched once), then returns prefix + rest.
// With `into` set, the text is assembled there (its capacity reused) and nothing is returned.
template <class Load, bool Into = false>
struct text_awaiter {
  Load load;
  std::string_view prefix;
  std::size_t rest_length;
  std::string* into = nullptr;
  bool await_ready() noexcept { return load.await_ready(); }
  auto await_suspend(std::coroutine_handle<> h) noexcept { return load.await_suspend(h); }
  auto await_resume() {
    const char& rest = load.await_resume();
    if constexpr (Into) {
      into->assign(prefix).append(&rest, rest_length);
    } else {
      std::string text;
      text.reserve(prefix.size() + rest_length);
      text.append(prefix).append(&rest, rest_length);
      return text;
    }
  }
};

// The branch-free binary search: the last position p in [first, first + count) whose
// not_above(p) holds, given that it is monotone (true, then false); `first` when none holds.
// Precondition: count >= 1.
template <class NotAbove>
std::size_t last_not_above(std::size_t first, std::size_t count, NotAbove&& not_above) {
  while (count > 1) {
    const std::size_t half = count / 2;
    first = not_above(first + half) ? first + half : first;
    count -= half;
  }
  return first;
}

// The awaiter for `rest_length` bytes at `rest`, returned after `prefix`.
template <execution_mode M>
auto await_text(std::string_view prefix, const char* rest, std::size_t rest_length) noexcept {
  using load_type = decltype(fetch_lines<M>(rest, std::size_t{1}));
  return text_awaiter<load_type>{fetch_lines<M>(rest, std::max<std::size_t>(rest_length, 1)), prefix, rest_length};
}
// The same, assembling the text into `out`.
template <execution_mode M>
auto await_text_into(std::string_view prefix, const char* rest, std::size_t rest_length, std::string& out) noexcept {
  using load_type = decltype(fetch_lines<M>(rest, std::size_t{1}));
  return text_awaiter<load_type, true>{fetch_lines<M>(rest, std::max<std::size_t>(rest_length, 1)), prefix, rest_length, &out};
}

}  // namespace detail

class string_dictionary
    : public detail::multi_find_member<string_dictionary, std::string_view, std::optional<std::uint32_t>> {
 public:
  using code_type = std::uint32_t;
  using result_type = std::optional<code_type>;
  static constexpr std::size_t block_entries = 16;
  static constexpr prefetch_hint default_prefetch_hint = prefetch_hint::t0;
  static constexpr const char* structure_name = "string_dictionary";

  struct block {
    std::uint64_t prefix_offset = 0;  // into the prefix bytes
    std::uint64_t prefix_length = 0;
  };
  struct entry {
    std::uint64_t rest_offset = 0;  // into the rest bytes
    std::uint64_t rest_length = 0;
  };

  string_dictionary() = default;

  // Throws std::invalid_argument unless `sorted` is strictly ascending and has fewer than 2^32
  // strings.
  explicit string_dictionary(std::span<const std::string_view> sorted) {
    if (sorted.size() >= std::size_t{UINT32_MAX}) throw std::invalid_argument("string_dictionary: too many strings for 32-bit codes");
    for (std::size_t i = 1; i < sorted.size(); ++i) {
      if (!(sorted[i - 1] < sorted[i])) {
        throw std::invalid_argument("string_dictionary: strings not strictly ascending at position " + std::to_string(i));
      }
    }
    for (std::size_t first = 0; first < sorted.size(); first += block_entries) {
      add_block(sorted.subspan(first, std::min(block_entries, sorted.size() - first)));
    }
    prefix_bytes_.push_back('\0');  // padding: an empty prefix or rest at the end has an address inside
    rest_bytes_.push_back('\0');
  }

  // The sorted distinct strings of `values` (any order, repeats allowed).
  [[nodiscard]] static std::vector<std::string_view> sorted_distinct(std::span<const std::string_view> values) {
    std::vector<std::string_view> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    return sorted;
  }

  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
  [[nodiscard]] std::size_t block_count() const noexcept { return blocks_.size(); }
  [[nodiscard]] std::size_t memory_bytes() const noexcept {
    return blocks_.size() * sizeof(block) + entries_.size() * sizeof(entry) + prefix_bytes_.size() + rest_bytes_.size();
  }
  // The bytes of text stored, prefixes once per block: what front coding saves shows here.
  [[nodiscard]] std::size_t text_bytes() const noexcept { return text_bytes_; }

  // Precondition for the accessors below: code < size() (block < block_count()).
  [[nodiscard]] std::string_view prefix(std::size_t block_index) const noexcept {
    const block& b = blocks_[block_index];
    return {prefix_bytes_.data() + b.prefix_offset, b.prefix_length};
  }
  [[nodiscard]] std::string_view rest(code_type code) const noexcept {
    const entry& e = entries_[code];
    return {rest_bytes_.data() + e.rest_offset, e.rest_length};
  }
  [[nodiscard]] std::string extract(code_type code) const {
    std::string text;
    extract_into(code, text);
    return text;
  }
  // Overwrites `out` (its capacity reused).
  void extract_into(code_type code, std::string& out) const {
    out.assign(prefix(code / block_entries)).append(rest(code));
  }

  // ---- locate ---------------------------------------------------------------------------------
  [[nodiscard]] result_type find(std::string_view key) const noexcept {
    if (blocks_.empty()) return std::nullopt;
    const std::size_t low =
        detail::last_not_above(0, blocks_.size(), [&](std::size_t b) { return compare_first(b, key) <= 0; });
    if (compare_first(low, key) > 0 || !key.starts_with(prefix(low))) return std::nullopt;
    const std::string_view key_rest = key.substr(prefix(low).size());
    const auto code = static_cast<code_type>(detail::last_not_above(
        first_code(low), block_size(low), [&](std::size_t c) { return rest(static_cast<code_type>(c)) <= key_rest; }));
    if (rest(code) != key_rest) return std::nullopt;
    return code;
  }

  template <execution_mode M>
  coro<result_type> lookup(std::string_view key) const {
    if (blocks_.empty()) co_return std::nullopt;
    std::size_t low = 0;
    std::size_t remaining = blocks_.size();
    while (remaining > 1) {
      const std::size_t half = remaining / 2;
      (void)co_await header_of<M>(low + half);
      const code_type probed = first_code(low + half);
      low = co_await text_of<M>(probed, entries_[probed]) <= key ? low + half : low;
      remaining -= half;
    }
    (void)co_await header_of<M>(low);
    if (key < co_await text_of<M>(first_code(low), entries_[first_code(low)]) || !key.starts_with(prefix(low))) co_return std::nullopt;
    const std::string_view key_rest = key.substr(prefix(low).size());
    if constexpr (M::suspends) prefetch_lines<M::hint>(&entries_[first_code(low)], block_size(low) * sizeof(entry));
    code_type code = first_code(low);
    std::size_t count = block_size(low);
    while (count > 1) {
      const std::size_t half = count / 2;
      const std::string probed = co_await rest_of<M>(static_cast<code_type>(code + half));
      code = probed <= key_rest ? static_cast<code_type>(code + half) : code;
      count -= half;
    }
    if (co_await rest_of<M>(code) != key_rest) co_return std::nullopt;
    co_return code;
  }

  // The same search written as nested calls: every probe a child task. Not inlined (see
  // sorted_array::lookup_nested: GCC 12's comdat placement of inlined coroutine actors).
  template <execution_mode M>
  [[gnu::noinline]] task<result_type> lookup_nested(std::string_view key) const {
    if (blocks_.empty()) co_return std::nullopt;
    std::size_t low = 0;
    std::size_t remaining = blocks_.size();
    while (remaining > 1) {
      const std::size_t half = remaining / 2;
      low = co_await first_task<M>(low + half) <= key ? low + half : low;
      remaining -= half;
    }
    if (key < co_await first_task<M>(low) || !key.starts_with(prefix(low))) co_return std::nullopt;
    const std::string_view key_rest = key.substr(prefix(low).size());
    code_type code = first_code(low);
    std::size_t count = block_size(low);
    while (count > 1) {
      const std::size_t half = count / 2;
      code = co_await rest_task<M>(static_cast<code_type>(code + half)) <= key_rest ? static_cast<code_type>(code + half) : code;
      count -= half;
    }
    if (co_await rest_task<M>(code) != key_rest) co_return std::nullopt;
    co_return code;
  }

  // ---- extract, as awaiters any coroutine can use ---------------------------------------------
  // The code's entry (suspends); its block's header is prefetched alongside.
  template <execution_mode M>
  auto entry_of(code_type code) const noexcept {
    if constexpr (M::suspends) prefetch<M::hint>(&blocks_[code / block_entries]);
    return fetch<M>(&entries_[code]);
  }
  // The string, given the code's entry: prefetches the prefix, suspends on the rest.
  template <execution_mode M>
  auto text_of(code_type code, const entry& e) const noexcept {
    const std::string_view shared = prefix(code / block_entries);
    if constexpr (M::suspends) prefetch_lines<M::hint>(shared.data(), shared.size());
    return detail::await_text<M>(shared, rest_bytes_.data() + e.rest_offset, e.rest_length);
  }
  // The same, assembling the string into `out` (its capacity reused).
  template <execution_mode M>
  auto text_into(code_type code, const entry& e, std::string& out) const noexcept {
    const std::string_view shared = prefix(code / block_entries);
    if constexpr (M::suspends) prefetch_lines<M::hint>(shared.data(), shared.size());
    return detail::await_text_into<M>(shared, rest_bytes_.data() + e.rest_offset, e.rest_length, out);
  }
  // Given a lookup_context, the task's frame comes from its arena.
  template <execution_mode M, class... Context>
    requires(std::is_same_v<Context, lookup_context> && ...)
  task<std::string> extract_task(code_type code, Context&...) const {
    const entry& e = co_await entry_of<M>(code);
    co_return co_await text_of<M>(code, e);
  }

 private:
  [[nodiscard]] code_type first_code(std::size_t block_index) const noexcept {
    return static_cast<code_type>(block_index * block_entries);
  }
  [[nodiscard]] std::size_t block_size(std::size_t block_index) const noexcept {
    return std::min(block_entries, entries_.size() - first_code(block_index));
  }
  // <0, 0, >0 as the block's first string compares to key.
  [[nodiscard]] int compare_first(std::size_t block_index, std::string_view key) const noexcept {
    const std::string_view shared = prefix(block_index);
    const int on_prefix = shared.compare(key.substr(0, shared.size()));
    if (on_prefix != 0) return on_prefix;
    return rest(first_code(block_index)).compare(key.substr(shared.size()));
  }

  // The block's header (suspends); its first entry is prefetched alongside.
  template <execution_mode M>
  auto header_of(std::size_t block_index) const noexcept {
    if constexpr (M::suspends) prefetch<M::hint>(&entries_[first_code(block_index)]);
    return fetch<M>(&blocks_[block_index]);
  }
  // A code's rest alone (its entry's line already fetched): suspends on the rest.
  template <execution_mode M>
  auto rest_of(code_type code) const noexcept {
    const entry& e = entries_[code];
    return detail::await_text<M>({}, rest_bytes_.data() + e.rest_offset, e.rest_length);
  }
  template <execution_mode M>
  task<std::string> first_task(std::size_t block_index) const {
    (void)co_await header_of<M>(block_index);
    co_return co_await text_of<M>(first_code(block_index), entries_[first_code(block_index)]);
  }
  template <execution_mode M>
  task<std::string> rest_task(code_type code) const {
    co_return co_await rest_of<M>(code);
  }

  void add_block(std::span<const std::string_view> strings) {
    const std::string_view first = strings.front();
    const std::string_view last = strings.back();
    const std::size_t shared = static_cast<std::size_t>(std::mismatch(first.begin(), first.end(), last.begin(), last.end()).first - first.begin());
    blocks_.push_back({prefix_bytes_.size(), shared});
    text_bytes_ += shared;
    prefix_bytes_.insert(prefix_bytes_.end(), first.begin(), first.begin() + static_cast<std::ptrdiff_t>(shared));
    for (const std::string_view text : strings) {
      entries_.push_back({rest_bytes_.size(), text.size() - shared});
      text_bytes_ += text.size() - shared;
      rest_bytes_.insert(rest_bytes_.end(), text.begin() + static_cast<std::ptrdiff_t>(shared), text.end());
    }
  }

  std::vector<block> blocks_;
  std::vector<entry> entries_;
  std::vector<char> prefix_bytes_;
  std::vector<char> rest_bytes_;
  std::size_t text_bytes_ = 0;
};

}  // namespace braid
