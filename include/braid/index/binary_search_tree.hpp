// binary_search_tree<Key, Value>: an unbalanced binary search tree with branch-free descent,
// the "binary tree" (BT) index of Cimple (Kiriansky et al., PACT'18).
//
//   braid::binary_search_tree<std::uint64_t, std::uint64_t> tree(keys, values);  // insertion order
//   std::optional<std::uint64_t> v = tree.find(42);
//   tree.multi_find(lookups, results, braid::technique::coro, 16);
//
// Shape: exactly the tree that inserting the keys one after another produces. With keys in
// random order that is a random binary search tree (expected depth about 2 ln n, so about 35
// levels for 32 M keys); sorted input degenerates into a list. Nodes hold key, value and two
// child pointers (32 bytes for 64-bit keys and values: two nodes per cache line, never one
// node across two lines) and are laid out in insertion order in a node arena backed by huge
// pages, so every level of a descent below the cached top is a new cache line.
//
// Invariants:
//  - an in-order walk yields strictly increasing keys: a key is stored at most once, and
//    insert() of a present key leaves the tree unchanged (std::map::insert semantics);
//  - every node reachable from the root is counted by size();
//  - nodes freed by erase() are chained through child[0] and reused by later inserts.
//
// Complexity: find / insert / erase O(depth). The bulk constructor sorts (O(n log n)) and then
// links the tree in O(n) as a Cartesian tree over (key, insertion position), which is the
// same tree n inserts would build, without n dependent descents.
//
// Lookups, all returning exactly what find(key) returns:
//   find(key)                    plain descent with child[key > node.key]: baseline and oracle
//   find_branchy(key)            the same descent with an if/else on the comparison: the other
//                                plain variant (benchmarks compare both and keep the faster)
//   lookup<M>(key)               coro<>; lookup<sequential> is the plain algorithm
//   find_on_fiber<Hint>(ctx, k)  the plain descent yielding on a fiber at each node
//   find_group_prefetching, find_amac   the hand-written comparators (Cimple's static and
//                                dynamic schedules)
//   find_imlp<Hint>(keys, out, group, schedule)   the same lookup generated from the kernel
//                                description kernels/binary_search_tree_find.imlp.cpp
//   multi_find(keys, out, technique, group)
//
// Not thread-safe for writers; any number of concurrent readers is fine.
#pragma once

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "braid/core/coro.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/fiber.hpp"
#include "braid/core/input_stream.hpp"
#include "braid/core/huge_buffer.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/prefetch.hpp"
#include "braid/index/detail/build_arguments.hpp"
#include "braid/index/detail/loads.hpp"
#include "braid/index/detail/multi_find.hpp"
#include "braid/index/detail/ordered_node_arena.hpp"
#include "braid/index/generated/binary_search_tree_find.hpp"
#include "braid/index/technique.hpp"

namespace braid {

template <std::totally_ordered Key = std::uint64_t, class Value = std::uint64_t>
  requires std::is_trivially_copyable_v<Key> && std::is_trivially_copyable_v<Value>
class binary_search_tree : public detail::multi_find_member<binary_search_tree<Key, Value>, Key, std::optional<Value>> {
 public:
  using key_type = Key;
  using mapped_type = Value;
  static constexpr prefetch_hint default_prefetch_hint = prefetch_hint::t0;  // nodes are reused: every level
  static constexpr const char* structure_name = "binary_search_tree";
  using result_type = std::optional<Value>;

  struct node {
    Key key;
    Value value;
    node* child[2];  // [0]: keys below `key`, [1]: keys above it
  };
  // Nodes are placed at a multiple of this, so none straddles two cache lines (up to 64 bytes).
  static constexpr std::size_t node_alignment = std::min<std::size_t>(std::bit_ceil(sizeof(node)), cache_line_bytes);
  static constexpr std::size_t node_stride = (sizeof(node) + node_alignment - 1) / node_alignment * node_alignment;

  struct depth_statistics {
    std::size_t max_depth = 0;       // nodes on the longest root-to-leaf path (0: empty)
    double average_depth = 0;        // mean depth of a node, the root at depth 1
  };

  explicit binary_search_tree(page_size pages = page_size::huge_2m) : arena_(pages) {}

  // The tree that inserting (keys[i], values[i]) for i = 0, 1, ... produces; for a repeated key
  // the first pair wins. Throws std::invalid_argument if the spans differ in length.
  binary_search_tree(std::span<const Key> keys, std::span<const Value> values, page_size pages = page_size::huge_2m)
      : arena_(pages) {
    detail::check_same_length(keys.size(), values.size(), "binary_search_tree");
    build_in_insertion_order(keys, values);
  }

