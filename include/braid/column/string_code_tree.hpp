// string_code_tree<NodeBytes>: a read-only CSB+-tree over string codes — the sorted view of a
// VARCHAR Delta (the interleaving thesis §4.3.1 with text values: an unsorted dictionary whose
// code is the arrival position, and a CSB+-tree over the codes in text order, "where every
// comparison in a leaf reads dict[code]").
//
//   braid::code_texts texts{entries.data(), bytes.data(), entries.size()};  // code -> its text
//   braid::string_code_tree<> tree(codes_in_text_order, texts);              // bulk load
//   std::optional<std::uint32_t> code = tree.find("ada", texts);             // "locate"
//   braid::coro<std::optional<std::uint32_t>> l = tree.lookup<braid::interleaved>("ada", texts);
//
// The tree stores codes and node indices only, never a view or pointer into the texts: a
// copy or a move of it (and of the fragment that owns both) stays valid, and every lookup is
// handed the texts (code_texts: entries {offset, length} into a byte arena) it resolves codes
// through. Inner nodes and leaves are two vectors (so a copy is a plain vector copy).
//
// Layout (NodeBytes a multiple of the 64-byte line; the VARCHAR Delta uses 64):
//  - a leaf holds a count and up to leaf_capacity codes (15 per 64 bytes) in text order; each
//    probe of its binary search reads entries[code] and then the text: two dependent misses,
//    two suspensions in the coroutine forms (fetching only the lines of the text's first
//    min(length, key length) bytes: all a comparison with the key reads);
//  - an inner node holds, per separator, its code and an 8-byte big-endian window of its text
//    at the node's depth, plus the node's depth, key count and first child (its children are a
//    contiguous node group, CSB+'s single child reference); 4 separators per 64 bytes. The
//    depth is the longest common prefix of the node's range bounds (a level's first node starts
//    at the smallest text, its last ends at the largest), so every present text routed there
//    and every separator share those bytes, and the window compares the next 8: a strict window
//    comparison decides, only an equal window reads the separator's text (entry, then text).
//    Strings sharing long prefixes (URLs, zero-padded numbers) stay decided by windows. A key
//    outside [smallest, largest] may be routed anywhere: it is absent, and the leaf's final
//    equality test says so.
//  - Why not detail::csb_plus_tree_levels: its inner node keeps an array of copyable keys
//    without a depth, and its storage is a move-only arena; this tree reuses its even split.
//
// Measured against the sorted array of codes the Delta used before (a binary search reading
// the slot, the entry and the text per probe), present keys in random order, 64-byte nodes
// (128-byte ones measured no better), Clang 19 -O3, on 2 shared cores (times are noisy):
//                                     sorted array          string_code_tree
//   instructions per find (callgrind) d = 10^4: 792         571   (random 16-48-byte texts)
//                                     d = 10^5: 936 / 963   617 / 632 (those / "c11/0000012345/x..")
//   ns per find, plain                d = 10^4: 281         165
//                                     d = 10^6: 1,890-1,960 1,040-1,200
//   ns per find, coro, group 16       d = 10^6: 1,280-1,900 500-640 (coro_nested: 910-990)
// The inner windows keep most comparisons above the leaf off the texts; the leaf's probes are
// the remaining misses (two each), which the coroutine forms overlap.
//
// Invariants: the leaves list each code once, texts strictly increasing across the leaves in
// storage order; all leaves at depth levels() - 1; separator j of an inner node is the code of
// the smallest text under child j + 1, window j the window of that text at the node's depth
// (unused slots: all ones), depth <= the common prefix of the node's bounds; every node but
// the root at least half full.
//
// Complexity: bulk load O(n) comparisons plus the windows (O(n + total separator bytes));
// find O(levels) node lines, windows ties aside, plus log2(leaf_capacity) + 1 probes of two
// lines each (more for a text longer than a line). No inserts: rebuilt per batch.
// Lookups, all equal to find: lookup<M> (one coro<> frame: suspends on each node below the
// root, on each tied separator's entry and text, on each leaf probe's entry and text) and
// lookup_nested<M> (a child task per node and per probe: technique::coro_nested).
// Known limits: 2^32 - 1 codes and nodes; depth saturates at 2^32 - 1 bytes (still correct).
// Immutable once built: any number of readers, given texts that outlive their lookups.
#pragma once

