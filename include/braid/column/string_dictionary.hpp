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
// probe: the mechanical conversion), the hand-written comparators find_group_prefetching<H>
// (a group's searches in lock step over the blocks, then round by round within their blocks
// until the last one settles) and find_amac<H> (a ring of state machines, one stage per
// prefetch), and multi_find with naive, gp, amac, coro, coro_nested or adaptive (no fiber or
// IMLP form: asking for one throws std::invalid_argument). gp and amac prefetch what lookup<M>
// suspends on, in the same order: each probed block's header with its first entry, then that
// string's prefix and rest; the chosen block's header and first string again (the check that
// the key can be in it); the chosen block's entries (four lines); each probed rest. Two
// differences, both of stages and not of lines: the entries' prefetch gets a stage of its own
// before the first entry inside the block is read (lookup<M> reads it at once), and the final
// equality test reads its candidate's rest without a stage (this lookup has just read it: the
// block's first string at the check, or the last probe that moved onto it). Their comparisons
// read the bytes in place (lookup<M> assembles each probed string). The keys of an interleaved
// lookup are views: they must outlive it.
//
// Complexity: construction O(total bytes); find O(log(d / 16) + log 16) string comparisons,
// the same per key in every multi_find technique (gp and amac: a group's state from the frame
// pool, no allocation per key); extract O(length). Invariants: strings strictly ascending; a
// block's prefix is the longest common prefix of its first and last strings; both byte arrays
// end in one padding byte, so the address of an empty rest is inside the array. Immutable once
// built: any number of readers. Known limits: at most 2^32 - 1 strings; the byte arrays hold
// the strings' total length.
#pragma once

#include <algorithm>
#include <compare>
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
#include "braid/core/huge_page_allocator.hpp"
#include "braid/core/lookup_context.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/prefetch.hpp"
#include "braid/core/task.hpp"
#include "braid/index/detail/batch_arguments.hpp"
#include "braid/index/detail/lookup_techniques.hpp"
#include "braid/index/detail/multi_find.hpp"

namespace braid {

namespace detail {

// Awaits the rest of a string (all its lines fetched once), then returns prefix + rest.
// A dictionary string as it is stored: a prefix shared by its block, then its own rest. It
// compares with a whole text in byte order, as std::string_view does, without assembling one.
struct text_parts {
  std::string_view prefix;
  std::string_view rest;