  // A moved-from tree is empty.
  binary_search_tree(binary_search_tree&& other) noexcept
      : arena_(std::move(other.arena_)),
        root_(std::exchange(other.root_, nullptr)),
        free_list_(std::exchange(other.free_list_, nullptr)),
        size_(std::exchange(other.size_, 0)) {}
  binary_search_tree& operator=(binary_search_tree&& other) noexcept {
    if (this != &other) {
      arena_ = std::move(other.arena_);
      root_ = std::exchange(other.root_, nullptr);
      free_list_ = std::exchange(other.free_list_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  // Bytes the tree occupies (node arena, free space included).
  [[nodiscard]] std::size_t memory_bytes() const noexcept { return arena_.reserved_bytes(); }
  [[nodiscard]] std::string describe_pages() const { return arena_.describe_pages(); }

  // Inserts (key, value) unless key is present; returns whether it inserted.
  bool insert(const Key& key, const Value& value) {
    node** link = &root_;
    while (*link != nullptr) {
      node* current = *link;
      if (current->key == key) return false;
      link = &current->child[key > current->key];
    }
    *link = new_node(key, value);
    ++size_;
    return true;
  }

  // Removes key if present; returns whether it did. A node with two children takes its in-order
  // successor's pair, and the successor's node is freed instead.
  bool erase(const Key& key) {
    node** link = &root_;
    while (*link != nullptr && (*link)->key != key) link = &(*link)->child[key > (*link)->key];
    node* doomed = *link;
    if (doomed == nullptr) return false;
    if (doomed->child[0] != nullptr && doomed->child[1] != nullptr) {
      node** successor_link = &doomed->child[1];
      while ((*successor_link)->child[0] != nullptr) successor_link = &(*successor_link)->child[0];
      node* successor = *successor_link;
      doomed->key = successor->key;
      doomed->value = successor->value;
      *successor_link = successor->child[1];
      free_node(successor);
    } else {
      *link = doomed->child[doomed->child[0] == nullptr ? 1 : 0];
      free_node(doomed);
    }
    --size_;
    return true;
  }

  void clear() noexcept {
    arena_.clear();
    root_ = free_list_ = nullptr;
    size_ = 0;
  }

  // ---- lookups ------------------------------------------------------------------------------

  [[nodiscard]] std::optional<Value> find(const Key& key) const { return descend(key, detail::plain_load{}); }

  [[nodiscard]] std::optional<Value> find_branchy(const Key& key) const {
    const node* current = root_;
    while (current != nullptr) {
      if (key < current->key) {
        current = current->child[0];
      } else if (current->key < key) {
        current = current->child[1];
      } else {
        return current->value;
      }
    }
    return std::nullopt;
  }

  [[nodiscard]] bool contains(const Key& key) const { return find(key).has_value(); }

  // The coroutine lookup: one suspension per node below the root when M interleaves.
  template <execution_mode M, class Inputs>
  stream_coro<Inputs> lookups(Inputs inputs) const {
    while (const auto input = inputs.next()) {
      std::optional<Value> result;
      const node* current = root_;
      while (current != nullptr) {
        const node& visited = co_await fetch<M>(current);
        if (visited.key == input.key) {
          result = visited.value;
          break;
        }
        current = visited.child[input.key > visited.key];
      }
      inputs.deliver(input, result);
    }
    co_return inputs.finish();
  }

  template <execution_mode M>
  coro<std::optional<Value>> lookup(Key key) const {
    return lookups<M>(single_input<Key, std::optional<Value>>(key));
  }

  template <prefetch_hint Hint = default_prefetch_hint>
  [[nodiscard]] std::optional<Value> find_on_fiber(fiber_context& context, const Key& key) const {
    return descend(key, detail::fiber_line_load<Hint>{context});
  }

  // Group prefetching: groups of `group` lookups descend in lock step, one level per round;
  // a finished lookup's slot idles until its whole group is done (Cimple's static schedule).
  template <prefetch_hint Hint = default_prefetch_hint>
  void find_group_prefetching(std::span<const Key> keys, std::span<std::optional<Value>> out, std::size_t group) const {
    detail::check_batch_arguments(keys.size(), out.size(), group, "binary_search_tree::find_group_prefetching");
    std::vector<const node*> cursor(std::min(group, keys.size()));
    for (std::size_t base = 0; base < keys.size(); base += group) {
      const std::size_t width = std::min(group, keys.size() - base);
      // Invariant: cursor[i] is the next node of lookup base + i (prefetched), or null once
      // that lookup has written its result.
      std::size_t unfinished = 0;
      for (std::size_t i = 0; i < width; ++i) {
        cursor[i] = root_;
        if (root_ == nullptr) out[base + i] = std::nullopt;
        else ++unfinished;
      }
      while (unfinished > 0) {
        for (std::size_t i = 0; i < width; ++i) {
          const node* current = cursor[i];
          if (current == nullptr) continue;
          const Key& key = keys[base + i];
          if (current->key == key) {
            out[base + i] = current->value;
            cursor[i] = nullptr;
            --unfinished;
            continue;
          }
          const node* next = current->child[key > current->key];
          cursor[i] = next;
          if (next == nullptr) {
            out[base + i] = std::nullopt;
            --unfinished;
          } else {
            prefetch<Hint>(next);
          }
        }
      }
    }
  }

  // AMAC: a ring of `group` hand-written state machines (one node pointer each), visited
  // round-robin; a finished lookup's slot takes the next key at once (Cimple's dynamic schedule).
  template <prefetch_hint Hint = default_prefetch_hint>
  void find_amac(std::span<const Key> keys, std::span<std::optional<Value>> out, std::size_t group) const {
    detail::check_batch_arguments(keys.size(), out.size(), group, "binary_search_tree::find_amac");
    struct slot {
      const node* current;  // prefetched, not yet examined; null: the descent fell off the tree
      std::size_t index;    // input index, or `idle` once the input is exhausted
    };
    constexpr std::size_t idle = static_cast<std::size_t>(-1);
    std::vector<slot> ring(std::min(group, keys.size()));
    std::size_t next_input = 0;
    for (slot& s : ring) s = {root_, next_input++};
    std::size_t active = ring.size();
    while (active > 0) {
      for (slot& s : ring) {
        if (s.index == idle) continue;
        const Key& key = keys[s.index];
        if (const node* current = s.current; current != nullptr) {
          if (current->key != key) {
            s.current = current->child[key > current->key];
            if (s.current != nullptr) {
              prefetch<Hint>(s.current);
              continue;
            }
            out[s.index] = std::nullopt;
          } else {
            out[s.index] = current->value;
          }
        } else {
          out[s.index] = std::nullopt;
        }
        if (next_input < keys.size()) {
          s = {root_, next_input++};  // the root is hot: no prefetch needed
        } else {
          s.index = idle;
          --active;
        }
      }
    }
  }

  // The generated IMLP lookup (find_imlp, from detail/multi_find.hpp): its kernel, shared arguments.
  template <prefetch_hint Hint> using imlp_kernel = imlp_kernels::binary_search_tree_find<Hint, node, Key, Value>;
  template <class Kernel> typename Kernel::shared_args imlp_shared() const noexcept { return {root_}; }

  // ---- ordered traversal --------------------------------------------------------------------

  // Calls visit(key, value) for up to `limit` entries with key >= start, in key order; returns
  // how many it visited.
  template <class Visitor>
  std::size_t scan(const Key& start, std::size_t limit, Visitor&& visit) const {
    std::vector<const node*> pending;  // ancestors still to visit, nearest on top
    for (const node* current = root_; current != nullptr;) {
      if (current->key < start) {
        current = current->child[1];
      } else {
        pending.push_back(current);
        current = current->child[0];
      }
    }
    std::size_t visited = 0;
    while (visited < limit && !pending.empty()) {
      const node* current = pending.back();
      pending.pop_back();
      visit(current->key, current->value);
      ++visited;
      for (const node* below = current->child[1]; below != nullptr; below = below->child[0]) pending.push_back(below);
    }
    return visited;
  }

  // Calls visit(key, value) for every entry in key order.
  template <class Visitor>
  void for_each(Visitor&& visit) const {
    if (root_ == nullptr) return;
    scan(minimum_key(), size_, visit);
  }

  // Calls visit(node, depth) for every node in preorder (root at depth 1): exposes the shape, for
  // tests that compare two trees node by node.
  template <class Visitor>
  void for_each_node_preorder(Visitor&& visit) const {
    std::vector<std::pair<const node*, std::size_t>> pending;
    if (root_ != nullptr) pending.emplace_back(root_, 1);
    while (!pending.empty()) {
      auto [current, depth] = pending.back();
      pending.pop_back();
      visit(*current, depth);
      for (const node* child : {current->child[1], current->child[0]}) {
        if (child != nullptr) pending.emplace_back(child, depth + 1);
      }
    }
  }

  [[nodiscard]] depth_statistics depths() const {
    depth_statistics statistics;
    double depth_sum = 0;
    for_each_node_preorder([&](const node&, std::size_t depth) {
      statistics.max_depth = std::max(statistics.max_depth, depth);
      depth_sum += static_cast<double>(depth);
    });
    if (size_ > 0) statistics.average_depth = depth_sum / static_cast<double>(size_);
    return statistics;
  }

  // Throws std::logic_error if the in-order walk is not strictly increasing or does not count
  // size() nodes.
  void check_invariants() const {
    std::size_t counted = 0;
    std::optional<Key> previous;
    for_each_node_in_order([&](const node& current) {
      if (previous && !(*previous < current.key)) {
        throw std::logic_error("binary_search_tree: in-order keys not strictly increasing at position " +
                               std::to_string(counted));
      }
      previous = current.key;
      ++counted;
    });
    if (counted != size_) {
      throw std::logic_error("binary_search_tree: " + std::to_string(counted) + " reachable nodes but size() is " +
                             std::to_string(size_));
    }
  }

 private:
  template <class Load>
  std::optional<Value> descend(const Key& key, Load load) const {
    const node* current = root_;
    while (current != nullptr) {
      const node& visited = load(current);
      if (visited.key == key) return visited.value;
      current = visited.child[key > visited.key];
    }
    return std::nullopt;
  }

  template <class Visitor>
  void for_each_node_in_order(Visitor&& visit) const {
    std::vector<const node*> pending;
    for (const node* current = root_; current != nullptr || !pending.empty();) {
      while (current != nullptr) {
        pending.push_back(current);
        current = current->child[0];
      }
      current = pending.back();
      pending.pop_back();
      visit(*current);
      current = current->child[1];
    }
  }

  [[nodiscard]] Key minimum_key() const {
    const node* current = root_;
    while (current->child[0] != nullptr) current = current->child[0];
    return current->key;
  }

  node* new_node(const Key& key, const Value& value) {
    node* fresh = free_list_;
    if (fresh != nullptr) {
      free_list_ = fresh->child[0];
    } else {
      fresh = reinterpret_cast<node*>(arena_.allocate(node_stride, node_alignment));
    }
    return std::construct_at(fresh, node{key, value, {nullptr, nullptr}});
  }

  void free_node(node* doomed) noexcept {
    doomed->child[0] = free_list_;
    doomed->child[1] = nullptr;
    free_list_ = doomed;
  }

  // Bulk load. Inserting keys in a given order builds the Cartesian tree of the keys with the
  // insertion position as (min-heap) priority; the position is also where insertion would place
  // the node in the arena. So: sort (key, position), drop repeated keys (keeping the first
  // position), place node i at arena slot i, and link the Cartesian tree in one sweep over the
  // keys in order, with a stack of the rightmost path.
  void build_in_insertion_order(std::span<const Key> keys, std::span<const Value> values) {
    if (keys.empty()) return;
    const std::vector<detail::key_position<Key>> by_key = detail::first_positions_by_key(keys);

    // Arena slot of each kept position: its rank among the kept positions.
    std::vector<std::size_t> slot_of_position;
    if (by_key.size() != keys.size()) {
      std::vector<unsigned char> kept(keys.size(), 0);
      for (const auto& entry : by_key) kept[entry.position] = 1;
      slot_of_position.resize(keys.size());
      std::size_t rank = 0;
      for (std::size_t position = 0; position < keys.size(); ++position) {
        slot_of_position[position] = rank;
        rank += kept[position];
      }
    }

    arena_.reserve(by_key.size() * node_stride);
    std::byte* slots = arena_.allocate(by_key.size() * node_stride, node_alignment);
    std::vector<node*> rightmost_path;  // priorities (slot addresses) increasing upwards
    for (const auto& [key, position] : by_key) {
      const std::size_t slot = slot_of_position.empty() ? position : slot_of_position[position];
      node* current = std::construct_at(reinterpret_cast<node*>(slots + slot * node_stride),
                                        node{key, values[position], {nullptr, nullptr}});
      node* last_popped = nullptr;
      while (!rightmost_path.empty() && rightmost_path.back() > current) {
        last_popped = rightmost_path.back();
        rightmost_path.pop_back();
      }
      current->child[0] = last_popped;
      if (!rightmost_path.empty()) rightmost_path.back()->child[1] = current;
      rightmost_path.push_back(current);
    }
    root_ = rightmost_path.front();
    size_ = by_key.size();
  }

  detail::ordered_node_arena arena_;
  node* root_ = nullptr;
  node* free_list_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace braid
