// eytzinger_array: sorted keys in the Eytzinger (breadth-first) layout, searched one at a time
// with prefetching (Khuong and Morin, "Array Layouts for Comparison-Based Searching", 2017) or
// many at a time interleaved.
//
//   braid::eytzinger_array<std::int64_t> array(keys);          // any order; duplicates dropped
//   std::optional<std::size_t> node = array.find(42);          // the key's node, or nullopt
//   array.multi_find(keys, nodes, braid::technique::coro, 16); // 16 searches in flight
//   std::size_t rank = array.sorted_position(*node);           // its place in sorted order
//
// Layout. Node k (1-based) has children 2k and 2k + 1; an in-order walk of the implicit tree
// visits the keys in sorted order, so a search walks one root-to-leaf path, branch-free. The
// nodes of one level are contiguous, so the first levels share a few cache lines, and the
// 2^d descendants of node k, d = log2(keys per line) levels down, are nodes 2^d·k .. 2^d·k +
// 2^d − 1: one aligned line (the array starts on a line boundary and node 0 is unused).
//
// Lookups, all returning exactly what find() returns (the node holding the key, or nullopt):
//   find(key)                  the plain search that prefetches, at every node, the line of its
//                              descendants d levels down (Khuong and Morin's): the misses of
//                              one search overlap with each other;
//   find_without_prefetch(key) the same loop without the prefetch;
//   lookup<M>(key)             the coroutine: the levels that fit in hot_bytes are walked
//                              without suspending; below them every node is fetched with
//                              fetch<M> (interleaved: prefetch, suspend, load) after prefetching
//                              its descendants' line d levels down, so each search keeps its
//                              own look-ahead and the other searches fill its waits;
//   find_group_prefetching, find_amac   the hand-written comparators, the same steps;
//   find_on_fiber(context, key)         the same walk on a stackful fiber;
//   multi_find(keys, out, technique, group)   a batch, in input order (naive, gp, amac, coro,
//                              fiber, adaptive).
//
// Complexity: O(log n) nodes per search, about log n − log(hot levels' nodes) of them in
// distinct lines; memory (n + 1) · sizeof(Key) bytes. sorted_position(node) is O(log² n), for
// checks and for callers that need ranks.
//
// Invariants: nodes_[1..n] hold the distinct keys in breadth-first order of the complete tree
// of n nodes; nodes_[0] is unused. Known limits: built once, immutable; lookups are const and
// may run concurrently.
#pragma once

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "braid/core/coro.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/fiber.hpp"
#include "braid/core/input_stream.hpp"
#include "braid/core/huge_buffer.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/prefetch.hpp"
#include "braid/core/radix_sort.hpp"
#include "braid/index/detail/batch_arguments.hpp"
#include "braid/index/detail/lookup_techniques.hpp"
#include "braid/index/technique.hpp"

namespace braid {

template <std::totally_ordered Key>
  requires std::is_trivially_copyable_v<Key> && std::is_trivially_default_constructible_v<Key> &&
           (cache_line_bytes % sizeof(Key) == 0)
class eytzinger_array : public detail::multi_find_member<eytzinger_array<Key>, Key, std::optional<std::size_t>> {
 public:
  using key_type = Key;
  using result_type = std::optional<std::size_t>;

  static constexpr prefetch_hint default_prefetch_hint = prefetch_hint::t0;
  static constexpr const char* structure_name = "eytzinger_array";
  static constexpr std::size_t keys_per_line = cache_line_bytes / sizeof(Key);
  // The levels whose nodes fit in this many bytes stay in the caches between searches: the
  // interleaved searches walk them without suspending.
  static constexpr std::size_t default_hot_bytes = std::size_t{64} << 10;

  eytzinger_array() = default;

