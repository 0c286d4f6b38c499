// csb_plus_tree<Key, Value, NodeBytes>: a read-only cache-sensitive B+-tree (Rao & Ross,
// SIGMOD 2000), bulk-loaded from sorted pairs: the tree of the interleaving thesis
// (Psaropoulos et al., Listing 3.2; the index-join and Delta-dictionary experiments).
//
//   braid::csb_plus_tree<std::uint64_t, std::uint64_t> tree(sorted_keys, values);
//   tree.find(42);
//   tree.multi_find(lookups, results, braid::technique::coro, 8);
//
// Layout. Every node is NodeBytes (a multiple of the 64-byte cache line) and aligned to a line.
// An inner node holds a key count, up to inner_capacity separator keys and ONE child
// reference: its children form a node group, contiguous in memory, so child j is
// `first_child + j` (CSB+'s trick that leaves room for keys instead of pointers; with 64-byte
// nodes and 64-bit keys, 7 keys and 8 children per node). A leaf holds up to leaf_capacity
// (key, value) pairs, keys first. Nodes are stored level by level (root first) in one
// contiguous block from a node arena on huge pages; each level is in key order, so the
// children of consecutive inner nodes are consecutive and every node group is contiguous.
//
// Invariants:
//  - keys are strictly increasing across the leaves in storage order; all leaves are at the
//    same depth (levels() - 1 below the root);
//  - inner separator j is the smallest key under child j + 1; child j holds the keys k with
//    separator j-1 <= k < separator j;
//  - the bulk load spreads entries and children evenly, so every node except the root is at
//    least half full.
//
// Complexity: find O(levels * NodeBytes / 64) lines; bulk load O(n). No inserts or erases:
// a CSB+-tree is rebuilt (CSB+ is meant for read-mostly data; braid's updatable ordered index
// is bplus_tree).
//
// Lookups, all returning exactly what find(key) returns:
//   find(key)                   plain descent, the root read directly (it is always cached)
//   lookup<M>(key)              coro<>: one suspension per node below the root; a multi-line
//                               node is prefetched whole (fetch_lines) before the suspension
//   find_on_fiber<Hint>         the stackful comparator
//   find_group_prefetching, find_amac   the hand-written comparators of the thesis
//   multi_find(keys, out, technique, group)
//   scan(start, limit, visit)   plain range scan along the (contiguous) leaves
//
// Thread-safe for any number of readers (the tree never changes after construction).
//
// csb_plus_tree_over_codes, below, is the thesis's Delta variant: the same inner levels over a
// dictionary, with leaves of codes and one more suspension per comparison in a leaf; it also
// has lookup_nested<M> (a child task per node and per probe: technique::coro_nested).
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "braid/core/coro.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/task.hpp"
#include "braid/core/fiber.hpp"
#include "braid/core/input_stream.hpp"
#include "braid/core/huge_buffer.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/prefetch.hpp"
#include "braid/core/radix_sort.hpp"
#include "braid/index/detail/build_arguments.hpp"
#include "braid/index/detail/csb_plus_tree_levels.hpp"
#include "braid/index/detail/loads.hpp"
#include "braid/index/detail/multi_find.hpp"
#include "braid/index/detail/ordered_node_arena.hpp"
#include "braid/index/technique.hpp"

namespace braid {

template <std::totally_ordered Key = std::uint64_t, class Value = std::uint64_t, std::size_t NodeBytes = 64>
  requires std::is_trivially_copyable_v<Key> && std::is_trivially_copyable_v<Value> &&
           (NodeBytes % cache_line_bytes == 0) && (NodeBytes > 0)
class csb_plus_tree : public detail::multi_find_member<csb_plus_tree<Key, Value, NodeBytes>, Key, std::optional<Value>> {
 public:
  using key_type = Key;
  using mapped_type = Value;
  static constexpr prefetch_hint default_prefetch_hint = prefetch_hint::t0;  // nodes are reused: every level
  static constexpr const char* structure_name = "csb_plus_tree";

