// The Eytzinger layout with prefetching: the peer a user would pick instead of interleaving
// binary searches (Khuong & Morin, "Array layouts for comparison-based searching", 2017).
//
// The sorted keys are stored in breadth-first order of the implicit complete binary search
// tree: node k (1-based) has children 2k and 2k + 1, so the top levels share a few cache lines
// and a search walks one root-to-leaf path. The search is branch-free and, at every step,
// prefetches the cache line holding the node's descendants `log2(keys per line)` levels
// down (16 int32 keys per line: 4 levels ahead), so the misses of one search overlap with
// each other instead of with other searches'.
//
// A lookup answers the key's node index in this layout (0 when absent): another
// representation than a sorted position, so the experiment verifies it through
// `sorted_position(node)`, the node's in-order rank (O(log^2 n), used only to check).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "braid/core/huge_buffer.hpp"
#include "braid/core/prefetch.hpp"

namespace braid::bench {

template <class Key>
class eytzinger_layout {
 public:
  static constexpr std::size_t keys_per_line = cache_line_bytes / sizeof(Key);

  // `sorted`: strictly ascending keys.
  eytzinger_layout(std::span<const Key> sorted, page_size pages)
      : nodes_(sorted.size() + 1, pages), count_(sorted.size()) {
    std::size_t next = 0;
    fill(sorted, next, 1);
  }

  [[nodiscard]] std::size_t memory_bytes() const noexcept { return nodes_.size() * sizeof(Key); }

  // The node holding `key`, or nullopt.
  [[nodiscard]] std::optional<std::size_t> find(const Key& key) const noexcept {
    const Key* nodes = nodes_.data();
    const auto base = reinterpret_cast<std::uintptr_t>(nodes);
    std::size_t node = 1;
    while (node <= count_) {
      // Descendants log2(keys_per_line) levels down share one line; the address may lie past
      // the array (a prefetch never faults), so it is formed as an integer.
      prefetch<prefetch_hint::t0>(reinterpret_cast<const void*>(base + node * keys_per_line * sizeof(Key)));
      node = 2 * node + (nodes[node] < key ? 1 : 0);
    }
    // The path went right after the last left turn: undo the trailing right turns and that
    // left turn to reach the lower bound (0 when every key is smaller).
    node >>= std::countr_one(node) + 1;
    if (node != 0 && nodes[node] == key) return node;
    return std::nullopt;
  }

  // In-order rank of `node` (1-based): its position in the sorted order.
  [[nodiscard]] std::size_t sorted_position(std::size_t node) const noexcept {
    std::size_t rank = subtree_size(2 * node);
    for (; node > 1; node /= 2) {
      if (node % 2 == 1) rank += subtree_size(node - 1) + 1;  // right child: the left sibling and the parent precede
    }
    return rank;
  }

 private:
  // In-order traversal writes the sorted keys into breadth-first positions.
  void fill(std::span<const Key> sorted, std::size_t& next, std::size_t node) {
    if (node > count_) return;
    fill(sorted, next, 2 * node);
    nodes_[node] = sorted[next++];
    fill(sorted, next, 2 * node + 1);
  }

  // Nodes in the subtree rooted at `root` of the complete tree of count_ nodes.
  [[nodiscard]] std::size_t subtree_size(std::size_t root) const noexcept {
    std::size_t size = 0;
    for (std::size_t first = root, width = 1; first <= count_; first *= 2, width *= 2) {
      size += std::min(count_, first + width - 1) - first + 1;
    }
    return size;
  }

  huge_array<Key> nodes_;  // nodes_[0] unused
  std::size_t count_;
};

}  // namespace braid::bench
