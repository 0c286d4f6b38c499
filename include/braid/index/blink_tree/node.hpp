// Nodes of the B-link tree (Lehman & Yao 1981, as MxTasking's dissertation Ch. 5 builds it on
// tasks): 1 KiB, 8-byte keys and values.
//
//   header (first line): the resource words (latch, optimistic version), kind, level, entry
//   count, high key, right sibling. Leaves: 60 keys then 60 values. Inner and branch nodes
//   (a branch node is an inner node whose children are leaves): 59 separator keys then 60
//   children (tagged resource_ptrs, so the child's owner and primitive are known without
//   touching the child).
//
// Invariants (outside a writer's critical section):
//  - keys[0 .. count) strictly ascending; every key < high_key when the node has a right
//    sibling (the rightmost node of a level bounds nothing: its high key is +infinity);
//  - an inner node's child i holds the keys in [keys[i-1], keys[i]) (child 0: from the
//    node's low bound; the last child: up to the high key); a key equal to a separator lives
//    in the child to its right;
//  - a node's right sibling starts at its high key. After a split the new right node is
//    reachable through its left sibling before its separator reaches the parent: a search
//    that lands on a node whose high key is <= the key moves right.
//
// Every field is atomic (relaxed loads and stores compile to plain moves): optimistic readers
// read nodes while writers change them, validate by the version afterwards, and a value read
// torn by a writer is discarded, never acted on. Readers clamp the count they read to the
// capacity, so a torn count cannot take them out of the node.
//
// A node derives from the task runtime's `resource` (tasks/resource.hpp): its latch and
// optimistic version words are the ones the runtime's primitives use, so the same nodes serve
// the thread form and the task form (blink_tree/tasks.hpp). This is the one tasks/ header the
// nodes need.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "braid/core/prefetch.hpp"
#include "braid/tasks/resource.hpp"  // a node is a runtime resource: its latch and version words

namespace braid::detail::blink_tree {

using tasks::resource;
using tasks::resource_ptr;

using key_type = std::uint64_t;
using value_type = std::uint64_t;

inline constexpr std::size_t node_bytes = 1024;

enum class node_kind : std::uint8_t { leaf, branch, inner };

struct alignas(64) node_header : resource {
  node_header(node_kind node_type, std::uint8_t node_level) noexcept : kind(node_type), level(node_level) {}

  const node_kind kind;
  const std::uint8_t level;  // leaves 0, branch nodes 1, inner nodes above
  std::atomic<std::uint16_t> count{0};
  std::atomic<key_type> high_key{0};
  std::atomic<std::uint64_t> right{0};  // resource_ptr bits of the right sibling; 0: rightmost

  [[nodiscard]] bool is_leaf() const noexcept { return kind == node_kind::leaf; }
  [[nodiscard]] resource_ptr right_sibling() const noexcept {
    return resource_ptr::from_bits(right.load(std::memory_order_relaxed));
  }
  // Whether `key` lies beyond this node (in a right sibling).
  [[nodiscard]] bool must_move_right(key_type key) const noexcept {
    return right.load(std::memory_order_relaxed) != 0 && key >= high_key.load(std::memory_order_relaxed);
  }
};
static_assert(sizeof(node_header) == 64);

// Branch-free searches over atomically read keys: the index of the first key > `key`
// (upper) or >= `key` (lower) among keys[0 .. count).
template <bool Upper>
inline unsigned search(const std::atomic<key_type>* keys, unsigned count, key_type key) noexcept {
  if (count == 0) return 0;
  const std::atomic<key_type>* base = keys;
  unsigned remaining = count;
  while (remaining > 1) {
    const unsigned half = remaining / 2;
    const key_type probe = base[half - 1].load(std::memory_order_relaxed);
    base = (Upper ? probe <= key : probe < key) ? base + half : base;
    remaining -= half;
  }
  const key_type last = base->load(std::memory_order_relaxed);
  return static_cast<unsigned>(base - keys) + ((Upper ? last <= key : last < key) ? 1u : 0u);
}

struct leaf_node : node_header {
  static constexpr unsigned capacity = 60;

  leaf_node() noexcept : node_header(node_kind::leaf, 0) {}

  alignas(64) std::atomic<key_type> keys[capacity];  // from the second line on
  std::atomic<value_type> values[capacity];
  static constexpr std::size_t values_offset = sizeof(node_header) + capacity * sizeof(key_type);

  [[nodiscard]] unsigned entries() const noexcept {
    return std::min<unsigned>(count.load(std::memory_order_relaxed), capacity);
  }
  // Position of the first key >= `key`.
  [[nodiscard]] unsigned lower_bound(key_type key) const noexcept {
    return search<false>(keys, entries(), key);
  }
  // The index holding `key`, or capacity when absent.
  [[nodiscard]] unsigned find(key_type key) const noexcept {
    const unsigned position = lower_bound(key);
    return position < entries() && keys[position].load(std::memory_order_relaxed) == key ? position : capacity;
  }
  // The cache line of values[index], as a line of this node (for prefetch masks).
  [[nodiscard]] static constexpr unsigned value_line(unsigned index) noexcept {
    return static_cast<unsigned>((values_offset + index * sizeof(value_type)) / cache_line_bytes);
  }
};

struct inner_node : node_header {
  static constexpr unsigned capacity = 59;  // separator keys; children: capacity + 1

  inner_node(node_kind node_type, std::uint8_t node_level) noexcept : node_header(node_type, node_level) {}

  alignas(64) std::atomic<key_type> keys[capacity];     // from the second line on
  std::atomic<std::uint64_t> children[capacity + 1];  // resource_ptr bits

  [[nodiscard]] unsigned entries() const noexcept {
    return std::min<unsigned>(count.load(std::memory_order_relaxed), capacity);
  }
  [[nodiscard]] unsigned child_index(key_type key) const noexcept {
    return search<true>(keys, entries(), key);
  }
  [[nodiscard]] resource_ptr child(unsigned index) const noexcept {
    return resource_ptr::from_bits(children[index].load(std::memory_order_relaxed));
  }
  [[nodiscard]] resource_ptr child_for(key_type key) const noexcept { return child(child_index(key)); }
};

// Where a search for `key` goes from `node`: its right sibling, or a child; null at the leaf
// that holds the key's range.
inline resource_ptr next_hop(const node_header& node, key_type key) noexcept {
  if (node.must_move_right(key)) return node.right_sibling();
  if (node.is_leaf()) return {};
  return static_cast<const inner_node&>(node).child_for(key);
}

static_assert(sizeof(leaf_node) == node_bytes);
static_assert(sizeof(inner_node) <= node_bytes);

}  // namespace braid::detail::blink_tree