 private:
  using levels_type = detail::csb_plus_tree_levels<Key, NodeBytes>;

 public:
  using node_index = typename levels_type::node_index;
  using inner_node = typename levels_type::inner_node;

  static constexpr std::size_t node_bytes = NodeBytes;
  static constexpr std::size_t inner_capacity = levels_type::inner_capacity;  // separator keys
  static constexpr std::size_t leaf_capacity = (NodeBytes - levels_type::header_bytes) / (sizeof(Key) + sizeof(Value));
  static_assert(leaf_capacity >= 2, "NodeBytes too small for these key and value types");

  struct alignas(cache_line_bytes) leaf_node {
    node_index count;
    node_index unused;
    Key keys[leaf_capacity];
    Value values[leaf_capacity];
  };
  static_assert(sizeof(leaf_node) == NodeBytes);

  explicit csb_plus_tree(page_size pages = page_size::huge_2m) : tree_(pages) {}

  // Bulk load. Throws std::invalid_argument unless keys are strictly increasing and as many as
  // values, or if the tree would need more than 2^32 nodes.
  csb_plus_tree(std::span<const Key> sorted_keys, std::span<const Value> values, page_size pages = page_size::huge_2m)
      : tree_(pages) {
    detail::check_same_length(sorted_keys.size(), values.size(), "csb_plus_tree");
    detail::check_strictly_increasing(sorted_keys, "csb_plus_tree");
    bulk_load(sorted_keys, values);
  }

  [[nodiscard]] std::size_t size() const noexcept { return tree_.size; }
  [[nodiscard]] bool empty() const noexcept { return tree_.size == 0; }
  // Levels from the root to the leaves (1: the root is a leaf; 0: empty tree).
  [[nodiscard]] std::size_t levels() const noexcept { return tree_.levels; }
  [[nodiscard]] std::size_t node_count() const noexcept { return tree_.node_count; }
  [[nodiscard]] std::size_t memory_bytes() const noexcept { return tree_.arena.reserved_bytes(); }
  [[nodiscard]] std::string describe_pages() const { return tree_.arena.describe_pages(); }

  // ---- lookups ------------------------------------------------------------------------------

  [[nodiscard]] std::optional<Value> find(const Key& key) const { return descend(key, detail::plain_load{}); }
  [[nodiscard]] bool contains(const Key& key) const { return find(key).has_value(); }

  template <execution_mode M, class Inputs>
  stream_coro<Inputs> lookups(Inputs inputs) const {
    while (const auto input = inputs.next()) {
      const Key& key = input.key;
      if (tree_.levels == 0) {
        inputs.deliver(input, std::nullopt);
      } else if (tree_.levels == 1) {
        inputs.deliver(input, search_leaf(*leaf_at(0), key));  // the root leaf: always cached
      } else {
        node_index current = child_for(*inner_at(0), key);  // the root: always cached, read directly
        for (std::size_t level = 2; level < tree_.levels; ++level) {
          const inner_node& inner = co_await fetch_lines<M>(inner_at(current));
          current = child_for(inner, key);
        }
        const leaf_node& leaf = co_await fetch_lines<M>(leaf_at(current));
        inputs.deliver(input, search_leaf(leaf, key));
      }
    }
    co_return inputs.finish();
  }

  template <execution_mode M>
  coro<std::optional<Value>> lookup(Key key) const {
    return lookups<M>(single_input<Key, std::optional<Value>>(key));
  }

  template <prefetch_hint Hint = default_prefetch_hint>
  [[nodiscard]] std::optional<Value> find_on_fiber(fiber_context& context, const Key& key) const {
    return descend(key, detail::fiber_load<Hint>{&context});
  }