#include <algorithm>
#include <bit>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "braid/column/string_dictionary.hpp"
#include "braid/core/coro.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/huge_page_allocator.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/prefetch.hpp"
#include "braid/core/task.hpp"
#include "braid/index/detail/csb_plus_tree_levels.hpp"

namespace braid {

namespace detail {

// Awaits the first `length` bytes' lines of a string, then views them (no copy).
template <class Load>
struct string_view_awaiter {
  Load load;
  std::size_t length;
  bool await_ready() noexcept { return load.await_ready(); }
  auto await_suspend(std::coroutine_handle<> h) noexcept { return load.await_suspend(h); }
  std::string_view await_resume() noexcept { return {&load.await_resume(), length}; }
};

// The 8 bytes of `text` from `depth` on, zero-padded, as a big-endian number: for strings that
// share their first `depth` bytes, a < b implies window(a) <= window(b), and unequal windows
// order the strings.
inline std::uint64_t text_window(std::string_view text, std::size_t depth) noexcept {
  if (text.size() <= depth) return 0;
  const std::size_t available = text.size() - depth;
  std::uint64_t window = 0;
  if (available >= sizeof window) {
    std::memcpy(&window, text.data() + depth, sizeof window);
  } else {
    unsigned char bytes[sizeof window] = {};
    for (std::size_t i = 0; i < available; ++i) bytes[i] = static_cast<unsigned char>(text[depth + i]);
    std::memcpy(&window, bytes, sizeof window);
  }
  if constexpr (std::endian::native == std::endian::little) window = __builtin_bswap64(window);
  return window;
}

inline std::size_t common_prefix(std::string_view a, std::string_view b) noexcept {
  return static_cast<std::size_t>(std::mismatch(a.begin(), a.end(), b.begin(), b.end()).first - a.begin());
}

}  // namespace detail

// What a string_code_tree resolves codes through: code c's text is entries[c] = {offset,
// length} into `bytes`, for c < count. Every offset must point inside `bytes` (an arena that
// ends with a padding byte gives an empty last text an address).
struct code_texts {
  using code_type = std::uint32_t;
  using entry = string_dictionary::entry;

  const entry* entries = nullptr;
  const char* bytes = nullptr;
  std::size_t count = 0;

  // Precondition: code < count.
  [[nodiscard]] std::string_view text(code_type code) const noexcept {
    return {bytes + entries[code].rest_offset, entries[code].rest_length};
  }
  // The code's entry (one suspension).
  template <execution_mode M>
  auto entry_of(code_type code) const noexcept {
    return fetch<M>(entries + code);
  }
  // The text of `e` as a view (one suspension); only the lines of its first `needed` bytes are
  // fetched: a comparison with a key of `needed` bytes reads no further.
  template <execution_mode M>
  auto text_of(const entry& e, std::size_t needed) const noexcept {
    const char* first = bytes + e.rest_offset;
    using load_type = decltype(fetch_lines<M>(first, std::size_t{1}));
    const std::size_t fetched = std::max<std::size_t>(std::min<std::size_t>(e.rest_length, needed), 1);
    return detail::string_view_awaiter<load_type>{fetch_lines<M>(first, fetched), e.rest_length};
  }
};

template <std::size_t NodeBytes = 64>
  requires(NodeBytes % cache_line_bytes == 0) && (NodeBytes > 0)
class string_code_tree {
 public:
  using code_type = std::uint32_t;
  using node_index = std::uint32_t;
  using result_type = std::optional<code_type>;
  using entry = string_dictionary::entry;

  static constexpr std::size_t node_bytes = NodeBytes;
  // Per separator: an 8-byte window and a 4-byte code; the header: first child, count, depth.
  static constexpr std::size_t inner_capacity = (NodeBytes - 3 * sizeof(std::uint32_t)) / (sizeof(std::uint64_t) + sizeof(code_type));
  static constexpr std::size_t leaf_capacity = (NodeBytes - sizeof(std::uint32_t)) / sizeof(code_type);
  static_assert(inner_capacity >= 2, "NodeBytes too small");

