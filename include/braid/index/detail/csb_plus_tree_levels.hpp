// The inner levels of a bulk-loaded CSB+-tree and the storage of its nodes, shared by
// csb_plus_tree (leaves of key/value pairs) and csb_plus_tree_over_codes (leaves of dictionary
// codes).
//
// Nodes are NodeBytes, line-aligned, stored level by level (root first) in one array and
// addressed by 32-bit index. An inner node holds a key count, up to inner_capacity separator
// keys and the index of its first child; its children are the key_count + 1 consecutive
// nodes from there (a node group). Separator j is the smallest key under child j + 1.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "braid/core/prefetch.hpp"
#include "braid/index/detail/ordered_node_arena.hpp"

namespace braid::detail {

template <class Key, std::size_t NodeBytes>
struct csb_plus_tree_levels {
  using node_index = std::uint32_t;
  static constexpr std::size_t header_bytes = 2 * sizeof(node_index);
  static constexpr std::size_t inner_capacity = (NodeBytes - header_bytes) / sizeof(Key);
  static_assert(inner_capacity >= 2, "NodeBytes too small for this key type");

  struct alignas(cache_line_bytes) inner_node {
    node_index first_child;  // children are first_child .. first_child + key_count (a node group)
    node_index key_count;
    Key keys[inner_capacity];
  };
  static_assert(sizeof(inner_node) == NodeBytes);

  struct alignas(cache_line_bytes) raw_node {
    std::byte bytes[NodeBytes];
  };

  // Where each level starts (root first) for a tree over `leaves` leaves with full inner nodes.
  struct shape {
    std::vector<std::size_t> level_sizes;    // nodes per level, root first
    std::vector<std::size_t> level_offsets;  // index of each level's first node
    std::size_t total = 0;
  };

  // The child whose range holds key: the number of separators <= key, counted without branches
  // over the whole node (the compiler unrolls and vectorizes the fixed-width loop). Always
  // inlined, as the leaf search is: a call from a stream coroutine's loop makes each of its
  // resumes save and restore the callee-saved registers the call needs.
  [[gnu::always_inline]] static node_index child_for(const inner_node& inner, const Key& key) noexcept {
    node_index slot = 0;
    for (std::size_t j = 0; j < inner_capacity; ++j) {
      slot += static_cast<node_index>((j < inner.key_count) & !(key < inner.keys[j]));
    }
    return inner.first_child + slot;
  }

  // Splits `items` into `parts` runs as even as possible; returns where run `part` starts.
  static std::size_t even_split(std::size_t items, std::size_t parts, std::size_t part) noexcept {
    return items / parts * part + std::min(part, items % parts);
  }

  static shape plan(std::size_t leaves, const char* structure) {
    shape result;
    result.level_sizes = {leaves};
    while (result.level_sizes.back() > 1) {
      result.level_sizes.push_back((result.level_sizes.back() + inner_capacity) / (inner_capacity + 1));
    }
    std::reverse(result.level_sizes.begin(), result.level_sizes.end());
    for (std::size_t count : result.level_sizes) {
      result.level_offsets.push_back(result.total);
      result.total += count;
    }
    if (result.total > std::numeric_limits<node_index>::max()) {
      throw std::invalid_argument(std::string(structure) + ": " + std::to_string(result.total) +
                                  " nodes exceed the 32-bit node index");
    }
    return result;
  }

  // Writes the inner levels above the leaves, bottom-up; each inner node owns an even share of
  // the level below. `smallest` holds the smallest key of every leaf, in order.
  static void build_inner_levels(raw_node* nodes, const shape& layout, std::vector<Key> smallest) {
    for (std::size_t level = layout.level_sizes.size() - 1; level-- > 0;) {
      const std::size_t count = layout.level_sizes[level];
      const std::size_t children = layout.level_sizes[level + 1];
      std::vector<Key> level_smallest(count);
      for (std::size_t i = 0; i < count; ++i) {
        const std::size_t begin = even_split(children, count, i);
        const std::size_t end = even_split(children, count, i + 1);
        auto* node = std::construct_at(reinterpret_cast<inner_node*>(nodes + layout.level_offsets[level] + i));
        node->first_child = static_cast<node_index>(layout.level_offsets[level + 1] + begin);
        node->key_count = static_cast<node_index>(end - begin - 1);
        for (std::size_t child = begin + 1; child < end; ++child) node->keys[child - begin - 1] = smallest[child];
        level_smallest[i] = smallest[begin];
      }
      smallest = std::move(level_smallest);
    }
  }

  // The key range every leaf must respect: low <= key < high.
  struct bounds {
    std::optional<Key> low, high;
    [[nodiscard]] bool holds(const Key& key) const { return (!low || !(key < *low)) && (!high || key < *high); }
  };