  // Group prefetching: every lookup descends the same number of levels, so a group moves in
  // lock step, one level per stage, with no idle slots (the thesis's GP).
  template <prefetch_hint Hint = default_prefetch_hint>
  void find_group_prefetching(std::span<const Key> keys, std::span<std::optional<Value>> out, std::size_t group) const {
    if (answered_without_descent(keys, out, group, "csb_plus_tree::find_group_prefetching")) return;
    std::vector<node_index> cursor(std::min(group, keys.size()));
    for (std::size_t base = 0; base < keys.size(); base += group) {
      const std::size_t width = std::min(group, keys.size() - base);
      // Stage 1: the root (cached) names every lookup's child, which is prefetched.
      // Stages 2 ..: each lookup reads its prefetched node and prefetches the next.
      std::fill_n(cursor.begin(), width, node_index{0});
      for (std::size_t level = 1; level < tree_.levels; ++level) {
        for (std::size_t i = 0; i < width; ++i) {
          cursor[i] = child_for(*inner_at(cursor[i]), keys[base + i]);
          prefetch_lines<NodeBytes, Hint>(node_at(cursor[i]));
        }
      }
      for (std::size_t i = 0; i < width; ++i) out[base + i] = search_leaf(*leaf_at(cursor[i]), keys[base + i]);
    }
  }

  // AMAC: a ring of `group` state machines (node, depth, input), visited round-robin; a finished
  // lookup's slot takes the next key at once and reads the cached root right away.
  template <prefetch_hint Hint = default_prefetch_hint>
  void find_amac(std::span<const Key> keys, std::span<std::optional<Value>> out, std::size_t group) const {
    if (answered_without_descent(keys, out, group, "csb_plus_tree::find_amac")) return;
    struct slot {
      node_index node;     // prefetched (or the root), not yet examined
      std::uint32_t depth; // of `node`, the root at 0
      std::size_t input;   // or `idle`
    };
    constexpr std::size_t idle = static_cast<std::size_t>(-1);
    std::vector<slot> ring(std::min(group, keys.size()));
    std::size_t next_input = 0;
    for (slot& s : ring) s = {0, 0, next_input++};
    std::size_t active = ring.size();
    const auto leaf_depth = static_cast<std::uint32_t>(tree_.levels - 1);
    while (active > 0) {
      for (slot& s : ring) {
        // Examine this slot's node; the root is cached, so a fresh lookup runs on past it.
        while (s.input != idle) {
          const Key& key = keys[s.input];
          if (s.depth < leaf_depth) {
            s.node = child_for(*inner_at(s.node), key);
            ++s.depth;
            prefetch_lines<NodeBytes, Hint>(node_at(s.node));
            break;
          }
          out[s.input] = search_leaf(*leaf_at(s.node), key);
          if (next_input < keys.size()) {
            s = {0, 0, next_input++};
            if (leaf_depth == 0) continue;  // the root is the leaf: answer it now
            s.node = child_for(*inner_at(0), keys[s.input]);
            s.depth = 1;
            prefetch_lines<NodeBytes, Hint>(node_at(s.node));
          } else {
            s.input = idle;
            --active;
          }
          break;
        }
      }
    }
  }

  // ---- scans --------------------------------------------------------------------------------

  // Calls visit(key, value) for up to `limit` entries with key >= start, in key order; returns
  // how many it visited.
  template <class Visitor>
  std::size_t scan(const Key& start, std::size_t limit, Visitor&& visit) const {
    if (tree_.levels == 0 || limit == 0) return 0;
    node_index current = 0;
    for (std::size_t level = 1; level < tree_.levels; ++level) current = child_for(*inner_at(current), start);
    std::size_t position = lower_bound_in_leaf(*leaf_at(current), start);
    std::size_t visited = 0;
    for (; current < tree_.node_count; ++current, position = 0) {  // leaves are contiguous, in key order
      const leaf_node& leaf = *leaf_at(current);
      for (; position < leaf.count; ++position) {
        visit(leaf.keys[position], leaf.values[position]);
        if (++visited == limit) return visited;
      }
    }
    return visited;
  }

