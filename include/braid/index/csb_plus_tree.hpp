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
#include "braid/core/fiber.hpp"
#include "braid/core/huge_buffer.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/prefetch.hpp"
#include "braid/index/detail/ordered_multi_find.hpp"
#include "braid/index/detail/ordered_node_arena.hpp"
#include "braid/index/technique.hpp"

namespace braid {

template <std::totally_ordered Key = std::uint64_t, class Value = std::uint64_t, std::size_t NodeBytes = 64>
  requires std::is_trivially_copyable_v<Key> && std::is_trivially_copyable_v<Value> &&
           (NodeBytes % cache_line_bytes == 0) && (NodeBytes > 0)
class csb_plus_tree {
 public:
  using key_type = Key;
  using mapped_type = Value;
  using node_index = std::uint32_t;

  static constexpr std::size_t node_bytes = NodeBytes;
  static constexpr std::size_t header_bytes = 2 * sizeof(node_index);
  static constexpr std::size_t inner_capacity = (NodeBytes - header_bytes) / sizeof(Key);  // separator keys
  static constexpr std::size_t leaf_capacity = (NodeBytes - header_bytes) / (sizeof(Key) + sizeof(Value));
  static_assert(inner_capacity >= 2 && leaf_capacity >= 2, "NodeBytes too small for these key and value types");

  struct alignas(cache_line_bytes) inner_node {
    node_index first_child;  // children are first_child .. first_child + key_count (a node group)
    node_index key_count;
    Key keys[inner_capacity];
  };
  struct alignas(cache_line_bytes) leaf_node {
    node_index count;
    node_index unused;
    Key keys[leaf_capacity];
    Value values[leaf_capacity];
  };
  static_assert(sizeof(inner_node) == NodeBytes && sizeof(leaf_node) == NodeBytes);

  explicit csb_plus_tree(page_size pages = page_size::huge_2m) : arena_(pages) {}

  // Bulk load. Throws std::invalid_argument unless keys are strictly increasing and as many as
  // values, or if the tree would need more than 2^32 nodes.
  csb_plus_tree(std::span<const Key> sorted_keys, std::span<const Value> values, page_size pages = page_size::huge_2m)
      : arena_(pages) {
    if (sorted_keys.size() != values.size()) {
      throw std::invalid_argument("csb_plus_tree: " + std::to_string(sorted_keys.size()) + " keys but " +
                                  std::to_string(values.size()) + " values");
    }
    for (std::size_t i = 1; i < sorted_keys.size(); ++i) {
      if (!(sorted_keys[i - 1] < sorted_keys[i])) {
        throw std::invalid_argument("csb_plus_tree: keys must be strictly increasing (position " + std::to_string(i) +
                                    ")");
      }
    }
    bulk_load(sorted_keys, values);
  }