  // Checks the inner levels (separators increasing and inside their parent's range, node groups
  // contiguous and in order, every non-root inner node at least half full) and returns the
  // bounds of each leaf, in order. Calls fail(message) on the first violation.
  static std::vector<bounds> check_inner_levels(const raw_node* nodes, std::size_t levels, std::size_t first_leaf,
                                                std::size_t node_count, const std::function<void(const std::string&)>& fail) {
    std::vector<bounds> current = {bounds{}};
    std::size_t level_begin = 0;
    std::size_t level_end = 1;
    for (std::size_t level = 0; level + 1 < levels; ++level) {
      std::vector<bounds> next;
      std::size_t expected_child = level_end;
      for (std::size_t index = level_begin; index < level_end; ++index) {
        const auto& inner = *std::launder(reinterpret_cast<const inner_node*>(nodes + index));
        const bounds& around = current[index - level_begin];
        if (inner.key_count == 0 || inner.key_count > inner_capacity) fail("inner key count out of range");
        if (index != 0 && inner.key_count + 1 < (inner_capacity + 2) / 2) fail("inner node less than half full");
        if (inner.first_child != expected_child) fail("node group not contiguous with its neighbours");
        for (std::size_t j = 0; j < inner.key_count; ++j) {
          if (j > 0 && !(inner.keys[j - 1] < inner.keys[j])) fail("separators not increasing");
          if (!around.holds(inner.keys[j])) fail("separator outside its parent's range");
        }
        for (std::size_t j = 0; j <= inner.key_count; ++j) {
          next.push_back({j == 0 ? around.low : std::optional<Key>(inner.keys[j - 1]),
                          j == inner.key_count ? around.high : std::optional<Key>(inner.keys[j])});
        }
        expected_child += inner.key_count + 1;
      }
      level_begin = level_end;
      level_end = expected_child;
      current = std::move(next);
    }
    if (level_begin != first_leaf || level_end != node_count) fail("leaf level not where expected");
    return current;
  }

  // A tree's nodes: the arena that holds them, every node root first, level by level, and the
  // counts that place the leaves. A moved-from storage is empty.
  struct storage {
    ordered_node_arena arena;
    raw_node* nodes = nullptr;
    std::size_t levels = 0;  // 0: empty tree; 1: the root is a leaf
    node_index first_leaf = 0;
    node_index node_count = 0;
    std::size_t size = 0;  // entries in the leaves

    explicit storage(page_size pages) noexcept : arena(pages) {}
    storage(storage&& other) noexcept
        : arena(std::move(other.arena)),
          nodes(std::exchange(other.nodes, nullptr)),
          levels(std::exchange(other.levels, 0)),
          first_leaf(std::exchange(other.first_leaf, 0)),
          node_count(std::exchange(other.node_count, 0)),
          size(std::exchange(other.size, 0)) {}
    storage& operator=(storage&& other) noexcept {
      if (this != &other) {
        arena = std::move(other.arena);
        nodes = std::exchange(other.nodes, nullptr);
        levels = std::exchange(other.levels, 0);
        first_leaf = std::exchange(other.first_leaf, 0);
        node_count = std::exchange(other.node_count, 0);
        size = std::exchange(other.size, 0);
      }
      return *this;
    }

    // Takes the nodes of `layout` from the arena (reserved beforehand) for `entries` entries.
    void allocate(const shape& layout, std::size_t entries) {
      nodes = reinterpret_cast<raw_node*>(arena.allocate(layout.total * NodeBytes, cache_line_bytes));
      levels = layout.level_sizes.size();
      node_count = static_cast<node_index>(layout.total);
      first_leaf = static_cast<node_index>(layout.level_offsets.back());
      size = entries;
    }

    // Constructs the leaves (of type Leaf) over the `size` entries, spread evenly;
    // fill(leaf, begin, end) writes entries [begin, end) into one and returns its smallest key.
    // Returns the smallest key of every leaf, in order, for build_inner_levels.
    template <class Leaf, class Fill>
    std::vector<Key> build_leaves(Fill fill) {
      const std::size_t leaves = node_count - first_leaf;
      std::vector<Key> smallest(leaves);
      for (std::size_t leaf = 0; leaf < leaves; ++leaf) {
        const std::size_t begin = even_split(size, leaves, leaf);
        const std::size_t end = even_split(size, leaves, leaf + 1);
        auto* node = std::construct_at(reinterpret_cast<Leaf*>(nodes + first_leaf + leaf));
        node->count = static_cast<node_index>(end - begin);
        smallest[leaf] = fill(*node, begin, end);
      }
      return smallest;
    }

    // Checks the inner levels (check_inner_levels), then the leaves (of type Leaf): each holds 1
    // to `capacity` entries, at least half that below a root; their keys in order, key_of(leaf, j)
    // for entry j (which may check the entry first), rise strictly and lie in their parent's
    // range. `keys` names them in messages. Returns the entries.
    template <class Leaf, class KeyOf>
    std::size_t check_nodes(std::size_t capacity, const std::string& keys, KeyOf key_of,
                            const std::function<void(const std::string&)>& fail) const {
      const auto leaf_bounds = check_inner_levels(nodes, levels, first_leaf, node_count, fail);
      std::size_t entries = 0;
      std::optional<Key> previous;
      for (node_index index = first_leaf; index < node_count; ++index) {
        const Leaf& leaf = *at<Leaf>(index);
        if (leaf.count == 0 || leaf.count > capacity) fail("leaf count out of range");
        if (levels > 1 && leaf.count < (capacity + 1) / 2) fail("leaf less than half full");
        for (std::size_t j = 0; j < leaf.count; ++j, ++entries) {
          const Key& key = key_of(leaf, j);
          if (previous && !(*previous < key)) fail("leaf " + keys + "s not strictly increasing");
          if (!leaf_bounds[index - first_leaf].holds(key)) fail("leaf " + keys + " outside its parent's range");
          previous = key;
        }
      }
      return entries;
    }

    // The node at `index` as an inner node or a leaf of type Node.
    template <class Node>
    [[nodiscard]] const Node* at(node_index index) const noexcept {
      return std::launder(reinterpret_cast<const Node*>(nodes + index));
    }
  };
};

}  // namespace braid::detail