  // Throws std::logic_error naming the first broken invariant.
  void check_invariants() const {
    auto fail = [](const std::string& what) { throw std::logic_error("csb_plus_tree: " + what); };
    if (tree_.levels == 0) {
      if (tree_.size != 0 || tree_.node_count != 0) fail("empty tree with nodes");
      return;
    }
    const std::size_t counted = tree_.template check_nodes<leaf_node>(
        leaf_capacity, "key", [](const leaf_node& leaf, std::size_t j) -> const Key& { return leaf.keys[j]; }, fail);
    if (counted != tree_.size) fail("leaves hold " + std::to_string(counted) + " entries, size() is " + std::to_string(tree_.size));
  }

 private:
  using raw_node = typename levels_type::raw_node;

  [[nodiscard]] const raw_node* node_at(node_index index) const noexcept { return tree_.nodes + index; }
  [[nodiscard]] const inner_node* inner_at(node_index index) const noexcept { return tree_.template at<inner_node>(index); }
  [[nodiscard]] const leaf_node* leaf_at(node_index index) const noexcept { return tree_.template at<leaf_node>(index); }

  [[gnu::always_inline]] static node_index child_for(const inner_node& inner, const Key& key) noexcept {
    return levels_type::child_for(inner, key);
  }

  // The argument checks of a batch lookup; true if the tree is empty: every result is absent.
  bool answered_without_descent(std::span<const Key> keys, std::span<std::optional<Value>> out, std::size_t group,
                                const char* entry) const {
    detail::check_batch_arguments(keys.size(), out.size(), group, entry);
    if (tree_.levels != 0) return false;
    std::fill_n(out.begin(), keys.size(), std::nullopt);
    return true;
  }

  [[gnu::always_inline]] static std::size_t lower_bound_in_leaf(const leaf_node& leaf, const Key& key) noexcept {
    std::size_t position = 0;
    for (std::size_t j = 0; j < leaf_capacity; ++j) position += static_cast<std::size_t>((j < leaf.count) & (leaf.keys[j] < key));
    return position;
  }

  static std::optional<Value> search_leaf(const leaf_node& leaf, const Key& key) noexcept {
    const std::size_t position = lower_bound_in_leaf(leaf, key);
    if (position < leaf.count && leaf.keys[position] == key) return leaf.values[position];
    return std::nullopt;
  }

  template <class Load>
  std::optional<Value> descend(const Key& key, Load load) const {
    if (tree_.levels == 0) return std::nullopt;
    if (tree_.levels == 1) return search_leaf(*leaf_at(0), key);
    node_index current = child_for(*inner_at(0), key);
    for (std::size_t level = 2; level < tree_.levels; ++level) current = child_for(load(inner_at(current)), key);
    return search_leaf(load(leaf_at(current)), key);
  }

  void bulk_load(std::span<const Key> keys, std::span<const Value> values) {
    const std::size_t n = keys.size();
    if (n == 0) return;
    const std::size_t leaves = (n + leaf_capacity - 1) / leaf_capacity;
    const auto layout = levels_type::plan(leaves, "csb_plus_tree");
    tree_.arena.reserve(layout.total * NodeBytes);
    tree_.allocate(layout, n);
    std::vector<Key> smallest =
        tree_.template build_leaves<leaf_node>([&](leaf_node& leaf, std::size_t begin, std::size_t end) {
          std::copy(keys.begin() + static_cast<std::ptrdiff_t>(begin), keys.begin() + static_cast<std::ptrdiff_t>(end), leaf.keys);
          std::copy(values.begin() + static_cast<std::ptrdiff_t>(begin), values.begin() + static_cast<std::ptrdiff_t>(end),
                    leaf.values);
          return keys[begin];
        });
    levels_type::build_inner_levels(tree_.nodes, layout, std::move(smallest));
  }