  struct alignas(cache_line_bytes) inner_node {
    std::uint64_t windows[inner_capacity];  // non-decreasing; unused slots: the largest window
    code_type codes[inner_capacity];        // separator j: smallest text under child j + 1
    node_index first_child;                 // children first_child .. first_child + key_count
    std::uint32_t key_count;
    std::uint32_t depth;                    // bytes every present text routed here shares
  };
  struct alignas(cache_line_bytes) leaf_node {
    std::uint32_t count;
    code_type codes[leaf_capacity];  // texts strictly increasing
  };
  static_assert(sizeof(inner_node) == NodeBytes && sizeof(leaf_node) == NodeBytes);

  string_code_tree() = default;

  // Bulk load over `sorted`, codes whose texts strictly increase. Throws std::invalid_argument
  // for a code out of texts' range, texts not strictly increasing, or 2^32 codes or more.
  // Large node arrays sit on pages of `pages` (huge_page_allocator).
  string_code_tree(std::span<const code_type> sorted, const code_texts& texts, page_size pages = page_size::huge_2m)
      : inner_(huge_page_allocator<inner_node>(pages)), leaves_(huge_page_allocator<leaf_node>(pages)) {
    if (sorted.size() >= std::numeric_limits<code_type>::max()) throw std::invalid_argument("string_code_tree: too many codes");
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      if (sorted[i] >= texts.count) throw std::invalid_argument("string_code_tree: code " + std::to_string(sorted[i]) + " out of range");
      if (i > 0 && !(texts.text(sorted[i - 1]) < texts.text(sorted[i]))) {
        throw std::invalid_argument("string_code_tree: texts not strictly increasing at position " + std::to_string(i));
      }
    }
    build(sorted, texts);
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  // Levels from the root to the leaves (1: the root is a leaf; 0: empty).
  [[nodiscard]] std::size_t levels() const noexcept { return levels_; }
  [[nodiscard]] std::size_t node_count() const noexcept { return inner_.size() + leaves_.size(); }
  [[nodiscard]] std::size_t memory_bytes() const noexcept {
    return inner_.capacity() * sizeof(inner_node) + leaves_.capacity() * sizeof(leaf_node);
  }

  // Every code, in text order.
  [[nodiscard]] std::vector<code_type> sorted_codes() const {
    std::vector<code_type> codes;
    codes.reserve(size_);
    for (const leaf_node& leaf : leaves_) codes.insert(codes.end(), leaf.codes, leaf.codes + leaf.count);
    return codes;
  }

  // ---- lookups: the code whose text is `key`, or std::nullopt --------------------------------
  [[nodiscard]] result_type find(std::string_view key, const code_texts& texts) const noexcept {
    if (levels_ == 0) return std::nullopt;
    node_index current = 0;
    for (std::size_t level = 1; level < levels_; ++level) {
      const inner_node& inner = inner_[current];
      const auto [slot, tied] = window_slots(inner, key);
      std::size_t first = slot;
      std::size_t count = tied;
      while (count > 0) {
        const std::size_t half = count / 2;
        const bool not_above = texts.text(inner.codes[first + half]) <= key;
        first = not_above ? first + half + 1 : first;
        count = not_above ? count - half - 1 : half;
      }
      current = inner.first_child + static_cast<node_index>(first);
    }
    const leaf_node& leaf = leaves_[current];
    const std::size_t at =
        detail::last_not_above(0, leaf.count, [&](std::size_t j) { return texts.text(leaf.codes[j]) <= key; });
    if (texts.text(leaf.codes[at]) != key) return std::nullopt;
    return leaf.codes[at];
  }