  // Copies, sorts and deduplicates `keys`. `hot_bytes`: see default_hot_bytes (0: every level
  // suspends, as the tests use it to exercise the interleaved paths on small arrays).
  explicit eytzinger_array(std::span<const Key> keys, page_size pages = page_size::huge_2m,
                           std::size_t hot_bytes = default_hot_bytes) {
    std::vector<Key> sorted(keys.begin(), keys.end());
    sort_keys(std::span(sorted));
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    count_ = sorted.size();
    nodes_ = huge_array<Key>(count_ + 1, pages);
    std::size_t next = 0;
    fill(sorted, next);
    hot_nodes_ = std::min(count_ + 1, std::bit_floor(std::max<std::size_t>(hot_bytes / sizeof(Key), 1)));
    if (hot_bytes == 0) hot_nodes_ = 1;
  }

  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  [[nodiscard]] bool empty() const noexcept { return count_ == 0; }
  [[nodiscard]] std::size_t memory_bytes() const noexcept { return (count_ + 1) * sizeof(Key); }
  [[nodiscard]] std::string describe_pages() const { return nodes_.buffer().describe_pages(); }
  // The key at a node (1 <= node <= size()).
  [[nodiscard]] const Key& operator[](std::size_t node) const noexcept { return nodes_[node]; }

  // ---- lookups ------------------------------------------------------------------------------

  [[nodiscard]] result_type find(const Key& key) const noexcept {
    std::size_t node = 1;
    while (node <= count_) {
      prefetch_descendants<default_prefetch_hint>(node);
      node = step(node, key);
    }
    return found_at(node, key);
  }

  [[nodiscard]] result_type find_without_prefetch(const Key& key) const noexcept {
    std::size_t node = 1;
    while (node <= count_) node = step(node, key);
    return found_at(node, key);
  }

  template <execution_mode M, class Inputs>
  stream_coro<Inputs> lookups(Inputs inputs) const {
    while (const auto input = inputs.next()) {
      const Key& key = input.key;
      std::size_t node = walk_hot_levels(key);
      while (node <= count_) {
        if constexpr (M::suspends) prefetch_descendants<M::hint>(node);
        const Key& probed = co_await fetch<M>(&nodes_[node]);
        node = 2 * node + (probed < key ? 1 : 0);
      }
      inputs.deliver(input, found_at(node, key));
    }
    co_return inputs.finish();
  }

  template <execution_mode M>
  coro<result_type> lookup(Key key) const {
    return lookups<M>(single_input<Key, result_type>(key));
  }

  template <prefetch_hint Hint>
  result_type find_on_fiber(fiber_context& context, const Key& key) const {
    std::size_t node = walk_hot_levels(key);
    while (node <= count_) {
      prefetch_descendants<Hint>(node);
      const Key& probed = fiber_fetch<Hint>(context, &nodes_[node]);
      node = 2 * node + (probed < key ? 1 : 0);
    }
    return found_at(node, key);
  }

  // Groups of `group` searches advance one level per round in lock step: every search
  // prefetches its node (and its descendants' line), then every search takes its step.
  template <prefetch_hint Hint = default_prefetch_hint>
  void find_group_prefetching(std::span<const Key> keys, std::span<result_type> out, std::size_t group) const {
    detail::check_batch_arguments(keys.size(), out.size(), group, "eytzinger_array::find_group_prefetching");
    detail::scratch_array<std::size_t> nodes(std::min(group, keys.size()));
    for (std::size_t first = 0; first < keys.size(); first += group) {
      const std::size_t members = std::min(group, keys.size() - first);
      const Key* key = keys.data() + first;
      for (std::size_t i = 0; i < members; ++i) nodes[i] = walk_hot_levels(key[i]);
      // Every search of a group is at the same level: the tree is complete but for its last
      // level, so they finish in the same round or one apart.
      for (bool any = true; any;) {
        any = false;
        for (std::size_t i = 0; i < members; ++i) {
          if (nodes[i] > count_) continue;
          prefetch_descendants<Hint>(nodes[i]);
          prefetch<Hint>(&nodes_[nodes[i]]);
          any = true;
        }
        for (std::size_t i = 0; i < members; ++i) {
          if (nodes[i] <= count_) nodes[i] = step(nodes[i], key[i]);
        }
      }
      for (std::size_t i = 0; i < members; ++i) out[first + i] = found_at(nodes[i], key[i]);
    }
  }