  typename levels_type::storage tree_;  // a moved-from tree is empty
};

// csb_plus_tree_over_codes<Key, NodeBytes>: the Delta variant of the interleaving thesis (SAP
// HANA's delta dictionary, §4.3.1): the values live in an unsorted dictionary array, each
// value's code is its position there, and a CSB+-tree over the codes gives the sorted view.
// Inner nodes hold separator values like csb_plus_tree's; leaves hold only codes (4 bytes
// each: 14 per 64-byte leaf), so every comparison in a leaf reads dictionary[code], a likely
// miss and therefore one more suspension point per probe of the leaf's binary search.
//
//   braid::csb_plus_tree_over_codes<std::uint64_t> index(dictionary);   // any order, distinct
//   std::optional<std::uint32_t> code = index.find(value);               // "locate"
//   index.multi_find(values, codes, braid::technique::coro, 16);
//
// Invariants: the leaves list every code exactly once, in increasing order of value; inner
// levels as in csb_plus_tree (node groups contiguous, separators = smallest value under the
// next child, nodes at least half full).
//
// Complexity: find O(levels) node lines plus about log2(leaf_capacity) + 1 dictionary lines;
// construction O(n log n) (a sort of the codes by value).
//
// Lookups (all returning exactly what find returns): find, lookup<M> (coro<>), find_on_fiber,
// multi_find with naive, coro or fiber (the thesis interleaves this one with coroutines only).
template <std::totally_ordered Key = std::uint64_t, std::size_t NodeBytes = 64>
  requires std::is_trivially_copyable_v<Key> && (NodeBytes % cache_line_bytes == 0) && (NodeBytes > 0)
class csb_plus_tree_over_codes : public detail::multi_find_member<csb_plus_tree_over_codes<Key, NodeBytes>, Key, std::optional<std::uint32_t>> {
  using levels_type = detail::csb_plus_tree_levels<Key, NodeBytes>;

 public:
  using key_type = Key;
  using code_type = std::uint32_t;
  static constexpr prefetch_hint default_prefetch_hint = prefetch_hint::t0;  // nodes are reused: every level
  static constexpr const char* structure_name = "csb_plus_tree_over_codes";
  using node_index = typename levels_type::node_index;
  using inner_node = typename levels_type::inner_node;

  static constexpr std::size_t node_bytes = NodeBytes;
  static constexpr std::size_t inner_capacity = levels_type::inner_capacity;
  static constexpr std::size_t leaf_capacity = (NodeBytes - levels_type::header_bytes) / sizeof(code_type);

  struct alignas(cache_line_bytes) leaf_node {
    node_index count;
    node_index unused;
    code_type codes[leaf_capacity];  // increasing in dictionary[code]
  };
  static_assert(sizeof(leaf_node) == NodeBytes);

  explicit csb_plus_tree_over_codes(page_size pages = page_size::huge_2m) : tree_(pages) {}

  // Copies the dictionary (code i = dictionary[i]) and builds the tree over its codes. Throws
  // std::invalid_argument if a value repeats or there are 2^32 values or more.
  explicit csb_plus_tree_over_codes(std::span<const Key> dictionary, page_size pages = page_size::huge_2m)
      : tree_(pages) {
    if (dictionary.size() >= std::numeric_limits<code_type>::max()) {
      throw std::invalid_argument("csb_plus_tree_over_codes: too many values for 32-bit codes");
    }
    build(dictionary);
  }

  // A moved-from index is empty.
  csb_plus_tree_over_codes(csb_plus_tree_over_codes&& other) noexcept
      : tree_(std::move(other.tree_)), dictionary_(std::exchange(other.dictionary_, nullptr)) {}
  csb_plus_tree_over_codes& operator=(csb_plus_tree_over_codes&& other) noexcept {
    tree_ = std::move(other.tree_);
    dictionary_ = std::exchange(other.dictionary_, nullptr);
    return *this;
  }

  [[nodiscard]] std::size_t size() const noexcept { return tree_.size; }
  [[nodiscard]] std::size_t levels() const noexcept { return tree_.levels; }
  [[nodiscard]] std::size_t memory_bytes() const noexcept { return tree_.arena.reserved_bytes(); }
  [[nodiscard]] std::string describe_pages() const { return tree_.arena.describe_pages(); }
  [[nodiscard]] std::span<const Key> dictionary() const noexcept { return {dictionary_, tree_.size}; }