  // One frame; the root is read directly (it is always cached), every other node suspends once.
  template <execution_mode M>
  coro<result_type> lookup(std::string_view key, code_texts texts) const {
    if (levels_ == 0) co_return std::nullopt;
    node_index current = 0;
    if (levels_ > 1) {
      const inner_node* inner = inner_.data();
      for (std::size_t level = 1;; ++level) {
        const auto [slot, tied] = window_slots(*inner, key);
        std::size_t first = slot;
        std::size_t count = tied;
        while (count > 0) {  // separators whose window ties with the key's: their texts decide
          const std::size_t half = count / 2;
          const entry& e = co_await texts.template entry_of<M>(inner->codes[first + half]);
          const bool not_above = co_await texts.template text_of<M>(e, key.size()) <= key;
          first = not_above ? first + half + 1 : first;
          count = not_above ? count - half - 1 : half;
        }
        current = inner->first_child + static_cast<node_index>(first);
        if (level + 1 == levels_) break;
        inner = &co_await fetch_lines<M>(&inner_[current]);
      }
    }
    const leaf_node* leaf = leaves_.data();
    if (levels_ > 1) leaf = &co_await fetch_lines<M>(&leaves_[current]);
    const code_type* base = leaf->codes;
    std::size_t length = leaf->count;
    while (length > 1) {
      const std::size_t half = length / 2;
      const entry& e = co_await texts.template entry_of<M>(base[half]);
      base = co_await texts.template text_of<M>(e, key.size()) <= key ? base + half : base;
      length -= half;
    }
    const entry& e = co_await texts.template entry_of<M>(*base);
    if (co_await texts.template text_of<M>(e, key.size()) != key) co_return std::nullopt;
    co_return *base;
  }

  // The same search as nested calls: a child task per inner node (child_task, itself awaiting
  // a probe_task per tied separator), one for the leaf and one per leaf probe. Not inlined
  // (see sorted_array::lookup_nested: GCC 12's comdat placement of inlined coroutine actors).
  template <execution_mode M>
  [[gnu::noinline]] task<result_type> lookup_nested(std::string_view key, code_texts texts) const {
    if (levels_ == 0) co_return std::nullopt;
    node_index current = 0;
    for (std::size_t level = 1; level < levels_; ++level) current = co_await child_task<M>(current, key, texts);
    const leaf_node* leaf = leaves_.data();
    if (levels_ > 1) leaf = co_await leaf_task<M>(current);
    const code_type* base = leaf->codes;
    std::size_t length = leaf->count;
    while (length > 1) {
      const std::size_t half = length / 2;
      base = co_await probe_task<M>(base[half], key.size(), texts) <= key ? base + half : base;
      length -= half;
    }
    if (co_await probe_task<M>(*base, key.size(), texts) != key) co_return std::nullopt;
    co_return *base;
  }
  // The child of inner node `node` whose range holds key (the root read directly).
  template <execution_mode M>
  task<node_index> child_task(node_index node, std::string_view key, code_texts texts) const {
    const inner_node* inner = &inner_[node];
    if (node != 0) inner = &co_await fetch_lines<M>(inner);
    const auto [slot, tied] = window_slots(*inner, key);
    std::size_t first = slot;
    std::size_t count = tied;
    while (count > 0) {
      const std::size_t half = count / 2;
      const bool not_above = co_await probe_task<M>(inner->codes[first + half], key.size(), texts) <= key;
      first = not_above ? first + half + 1 : first;
      count = not_above ? count - half - 1 : half;
    }
    co_return inner->first_child + static_cast<node_index>(first);
  }
  template <execution_mode M>
  task<const leaf_node*> leaf_task(node_index leaf) const {
    co_return &co_await fetch_lines<M>(&leaves_[leaf]);
  }
  // A code's text: its entry, then the lines a comparison with a `needed`-byte key reads.
  template <execution_mode M>
  task<std::string_view> probe_task(code_type code, std::size_t needed, code_texts texts) const {
    const entry& e = co_await texts.template entry_of<M>(code);
    co_return co_await texts.template text_of<M>(e, needed);
  }