  friend std::strong_ordering operator<=>(const text_parts& text, std::string_view key) noexcept {
    const std::size_t head = std::min(text.prefix.size(), key.size());
    if (const int order = text.prefix.substr(0, head).compare(key.substr(0, head)); order != 0) return order <=> 0;
    if (key.size() < text.prefix.size()) return std::strong_ordering::greater;  // key ends inside the prefix
    return text.rest.compare(key.substr(text.prefix.size())) <=> 0;
  }
  friend bool operator==(const text_parts& text, std::string_view key) noexcept {
    return text.prefix.size() + text.rest.size() == key.size() && key.starts_with(text.prefix) &&
           key.substr(text.prefix.size()) == text.rest;
  }
};

// What awaiting a stored string gives: the text as a new std::string, its parts (views into
// the dictionary: for comparisons, no allocation), or nothing, the text assembled into a
// caller's string (its capacity reused).
enum class text_result { string, parts, into };

template <class Load, text_result Result>
struct text_awaiter {
  Load load;
  std::string_view prefix;
  std::size_t rest_length;
  std::string* into = nullptr;
  bool await_ready() noexcept { return load.await_ready(); }
  auto await_suspend(std::coroutine_handle<> h) noexcept { return load.await_suspend(h); }
  auto await_resume() {
    const char& rest = load.await_resume();
    if constexpr (Result == text_result::into) {
      into->assign(prefix).append(&rest, rest_length);
    } else if constexpr (Result == text_result::parts) {
      return text_parts{prefix, std::string_view(&rest, rest_length)};
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

// The awaiter for `rest_length` bytes at `rest`, after `prefix`: all the rest's lines fetched
// once, then the text as Result says (`out` for text_result::into).
template <execution_mode M, text_result Result = text_result::string>
auto await_text(std::string_view prefix, const char* rest, std::size_t rest_length, std::string* out = nullptr) noexcept {
  using load_type = decltype(fetch_lines<M>(rest, std::size_t{1}));
  return text_awaiter<load_type, Result>{fetch_lines<M>(rest, std::max<std::size_t>(rest_length, 1)), prefix, rest_length, out};
}
// The same, assembling the text into `out`.
template <execution_mode M>
auto await_text_into(std::string_view prefix, const char* rest, std::size_t rest_length, std::string& out) noexcept {
  return await_text<M, text_result::into>(prefix, rest, rest_length, &out);
}

}  // namespace detail

class string_dictionary
    : public detail::multi_find_member<string_dictionary, std::string_view, std::optional<std::uint32_t>> {
 public:
  using text_parts = detail::text_parts;
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
  // strings. Large arrays sit on pages of `pages` (huge_page_allocator).
  explicit string_dictionary(std::span<const std::string_view> sorted, page_size pages = page_size::huge_2m)
      : blocks_(huge_page_allocator<block>(pages)),
        entries_(huge_page_allocator<entry>(pages)),
        prefix_bytes_(huge_page_allocator<char>(pages)),
        rest_bytes_(huge_page_allocator<char>(pages)) {
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

  // Not inlined, as lookup_nested below: GCC 12 otherwise places the actor of the chained
  // instantiation in the comdat group of the chained_scheduler loop it was inlined into, and
  // braid-bench failed to link against the library's copy.
  template <execution_mode M>
  [[gnu::noinline]] coro<result_type> lookup(std::string_view key) const {
    if (blocks_.empty()) co_return std::nullopt;
    std::size_t low = 0;
    std::size_t remaining = blocks_.size();
    while (remaining > 1) {
      const std::size_t half = remaining / 2;
      (void)co_await header_of<M>(low + half);
      const code_type probed = first_code(low + half);
      low = co_await parts_of<M>(probed, entries_[probed]) <= key ? low + half : low;
      remaining -= half;
    }
    (void)co_await header_of<M>(low);
    if (key < co_await parts_of<M>(first_code(low), entries_[first_code(low)]) || !key.starts_with(prefix(low))) co_return std::nullopt;
    const std::string_view key_rest = key.substr(prefix(low).size());
    if constexpr (M::suspends) prefetch_lines<M::hint>(&entries_[first_code(low)], block_size(low) * sizeof(entry));
    code_type code = first_code(low);
    std::size_t count = block_size(low);
    while (count > 1) {
      const std::size_t half = count / 2;
      const text_parts probed = co_await rest_of<M>(static_cast<code_type>(code + half));
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

  // Group prefetching: each group of `group` keys runs lookup<M>'s search in lock step, a
  // pass per prefetch point and a pass comparing. Over the blocks every search takes the same
  // number of rounds (it depends on block_count() only); within the chosen blocks, rounds run
  // while any search has a range left (only the last block may be shorter than 16).
  template <prefetch_hint Hint>
  void find_group_prefetching(std::span<const std::string_view> keys, std::span<result_type> out, std::size_t group) const {
    detail::check_batch_arguments(keys.size(), out.size(), group, "string_dictionary::find_group_prefetching");
    if (blocks_.empty()) {
      std::fill_n(out.begin(), keys.size(), std::nullopt);
      return;
    }
    detail::scratch_array<search> searches(std::min(group, keys.size()));
    for (std::size_t first = 0; first < keys.size(); first += group) {
      const std::size_t members = std::min(group, keys.size() - first);
      for (std::size_t i = 0; i < members; ++i) searches[i] = search{keys[first + i], 0, {}, 0, 0};
      for (std::size_t remaining = blocks_.size(); remaining > 1;) {  // one block-level probe per round
        const std::size_t half = remaining / 2;
        for (std::size_t i = 0; i < members; ++i) prefetch_header<Hint>(searches[i].low + half);
        for (std::size_t i = 0; i < members; ++i) prefetch_first_text<Hint>(searches[i].low + half);
        for (std::size_t i = 0; i < members; ++i) step_over_block(searches[i], half);
        remaining -= half;
      }
      for (std::size_t i = 0; i < members; ++i) prefetch_header<Hint>(searches[i].low);
      for (std::size_t i = 0; i < members; ++i) prefetch_first_text<Hint>(searches[i].low);
      for (std::size_t i = 0; i < members; ++i) {
        if (enter_block(searches[i]) && searches[i].count > 1) prefetch_entries<Hint>(searches[i].low);
      }
      while (true) {  // one probe inside the block per round, for the searches with a range left
        bool probing = false;
        for (std::size_t i = 0; i < members; ++i) {
          if (searches[i].count > 1) {
            prefetch_rest<Hint>(searches[i].code + searches[i].count / 2);
            probing = true;
          }
        }
        if (!probing) break;
        for (std::size_t i = 0; i < members; ++i) {
          if (searches[i].count > 1) step_in_block(searches[i]);
        }
      }
      for (std::size_t i = 0; i < members; ++i) out[first + i] = result_of(searches[i]);
    }
  }

  // AMAC: a ring of `group` state machines; each stage prefetches what the next one reads.
  template <prefetch_hint Hint>
  void find_amac(std::span<const std::string_view> keys, std::span<result_type> out, std::size_t group) const {
    detail::check_batch_arguments(keys.size(), out.size(), group, "string_dictionary::find_amac");
    // Prefetches the next block-level probe, or the chosen block's header once one block is left.
    auto next_block_probe = [this](machine& m) {
      if (m.remaining > 1) {
        prefetch_header<Hint>(m.s.low + m.remaining / 2);
        m.at = stage::probe_header;
      } else {
        prefetch_header<Hint>(m.s.low);
        m.at = stage::chosen_header;
      }
    };
    detail::run_state_machines<machine>(
        keys.size(), group,
        [&](machine& m, std::size_t index) {
          if (blocks_.empty()) {
            out[index] = std::nullopt;
            return false;
          }
          m = machine{search{keys[index], 0, {}, 0, 0}, index, blocks_.size(), stage::probe_header};
          next_block_probe(m);
          return true;
        },
        [&](machine& m) {
          switch (m.at) {
            case stage::probe_header:
              prefetch_first_text<Hint>(m.s.low + m.remaining / 2);
              m.at = stage::probe_first_text;
              return true;
            case stage::probe_first_text: {
              const std::size_t half = m.remaining / 2;
              step_over_block(m.s, half);
              m.remaining -= half;
              next_block_probe(m);
              return true;
            }
            case stage::chosen_header:
              prefetch_first_text<Hint>(m.s.low);
              m.at = stage::chosen_first_text;
              return true;
            case stage::chosen_first_text:
              if (enter_block(m.s) && m.s.count > 1) {
                prefetch_entries<Hint>(m.s.low);
                m.at = stage::entries;
                return true;
              }
              break;
            case stage::entries:
              prefetch_rest<Hint>(m.s.code + m.s.count / 2);
              m.at = stage::probe_rest;
              return true;
            case stage::probe_rest:
              step_in_block(m.s);
              if (m.s.count > 1) {
                prefetch_rest<Hint>(m.s.code + m.s.count / 2);
                return true;
              }
              break;
          }
          out[m.index] = result_of(m.s);
          return false;
        });
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
  // The same as the string's parts (views into this dictionary), for comparisons.
  template <execution_mode M>
  auto parts_of(code_type code, const entry& e) const noexcept {
    const std::string_view shared = prefix(code / block_entries);
    if constexpr (M::suspends) prefetch_lines<M::hint>(shared.data(), shared.size());
    return detail::await_text<M, detail::text_result::parts>(shared, rest_bytes_.data() + e.rest_offset, e.rest_length);
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

  // ---- the hand-written comparators' search: find()'s steps, one at a time ----------------------
  // One key's search. Over the blocks: `low` the last block whose first string is known not
  // above the key (0 to begin with). Inside the chosen block (count >= 1): [code, code + count)
  // holds the last code whose rest is not above key_rest; count 0 once the key is known absent.
  struct search {
    std::string_view key;
    std::size_t low = 0;
    std::string_view key_rest;
    std::size_t code = 0;
    std::size_t count = 0;
  };
  enum class stage : std::uint8_t { probe_header, probe_first_text, chosen_header, chosen_first_text, entries, probe_rest };
  struct machine {
    search s;
    std::size_t index = 0;
    std::size_t remaining = 0;  // blocks in the binary search's range
    stage at = stage::probe_header;
  };

  // The block probe low + half: its first string not above the key moves low there.
  void step_over_block(search& s, std::size_t half) const noexcept {
    s.low = compare_first(s.low + half, s.key) <= 0 ? s.low + half : s.low;
  }
  // The check of the chosen block (find's): false, count 0, when the key cannot be in it.
  bool enter_block(search& s) const noexcept {
    if (compare_first(s.low, s.key) > 0 || !s.key.starts_with(prefix(s.low))) return false;
    s.key_rest = s.key.substr(prefix(s.low).size());
    s.code = first_code(s.low);
    s.count = block_size(s.low);
    return true;
  }
  // One probe inside the block. Precondition: count > 1.
  void step_in_block(search& s) const noexcept {
    const std::size_t half = s.count / 2;
    s.code = rest(static_cast<code_type>(s.code + half)) <= s.key_rest ? s.code + half : s.code;
    s.count -= half;
  }
  [[nodiscard]] result_type result_of(const search& s) const noexcept {
    if (s.count == 0 || rest(static_cast<code_type>(s.code)) != s.key_rest) return std::nullopt;
    return static_cast<code_type>(s.code);
  }

  // lookup<M>'s prefetch points, as plain prefetches: the block's header with its first entry;
  // then (both read) the first string's prefix and rest; the block's entries; a code's rest
  // (its entry read).
  template <prefetch_hint Hint>
  void prefetch_header(std::size_t block_index) const noexcept {
    prefetch<Hint>(&entries_[first_code(block_index)]);
    prefetch<Hint>(&blocks_[block_index]);
  }
  template <prefetch_hint Hint>
  void prefetch_first_text(std::size_t block_index) const noexcept {
    const std::string_view shared = prefix(block_index);
    prefetch_lines<Hint>(shared.data(), shared.size());
    prefetch_rest<Hint>(first_code(block_index));
  }
  template <prefetch_hint Hint>
  void prefetch_entries(std::size_t block_index) const noexcept {
    prefetch_lines<Hint>(&entries_[first_code(block_index)], block_size(block_index) * sizeof(entry));
  }
  template <prefetch_hint Hint>
  void prefetch_rest(std::size_t code) const noexcept {
    const entry& e = entries_[code];
    prefetch_lines<Hint>(rest_bytes_.data() + e.rest_offset, std::max<std::size_t>(e.rest_length, 1));
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
    return detail::await_text<M, detail::text_result::parts>({}, rest_bytes_.data() + e.rest_offset, e.rest_length);
  }
  template <execution_mode M>
  task<text_parts> first_task(std::size_t block_index) const {
    (void)co_await header_of<M>(block_index);
    co_return co_await parts_of<M>(first_code(block_index), entries_[first_code(block_index)]);
  }
  template <execution_mode M>
  task<text_parts> rest_task(code_type code) const {
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

  template <class T>
  using array = std::vector<T, huge_page_allocator<T>>;
  array<block> blocks_;
  array<entry> entries_;
  array<char> prefix_bytes_;
  array<char> rest_bytes_;
  std::size_t text_bytes_ = 0;
};

}  // namespace braid