  // The code of value, or std::nullopt ("locate" in the thesis).
  [[nodiscard]] std::optional<code_type> find(const Key& value) const { return descend(value, detail::plain_load{}); }

  template <execution_mode M, class Inputs>
  stream_coro<Inputs> lookups(Inputs inputs) const {
    while (const auto input = inputs.next()) {
      const Key& value = input.key;
      if (tree_.levels == 0) {
        inputs.deliver(input, std::nullopt);
        continue;
      }
      const leaf_node* leaf = leaf_at(0);
      if (tree_.levels > 1) {
        node_index current = levels_type::child_for(*inner_at(0), value);  // the root is cached
        for (std::size_t level = 2; level < tree_.levels; ++level) {
          const inner_node& inner = co_await fetch_lines<M>(inner_at(current));
          current = levels_type::child_for(inner, value);
        }
        leaf = &co_await fetch_lines<M>(leaf_at(current));
      }
      // Binary search over the codes: each probe reads the dictionary (a suspension).
      const code_type* base = leaf->codes;
      std::size_t length = leaf->count;
      while (length > 1) {
        const std::size_t half = length / 2;
        const Key& probe = co_await fetch<M>(dictionary_ + base[half]);
        base = !(value < probe) ? base + half : base;
        length -= half;
      }
      const Key& candidate = co_await fetch<M>(dictionary_ + *base);
      inputs.deliver(input, candidate == value ? std::optional<code_type>(*base) : std::nullopt);
    }
    co_return inputs.finish();
  }

  template <execution_mode M>
  coro<std::optional<code_type>> lookup(Key value) const {
    return lookups<M>(single_input<Key, std::optional<code_type>>(value));
  }

  template <prefetch_hint Hint = default_prefetch_hint>
  [[nodiscard]] std::optional<code_type> find_on_fiber(fiber_context& context, const Key& value) const {
    return descend(value, detail::fiber_line_load<Hint>{context});
  }

  // lookup<M> written as the mechanical conversion of nested calls (technique::coro_nested):
  // each node below the root and each dictionary probe is a child task. Not inlined, for the
  // reason sorted_array::lookup_nested gives.
  template <execution_mode M>
  [[gnu::noinline]] task<std::optional<code_type>> lookup_nested(Key value) const {
    if (tree_.levels == 0) co_return std::nullopt;
    const leaf_node* leaf = leaf_at(0);
    if (tree_.levels > 1) {
      node_index current = levels_type::child_for(*inner_at(0), value);
      for (std::size_t level = 2; level < tree_.levels; ++level) current = co_await child_task<M>(current, value);
      leaf = co_await node_task<M>(leaf_at(current));
    }
    const code_type* base = leaf->codes;
    std::size_t length = leaf->count;
    while (length > 1) {
      const std::size_t half = length / 2;
      const Key probe = co_await value_task<M>(base[half]);
      base = !(value < probe) ? base + half : base;
      length -= half;
    }
    if (co_await value_task<M>(*base) == value) co_return *base;
    co_return std::nullopt;
  }
  template <execution_mode M>
  task<node_index> child_task(node_index inner, Key value) const {
    co_return levels_type::child_for(co_await fetch_lines<M>(inner_at(inner)), value);
  }
  template <execution_mode M>
  task<const leaf_node*> node_task(const leaf_node* leaf) const {
    co_return &co_await fetch_lines<M>(leaf);
  }
  template <execution_mode M>
  task<Key> value_task(code_type code) const {
    co_return co_await fetch<M>(dictionary_ + code);
  }