  // Throws std::logic_error naming the first broken invariant (texts: those it was built over).
  void check_invariants(const code_texts& texts) const {
    auto fail = [](const std::string& what) { throw std::logic_error("string_code_tree: " + what); };
    if (levels_ == 0) {
      if (size_ != 0 || !inner_.empty() || !leaves_.empty()) fail("empty tree with nodes");
      return;
    }
    auto text_of = [&](code_type code) {
      if (code >= texts.count) fail("code " + std::to_string(code) + " out of range");
      return texts.text(code);
    };
    // Each node's range [low, high) as codes (std::nullopt: unbounded), level by level.
    struct range {
      std::optional<code_type> low, high;
    };
    auto inside = [&](const range& r, std::string_view text) {
      return (!r.low || text_of(*r.low) <= text) && (!r.high || text < text_of(*r.high));
    };
    std::vector<range> ranges = {range{}};
    std::size_t level_begin = 0;
    for (std::size_t level = 1; level < levels_; ++level) {
      std::vector<range> next;
      std::size_t expected_child = level + 1 == levels_ ? 0 : level_begin + ranges.size();
      for (std::size_t i = 0; i < ranges.size(); ++i) {
        const inner_node& inner = inner_[level_begin + i];
        const range& around = ranges[i];
        if (inner.key_count == 0 || inner.key_count > inner_capacity) fail("inner key count out of range");
        if (level_begin + i != 0 && inner.key_count + 1 < (inner_capacity + 2) / 2) fail("inner node less than half full");
        if (inner.first_child != expected_child) fail("node group not contiguous with its neighbours");
        // Present texts routed here lie in [low, high), or from the smallest / up to the largest text.
        const std::string_view low = text_of(around.low.value_or(leaves_.front().codes[0]));
        const std::string_view high = text_of(around.high.value_or(leaves_.back().codes[leaves_.back().count - 1]));
        if (detail::common_prefix(low, high) < inner.depth) fail("depth beyond the common prefix of the node's bounds");
        for (std::size_t j = 0; j < inner.key_count; ++j) {
          const std::string_view separator = text_of(inner.codes[j]);
          if (j > 0 && !(text_of(inner.codes[j - 1]) < separator)) fail("separators not increasing");
          if (!inside(around, separator)) fail("separator outside its parent's range");
          if (inner.windows[j] != detail::text_window(separator, inner.depth)) fail("window not the separator's");
        }
        for (std::size_t j = inner.key_count; j < inner_capacity; ++j) {
          if (inner.windows[j] != unused_window) fail("unused window slot not the largest window");
        }
        for (std::size_t j = 0; j <= inner.key_count; ++j) {
          next.push_back({j == 0 ? around.low : std::optional<code_type>(inner.codes[j - 1]),
                          j == inner.key_count ? around.high : std::optional<code_type>(inner.codes[j])});
        }
        expected_child += inner.key_count + 1;
      }
      level_begin += ranges.size();
      ranges = std::move(next);
    }
    if (level_begin != inner_.size() || ranges.size() != leaves_.size()) fail("leaf level not where expected");
    std::size_t entries = 0;
    std::optional<std::string_view> previous;
    for (std::size_t index = 0; index < leaves_.size(); ++index) {
      const leaf_node& leaf = leaves_[index];
      if (leaf.count == 0 || leaf.count > leaf_capacity) fail("leaf count out of range");
      if (levels_ > 1 && leaf.count < (leaf_capacity + 1) / 2) fail("leaf less than half full");
      for (std::size_t j = 0; j < leaf.count; ++j, ++entries) {
        const std::string_view text = text_of(leaf.codes[j]);
        if (previous && !(*previous < text)) fail("leaf texts not strictly increasing");
        if (!inside(ranges[index], text)) fail("leaf text outside its parent's range");
        previous = text;
      }
    }
    if (entries != size_) fail("leaves hold " + std::to_string(entries) + " codes, size() is " + std::to_string(size_));
  }

 private:
  using split = detail::csb_plus_tree_levels<code_type, NodeBytes>;
  static constexpr std::uint64_t unused_window = std::numeric_limits<std::uint64_t>::max();