  // AMAC: a ring of `group` searches, each a state machine of one stage per level (compare
  // the node prefetched by the previous stage, step, prefetch the next node and its
  // descendants' line); a finished search's slot takes the next key at once.
  template <prefetch_hint Hint = default_prefetch_hint>
  void find_amac(std::span<const Key> keys, std::span<result_type> out, std::size_t group) const {
    detail::check_batch_arguments(keys.size(), out.size(), group, "eytzinger_array::find_amac");
    struct state {
      Key key;
      std::size_t node;
      std::size_t index;
    };
    auto prefetch_next = [this](const state& s) {
      if (s.node > count_) return false;
      prefetch_descendants<Hint>(s.node);
      prefetch<Hint>(&nodes_[s.node]);
      return true;
    };
    detail::run_state_machines<state>(
        keys.size(), group,
        [&](state& s, std::size_t index) {
          s.key = keys[index];
          s.index = index;
          s.node = walk_hot_levels(s.key);
          if (prefetch_next(s)) return true;
          out[index] = found_at(s.node, s.key);
          return false;
        },
        [&](state& s) {
          s.node = step(s.node, s.key);
          if (prefetch_next(s)) return true;
          out[s.index] = found_at(s.node, s.key);
          return false;
        });
  }

  // The in-order rank of `node` (1 <= node <= size()): the key's position in sorted order.
  [[nodiscard]] std::size_t sorted_position(std::size_t node) const noexcept {
    std::size_t rank = subtree_size(2 * node);
    for (; node > 1; node /= 2) {
      if (node % 2 == 1) rank += subtree_size(node - 1) + 1;  // a right child: its left sibling's subtree and the parent precede
    }
    return rank;
  }

 private:
  // One level down: left when the node's key is not smaller than `key` (lower-bound search).
  [[nodiscard]] std::size_t step(std::size_t node, const Key& key) const noexcept {
    return 2 * node + (nodes_[node] < key ? 1 : 0);
  }

  // The first levels, the ones that stay cached, walked without prefetch or suspension.
  [[nodiscard]] std::size_t walk_hot_levels(const Key& key) const noexcept {
    std::size_t node = 1;
    while (node < hot_nodes_ && node <= count_) node = step(node, key);
    return node;
  }

  // The line of node's descendants log2(keys_per_line) levels down. It may lie past the array
  // (a prefetch never faults), so the address is formed as an integer.
  template <prefetch_hint Hint>
  void prefetch_descendants(std::size_t node) const noexcept {
    const auto base = reinterpret_cast<std::uintptr_t>(nodes_.data());
    prefetch<Hint>(reinterpret_cast<const void*>(base + node * keys_per_line * sizeof(Key)));
  }

  // The walk fell off the tree below the lower bound of `key`: undo the trailing right turns
  // and the left turn before them to reach it (0 when every key is smaller).
  [[nodiscard]] result_type found_at(std::size_t node, const Key& key) const noexcept {
    node >>= std::countr_one(node) + 1;
    if (node != 0 && nodes_[node] == key) return node;
    return std::nullopt;
  }

  // In-order traversal writes the sorted keys into breadth-first positions; iterative, so a
  // deep tree cannot overflow the stack.
  void fill(const std::vector<Key>& sorted, std::size_t& next) {
    std::vector<std::size_t> path;
    std::size_t node = 1;
    while (node <= count_ || !path.empty()) {
      for (; node <= count_; node *= 2) path.push_back(node);
      node = path.back();
      path.pop_back();
      nodes_[node] = sorted[next++];
      node = 2 * node + 1;
    }
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
  std::size_t count_ = 0;
  std::size_t hot_nodes_ = 1;  // nodes below this index are walked without suspending
};

}  // namespace braid