  // Throws std::logic_error naming the first broken invariant.
  void check_invariants() const {
    auto fail = [](const std::string& what) { throw std::logic_error("csb_plus_tree_over_codes: " + what); };
    if (tree_.levels == 0) {
      if (tree_.size != 0) fail("empty tree with values");
      return;
    }
    std::vector<bool> seen(tree_.size, false);
    tree_.template check_nodes<leaf_node>(
        leaf_capacity, "value",
        [&](const leaf_node& leaf, std::size_t j) -> const Key& {
          const code_type code = leaf.codes[j];
          if (code >= tree_.size || seen[code]) fail("code out of range or listed twice");
          seen[code] = true;
          return dictionary_[code];
        },
        fail);
    if (std::find(seen.begin(), seen.end(), false) != seen.end()) fail("a code is missing from the leaves");
  }

 private:
  using raw_node = typename levels_type::raw_node;

  [[nodiscard]] const inner_node* inner_at(node_index index) const noexcept { return tree_.template at<inner_node>(index); }
  [[nodiscard]] const leaf_node* leaf_at(node_index index) const noexcept { return tree_.template at<leaf_node>(index); }

  template <class Load>
  std::optional<code_type> descend(const Key& value, Load load) const {
    if (tree_.levels == 0) return std::nullopt;
    const leaf_node* leaf = leaf_at(0);
    if (tree_.levels > 1) {
      node_index current = levels_type::child_for(*inner_at(0), value);
      for (std::size_t level = 2; level < tree_.levels; ++level) current = levels_type::child_for(load(inner_at(current)), value);
      leaf = &load(leaf_at(current));
    }
    const code_type* base = leaf->codes;
    std::size_t length = leaf->count;
    while (length > 1) {
      const std::size_t half = length / 2;
      base = !(value < load(dictionary_ + base[half])) ? base + half : base;
      length -= half;
    }
    if (load(dictionary_ + *base) == value) return *base;
    return std::nullopt;
  }

  void build(std::span<const Key> dictionary) {
    const std::size_t n = dictionary.size();
    if (n == 0) return;
    // Sorting (value, code) pairs keeps the sort's accesses sequential (sorting codes by
    // dictionary[code] would miss the cache on nearly every comparison of a large dictionary).
    using value_code = detail::key_position<Key, code_type>;
    std::vector<value_code> by_value(n);
    for (std::size_t code = 0; code < n; ++code) by_value[code] = {dictionary[code], static_cast<code_type>(code)};
    stable_sort_by_key(std::span(by_value), [](const value_code& entry) -> const Key& { return entry.key; });
    for (std::size_t i = 1; i < n; ++i) {
      if (!(by_value[i - 1].key < by_value[i].key)) {
        throw std::invalid_argument("csb_plus_tree_over_codes: value of code " + std::to_string(by_value[i].position) +
                                    " repeats");
      }
    }
    const std::size_t leaves = (n + leaf_capacity - 1) / leaf_capacity;
    const auto layout = levels_type::plan(leaves, "csb_plus_tree_over_codes");
    const std::size_t dictionary_bytes = (n * sizeof(Key) + cache_line_bytes - 1) / cache_line_bytes * cache_line_bytes;
    tree_.arena.reserve(dictionary_bytes + layout.total * NodeBytes + cache_line_bytes);
    auto* stored = reinterpret_cast<Key*>(tree_.arena.allocate(dictionary_bytes, cache_line_bytes));
    std::uninitialized_copy(dictionary.begin(), dictionary.end(), stored);
    dictionary_ = stored;
    tree_.allocate(layout, n);
    std::vector<Key> smallest =
        tree_.template build_leaves<leaf_node>([&](leaf_node& leaf, std::size_t begin, std::size_t end) {
          for (std::size_t i = begin; i < end; ++i) leaf.codes[i - begin] = by_value[i].position;
          return by_value[begin].key;
        });
    levels_type::build_inner_levels(tree_.nodes, layout, std::move(smallest));
  }

  typename levels_type::storage tree_;
  const Key* dictionary_ = nullptr;  // in code order, in the arena
};

}  // namespace braid