  // A moved-from tree is empty.
  csb_plus_tree(csb_plus_tree&& other) noexcept
      : arena_(std::move(other.arena_)),
        nodes_(std::exchange(other.nodes_, nullptr)),
        levels_(std::exchange(other.levels_, 0)),
        first_leaf_(std::exchange(other.first_leaf_, 0)),
        node_count_(std::exchange(other.node_count_, 0)),
        size_(std::exchange(other.size_, 0)) {}
  csb_plus_tree& operator=(csb_plus_tree&& other) noexcept {
    if (this != &other) {
      arena_ = std::move(other.arena_);
      nodes_ = std::exchange(other.nodes_, nullptr);
      levels_ = std::exchange(other.levels_, 0);
      first_leaf_ = std::exchange(other.first_leaf_, 0);
      node_count_ = std::exchange(other.node_count_, 0);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  // Levels from the root to the leaves (1: the root is a leaf; 0: empty tree).
  [[nodiscard]] std::size_t levels() const noexcept { return levels_; }
  [[nodiscard]] std::size_t node_count() const noexcept { return node_count_; }
  [[nodiscard]] std::size_t memory_bytes() const noexcept { return arena_.reserved_bytes(); }
  [[nodiscard]] std::string describe_pages() const { return arena_.describe_pages(); }

  // ---- lookups ------------------------------------------------------------------------------

  [[nodiscard]] std::optional<Value> find(const Key& key) const { return descend(key, detail::ordered_plain_load{}); }
  [[nodiscard]] bool contains(const Key& key) const { return find(key).has_value(); }

  template <execution_mode M>
  coro<std::optional<Value>> lookup(Key key) const {
    if (levels_ == 0) co_return std::nullopt;
    node_index current = 0;  // the root: always cached, read directly
    if (levels_ > 1) {
      current = child_for(*inner_at(0), key);
      for (std::size_t level = 2; level < levels_; ++level) {
        const inner_node& inner = co_await fetch_lines<M>(inner_at(current));
        current = child_for(inner, key);
      }
      const leaf_node& leaf = co_await fetch_lines<M>(leaf_at(current));
      co_return search_leaf(leaf, key);
    }
    co_return search_leaf(*leaf_at(current), key);
  }

  template <prefetch_hint Hint = prefetch_hint::t0>
  [[nodiscard]] std::optional<Value> find_on_fiber(fiber_context& context, const Key& key) const {
    return descend(key, whole_node_fiber_load<Hint>{context});
  }

  // Group prefetching: every lookup descends the same number of levels, so a group moves in
  // lock step, one level per stage, with no idle slots (the thesis's GP).
  template <prefetch_hint Hint = prefetch_hint::t0>
  void find_group_prefetching(std::span<const Key> keys, std::span<std::optional<Value>> out, std::size_t group) const {
    detail::check_multi_find_arguments(keys, out, group, "csb_plus_tree");
    if (levels_ == 0) {
      std::fill_n(out.begin(), keys.size(), std::nullopt);
      return;
    }
    std::vector<node_index> cursor(std::min(group, keys.size()));
    for (std::size_t base = 0; base < keys.size(); base += group) {
      const std::size_t width = std::min(group, keys.size() - base);
      // Stage 1: the root (cached) names every lookup's child, which is prefetched.
      // Stages 2 ..: each lookup reads its prefetched node and prefetches the next.
      std::fill_n(cursor.begin(), width, node_index{0});
      for (std::size_t level = 1; level < levels_; ++level) {
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
  template <prefetch_hint Hint = prefetch_hint::t0>
  void find_amac(std::span<const Key> keys, std::span<std::optional<Value>> out, std::size_t group) const {
    detail::check_multi_find_arguments(keys, out, group, "csb_plus_tree");
    if (levels_ == 0) {
      std::fill_n(out.begin(), keys.size(), std::nullopt);
      return;
    }
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
    const auto leaf_depth = static_cast<std::uint32_t>(levels_ - 1);
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

  template <prefetch_hint Hint = prefetch_hint::t0>
  void multi_find(std::span<const Key> keys, std::span<std::optional<Value>> out, technique how,
                  std::size_t group) const {
    detail::ordered_multi_find<Hint>(*this, keys, out, how, group, "csb_plus_tree");
  }

  // ---- scans --------------------------------------------------------------------------------

  // Calls visit(key, value) for up to `limit` entries with key >= start, in key order; returns
  // how many it visited.
  template <class Visitor>
  std::size_t scan(const Key& start, std::size_t limit, Visitor&& visit) const {
    if (levels_ == 0 || limit == 0) return 0;
    node_index current = 0;
    for (std::size_t level = 1; level < levels_; ++level) current = child_for(*inner_at(current), start);
    std::size_t position = lower_bound_in_leaf(*leaf_at(current), start);
    std::size_t visited = 0;
    for (; current < node_count_; ++current, position = 0) {  // leaves are contiguous, in key order
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
    if (levels_ == 0) {
      if (size_ != 0 || node_count_ != 0) fail("empty tree with nodes");
      return;
    }
    // Walk level by level: each inner node's group must be the next run of the level below, and
    // every subtree's keys must respect the separators around it.
    struct bounds {
      std::optional<Key> low, high;  // low <= key < high
    };
    std::vector<bounds> current_bounds = {bounds{}};
    node_index level_begin = 0;
    node_index level_end = 1;
    for (std::size_t level = 0; level + 1 < levels_; ++level) {
      std::vector<bounds> next_bounds;
      node_index expected_child = level_end;
      for (node_index index = level_begin; index < level_end; ++index) {
        const inner_node& inner = *inner_at(index);
        const bounds& around = current_bounds[index - level_begin];
        if (inner.key_count == 0 || inner.key_count > inner_capacity) fail("inner key count out of range");
        if (index != 0 && inner.key_count + 1 < (inner_capacity + 2) / 2) fail("inner node less than half full");
        if (inner.first_child != expected_child) fail("node group not contiguous with its neighbours");
        for (std::size_t j = 0; j < inner.key_count; ++j) {
          if (j > 0 && !(inner.keys[j - 1] < inner.keys[j])) fail("separators not increasing");
          if ((around.low && inner.keys[j] < *around.low) || (around.high && !(inner.keys[j] < *around.high))) {
            fail("separator outside its parent's range");
          }
        }
        for (std::size_t j = 0; j <= inner.key_count; ++j) {
          next_bounds.push_back({j == 0 ? around.low : std::optional<Key>(inner.keys[j - 1]),
                                 j == inner.key_count ? around.high : std::optional<Key>(inner.keys[j])});
        }
        expected_child += inner.key_count + 1;
      }
      level_begin = level_end;
      level_end = expected_child;
      current_bounds = std::move(next_bounds);
    }
    if (level_begin != first_leaf_ || level_end != node_count_) fail("leaf level not where expected");
    std::size_t counted = 0;
    std::optional<Key> previous;
    for (node_index index = first_leaf_; index < node_count_; ++index) {
      const leaf_node& leaf = *leaf_at(index);
      const bounds& around = current_bounds[index - first_leaf_];
      if (leaf.count == 0 || leaf.count > leaf_capacity) fail("leaf count out of range");
      if (levels_ > 1 && leaf.count < (leaf_capacity + 1) / 2) fail("leaf less than half full");
      for (std::size_t j = 0; j < leaf.count; ++j) {
        if (previous && !(*previous < leaf.keys[j])) fail("leaf keys not strictly increasing");
        if ((around.low && leaf.keys[j] < *around.low) || (around.high && !(leaf.keys[j] < *around.high))) {
          fail("leaf key outside its parent's range");
        }
        previous = leaf.keys[j];
        ++counted;
      }
    }
    if (counted != size_) fail("leaves hold " + std::to_string(counted) + " entries, size() is " + std::to_string(size_));
  }

 private:
  struct alignas(cache_line_bytes) raw_node {
    std::byte bytes[NodeBytes];
  };

  template <prefetch_hint Hint>
  struct whole_node_fiber_load {
    fiber_context& context;
    template <class Node>
    Node& operator()(Node* node) const {
      return fiber_fetch_lines<Hint>(context, node);
    }
  };

  [[nodiscard]] const raw_node* node_at(node_index index) const noexcept { return nodes_ + index; }
  [[nodiscard]] const inner_node* inner_at(node_index index) const noexcept {
    return std::launder(reinterpret_cast<const inner_node*>(nodes_ + index));
  }
  [[nodiscard]] const leaf_node* leaf_at(node_index index) const noexcept {
    return std::launder(reinterpret_cast<const leaf_node*>(nodes_ + index));
  }

  // The child whose range holds key: the number of separators <= key, counted without branches
  // over the whole node (the compiler unrolls and vectorizes the fixed-width loop).
  static node_index child_for(const inner_node& inner, const Key& key) noexcept {
    node_index slot = 0;
    for (std::size_t j = 0; j < inner_capacity; ++j) {
      slot += static_cast<node_index>((j < inner.key_count) & !(key < inner.keys[j]));
    }
    return inner.first_child + slot;
  }

  static std::size_t lower_bound_in_leaf(const leaf_node& leaf, const Key& key) noexcept {
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
    if (levels_ == 0) return std::nullopt;
    if (levels_ == 1) return search_leaf(*leaf_at(0), key);
    node_index current = child_for(*inner_at(0), key);
    for (std::size_t level = 2; level < levels_; ++level) current = child_for(load(inner_at(current)), key);
    return search_leaf(load(leaf_at(current)), key);
  }

  // Splits `items` into `parts` runs as even as possible; returns the start of run `part`.
  static std::size_t even_split(std::size_t items, std::size_t parts, std::size_t part) noexcept {
    return items / parts * part + std::min(part, items % parts);
  }

  void bulk_load(std::span<const Key> keys, std::span<const Value> values) {
    const std::size_t n = keys.size();
    if (n == 0) return;
    // Level sizes, bottom-up: leaves full, then as few inner nodes as hold the level below.
    std::vector<std::size_t> level_sizes = {(n + leaf_capacity - 1) / leaf_capacity};
    while (level_sizes.back() > 1) {
      level_sizes.push_back((level_sizes.back() + inner_capacity) / (inner_capacity + 1));
    }
    std::reverse(level_sizes.begin(), level_sizes.end());  // root first
    std::size_t total = 0;
    std::vector<std::size_t> level_offsets;
    for (std::size_t count : level_sizes) {
      level_offsets.push_back(total);
      total += count;
    }
    if (total > std::numeric_limits<node_index>::max()) {
      throw std::invalid_argument("csb_plus_tree: " + std::to_string(total) + " nodes exceed the 32-bit node index");
    }
    arena_.reserve(total * NodeBytes);
    nodes_ = reinterpret_cast<raw_node*>(arena_.allocate(total * NodeBytes, cache_line_bytes));
    levels_ = level_sizes.size();
    node_count_ = static_cast<node_index>(total);
    first_leaf_ = static_cast<node_index>(level_offsets.back());
    size_ = n;

    // Leaves, spreading the entries evenly; remember each node's smallest key for the level above.
    const std::size_t leaves = level_sizes.back();
    std::vector<Key> smallest(leaves);
    for (std::size_t leaf = 0; leaf < leaves; ++leaf) {
      const std::size_t begin = even_split(n, leaves, leaf);
      const std::size_t end = even_split(n, leaves, leaf + 1);
      auto* node = std::construct_at(reinterpret_cast<leaf_node*>(nodes_ + first_leaf_ + leaf));
      node->count = static_cast<node_index>(end - begin);
      std::copy(keys.begin() + static_cast<std::ptrdiff_t>(begin), keys.begin() + static_cast<std::ptrdiff_t>(end), node->keys);
      std::copy(values.begin() + static_cast<std::ptrdiff_t>(begin), values.begin() + static_cast<std::ptrdiff_t>(end),
                node->values);
      smallest[leaf] = keys[begin];
    }
    // Inner levels, bottom-up: node i of a level owns an even share of the level below.
    for (std::size_t level = levels_ - 1; level-- > 0;) {
      const std::size_t count = level_sizes[level];
      const std::size_t children = level_sizes[level + 1];
      std::vector<Key> level_smallest(count);
      for (std::size_t i = 0; i < count; ++i) {
        const std::size_t begin = even_split(children, count, i);
        const std::size_t end = even_split(children, count, i + 1);
        auto* node = std::construct_at(reinterpret_cast<inner_node*>(nodes_ + level_offsets[level] + i));
        node->first_child = static_cast<node_index>(level_offsets[level + 1] + begin);
        node->key_count = static_cast<node_index>(end - begin - 1);
        for (std::size_t child = begin + 1; child < end; ++child) node->keys[child - begin - 1] = smallest[child];
        level_smallest[i] = smallest[begin];
      }
      smallest = std::move(level_smallest);
    }
  }

  detail::ordered_node_arena arena_;
  raw_node* nodes_ = nullptr;  // every node, root first, level by level
  std::size_t levels_ = 0;
  node_index first_leaf_ = 0;
  node_index node_count_ = 0;
  std::size_t size_ = 0;
};

}  // namespace braid