  // {separators whose window is below the key's, separators whose window equals it}: counted
  // without branches over the whole node (unused slots hold the largest window, so they are
  // never below; min() keeps them out of the tied ones); windows are non-decreasing, so the
  // tied separators follow the ones below.
  static std::pair<std::size_t, std::size_t> window_slots(const inner_node& inner, std::string_view key) noexcept {
    const std::uint64_t window = detail::text_window(key, inner.depth);
    std::size_t below = 0;
    for (std::size_t j = 0; j < inner_capacity; ++j) below += static_cast<std::size_t>(inner.windows[j] < window);
    std::size_t not_above = 0;
    for (std::size_t j = 0; j < inner_capacity; ++j) not_above += static_cast<std::size_t>(inner.windows[j] <= window);
    return {below, std::min<std::size_t>(not_above, inner.key_count) - below};
  }

  void build(std::span<const code_type> sorted, const code_texts& texts) {
    const std::size_t n = sorted.size();
    if (n == 0) return;
    std::vector<std::size_t> level_sizes = {(n + leaf_capacity - 1) / leaf_capacity};  // leaves first
    while (level_sizes.back() > 1) level_sizes.push_back((level_sizes.back() + inner_capacity) / (inner_capacity + 1));
    std::size_t inner_count = 0;
    for (std::size_t i = 1; i < level_sizes.size(); ++i) inner_count += level_sizes[i];
    if (inner_count + level_sizes[0] > std::numeric_limits<node_index>::max()) throw std::invalid_argument("string_code_tree: too many nodes");
    leaves_.resize(level_sizes[0]);
    inner_.resize(inner_count);
    std::vector<code_type> smallest(leaves_.size());  // the smallest code under each node of a level
    for (std::size_t leaf = 0; leaf < leaves_.size(); ++leaf) {
      const std::size_t begin = split::even_split(n, leaves_.size(), leaf);
      const std::size_t end = split::even_split(n, leaves_.size(), leaf + 1);
      leaves_[leaf].count = static_cast<std::uint32_t>(end - begin);
      std::copy(sorted.begin() + static_cast<std::ptrdiff_t>(begin), sorted.begin() + static_cast<std::ptrdiff_t>(end), leaves_[leaf].codes);
      smallest[leaf] = sorted[begin];
    }
    // Inner levels bottom-up; inner_ holds them root first, so a level starts after the ones above.
    // A node's texts lie in [its smallest, the next node's smallest), the last node's up to the
    // largest text: its depth is the common prefix of those two.
    const std::string_view largest = texts.text(sorted.back());
    std::size_t level_end = inner_count;
    std::size_t children_offset = 0;  // where the level below starts in its vector
    for (std::size_t level = 1; level < level_sizes.size(); ++level) {
      const std::size_t count = level_sizes[level];
      const std::size_t children = level_sizes[level - 1];
      const std::size_t level_begin = level_end - count;
      std::vector<code_type> level_smallest(count);
      for (std::size_t i = 0; i < count; ++i) {
        const std::size_t begin = split::even_split(children, count, i);
        const std::size_t end = split::even_split(children, count, i + 1);
        inner_node& node = inner_[level_begin + i];
        node.first_child = static_cast<node_index>(children_offset + begin);
        node.key_count = static_cast<std::uint32_t>(end - begin - 1);
        std::fill_n(node.windows, inner_capacity, unused_window);
        const std::string_view high = i + 1 < count ? texts.text(smallest[end]) : largest;
        node.depth = static_cast<std::uint32_t>(std::min<std::size_t>(detail::common_prefix(texts.text(smallest[begin]), high),
                                                                      std::numeric_limits<std::uint32_t>::max()));
        for (std::size_t child = begin + 1; child < end; ++child) {
          node.codes[child - begin - 1] = smallest[child];
          node.windows[child - begin - 1] = detail::text_window(texts.text(smallest[child]), node.depth);
        }
        level_smallest[i] = smallest[begin];
      }
      smallest = std::move(level_smallest);
      children_offset = level_begin;
      level_end = level_begin;
    }
    levels_ = level_sizes.size();
    size_ = n;
  }

  std::vector<inner_node, huge_page_allocator<inner_node>> inner_;  // root first, level by level, each level in text order
  std::vector<leaf_node, huge_page_allocator<leaf_node>> leaves_;    // in text order
  std::size_t levels_ = 0;
  std::size_t size_ = 0;
};

}  // namespace braid
