// bplus_tree<Key, Value, NodeBytes>: an ordered map as a B+-tree, braid's general ordered index.
//
//   braid::bplus_tree<std::uint64_t, std::uint64_t, 256> index;      // 4-line nodes
//   index.insert(7, 70);  index.erase(7);  index.find(7);
//   index.scan(100, 1000, [](std::uint64_t key, std::uint64_t value) { ... });
//   index.multi_find(keys, results, braid::technique::coro, 16);     // interleaved lookups
//
// Nodes are NodeBytes: a multiple of the 64-byte line (1, 2, 4 ... lines) or 4096, a page,
// which is also the node alignment then, so one node is one page (the thesis's page-sized-node
// index: a lookup misses the TLB at most once per level). An inner node holds up to
// inner_capacity separator keys and one more child pointer; a leaf holds up to leaf_capacity
// (key, value) pairs, keys first, and a pointer to the next leaf. Nodes come from a node arena
// (huge pages for big trees) and are recycled through a free list.
//
// Invariants (check_invariants() verifies every one):
//  - all leaves are at the same depth, height() levels below and including the root;
//  - keys are strictly increasing inside a node and along the leaf chain, which links every
//    leaf from the smallest key to the largest;
//  - in an inner node, every key under child i lies in [key i-1, key i) (a separator may be a
//    key that was erased since: it still bounds its neighbours correctly);
//  - fill: a non-root leaf holds at least min_leaf_entries = ceil(leaf_capacity / 2) pairs, a
//    non-root inner node at least min_inner_keys = ceil((inner_capacity + 1) / 2) - 1 keys; an
//    inner root has at least 1 key, a leaf root at least 1 pair. Erase restores the bound by
//    borrowing from a sibling or merging with it (the merged node fits: 2 * min - 1 <= capacity).
//
// Complexity: find, insert, erase O(height) node visits, height = O(log_fanout n); a scan of m
// entries O(height + m / leaf_capacity) nodes; bulk load O(n).
//
// Searching a node: nodes of at most 512 bytes are fetched whole (fetch_lines: every line
// prefetched before one suspension) and searched with a branch-free linear count; larger
// nodes are searched with a branch-free binary search that fetches (suspends on) each probe
// while the candidate range spans more than one line, then the last line or two at once, and
// the child pointer or value (in another line) separately.
//
// Lookups, all returning exactly what find(key) returns:
//   find(key)                      plain descent: the baseline and the oracle
//   lookup<M>(key)                 coro<>: the whole lookup flattened into one frame
//   lookup_nested<M>(key)          task<>: one task per helper level (lookup_nested ->
//                                  descend_to_leaf -> child_of -> node search), the shape
//                                  CoroBase measured against flattening
//   find_on_fiber<Hint>            the stackful comparator
//   multi_find(keys, out, technique, group)   naive, coro (flattened), coro_nested (the nested
//                                  tasks), fiber, adaptive
//   scan / scan_coroutine / multi_scan        range scans along the leaf chain (the scan
//                                  coroutine is a task<> reusing the nested descent)
// No group-prefetching or AMAC version: the papers have none for the B+-tree.
//
// Not thread-safe for writers; any number of concurrent readers is fine.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
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
#include "braid/core/input_stream.hpp"
#include "braid/core/huge_buffer.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/prefetch.hpp"
#include "braid/core/scheduler.hpp"
#include "braid/core/task.hpp"
#include "braid/index/detail/build_arguments.hpp"
#include "braid/index/detail/multi_scan.hpp"
#include "braid/index/detail/ordered_node_arena.hpp"
#include "braid/index/technique.hpp"

namespace braid {

template <std::totally_ordered Key = std::uint64_t, class Value = std::uint64_t, std::size_t NodeBytes = 256>
  requires std::is_trivially_copyable_v<Key> && std::is_trivially_copyable_v<Value> &&
           (NodeBytes % cache_line_bytes == 0) && (NodeBytes > 0)
class bplus_tree : public detail::multi_find_member<bplus_tree<Key, Value, NodeBytes>, Key, std::optional<Value>>,
                  public detail::multi_scan_member<bplus_tree<Key, Value, NodeBytes>, Key> {
 public:
  using key_type = Key;
  using mapped_type = Value;
  static constexpr prefetch_hint default_prefetch_hint = prefetch_hint::t0;  // nodes are reused: every level
  static constexpr const char* structure_name = "bplus_tree";

  static constexpr std::size_t node_bytes = NodeBytes;
  // Page-sized nodes are page-aligned (one node, one page); others are line-aligned.
  static constexpr std::size_t node_alignment = NodeBytes >= 4096 ? 4096 : cache_line_bytes;
  static constexpr std::size_t inner_header_bytes = 8;
  static constexpr std::size_t leaf_header_bytes = 16;
  static constexpr std::size_t inner_capacity = (NodeBytes - inner_header_bytes - sizeof(void*)) / (sizeof(Key) + sizeof(void*));
  static constexpr std::size_t leaf_capacity = (NodeBytes - leaf_header_bytes) / (sizeof(Key) + sizeof(Value));
  static constexpr std::size_t min_leaf_entries = (leaf_capacity + 1) / 2;
  static constexpr std::size_t min_inner_keys = (inner_capacity + 2) / 2 - 1;
  // Nodes up to this size are fetched whole; larger ones probe by probe.
  static constexpr bool fetches_whole_nodes = NodeBytes <= 512;
  static_assert(inner_capacity >= 3 && leaf_capacity >= 2, "NodeBytes too small for these key and value types");

  struct alignas(node_alignment) inner_node {
    std::uint32_t count;  // keys; children are count + 1
    std::uint32_t unused;
    Key keys[inner_capacity];
    void* children[inner_capacity + 1];  // inner_node* above the leaf level, leaf_node* at it
  };
  struct alignas(node_alignment) leaf_node {
    std::uint32_t count;
    std::uint32_t unused;
    leaf_node* next;  // the leaf with the next larger keys; null for the last
    Key keys[leaf_capacity];
    Value values[leaf_capacity];
  };
  static_assert(sizeof(inner_node) == std::max(NodeBytes, node_alignment) &&
                sizeof(leaf_node) == std::max(NodeBytes, node_alignment));

  using scan_request = detail::scan_request<Key>;

  explicit bplus_tree(page_size pages = page_size::huge_2m) : arena_(pages) {}

  // Bulk load from strictly increasing keys: leaves and inner nodes filled to `fill` of their
  // capacity (0.5 <= fill <= 1; never below the minimum fill), leaves contiguous in memory in
  // key order. Throws std::invalid_argument for unsorted or repeated keys, a length mismatch
  // or a fill outside [0.5, 1].
  bplus_tree(std::span<const Key> sorted_keys, std::span<const Value> values, page_size pages = page_size::huge_2m,
             double fill = 1.0)
      : arena_(pages) {
    detail::check_same_length(sorted_keys.size(), values.size(), "bplus_tree");
    if (!(fill >= 0.5 && fill <= 1.0)) throw std::invalid_argument("bplus_tree: fill must be in [0.5, 1]");
    detail::check_strictly_increasing(sorted_keys, "bplus_tree");
    bulk_load(sorted_keys, values, fill);
  }

  // A moved-from tree is empty.
  bplus_tree(bplus_tree&& other) noexcept
      : arena_(std::move(other.arena_)),
        root_(std::exchange(other.root_, nullptr)),
        height_(std::exchange(other.height_, 0)),
        size_(std::exchange(other.size_, 0)),
        free_nodes_(std::exchange(other.free_nodes_, nullptr)) {}
  bplus_tree& operator=(bplus_tree&& other) noexcept {
    if (this != &other) {
      arena_ = std::move(other.arena_);
      root_ = std::exchange(other.root_, nullptr);
      height_ = std::exchange(other.height_, 0);
      size_ = std::exchange(other.size_, 0);
      free_nodes_ = std::exchange(other.free_nodes_, nullptr);
    }
    return *this;
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  // Levels from the root to the leaves (0: empty; 1: the root is a leaf).
  [[nodiscard]] std::size_t height() const noexcept { return height_; }
  [[nodiscard]] std::size_t memory_bytes() const noexcept { return arena_.reserved_bytes(); }
  [[nodiscard]] std::string describe_pages() const { return arena_.describe_pages(); }

  void clear() noexcept {
    arena_.clear();
    root_ = nullptr;
    free_nodes_ = nullptr;
    height_ = size_ = 0;
  }

  // ---- updates ------------------------------------------------------------------------------

  // Inserts (key, value) unless key is present; returns whether it inserted.
  bool insert(const Key& key, const Value& value) { return insert_or_update(key, value, false); }

  // Inserts (key, value), or overwrites the value of a present key; returns whether it inserted.
  bool insert_or_assign(const Key& key, const Value& value) { return insert_or_update(key, value, true); }

  // Removes key if present; returns whether it did. Underfull nodes borrow from or merge with a
  // sibling, up to the root; a root left with one child is replaced by it.
  bool erase(const Key& key) {
    if (root_ == nullptr) return false;
    path_type path;
    leaf_node* leaf = descend_recording(key, path);
    const std::size_t position = entry_position(leaf->keys, leaf->count, key);
    if (position == leaf->count || !(leaf->keys[position] == key)) return false;
    shift_left(leaf->keys, position, leaf->count);
    shift_left(leaf->values, position, leaf->count);
    --leaf->count;
    --size_;
    if (height_ == 1) {
      if (leaf->count == 0) {
        free_node(leaf);
        root_ = nullptr;
        height_ = 0;
      }
      return true;
    }
    if (leaf->count >= min_leaf_entries) return true;
    rebalance_leaf(leaf, path[height_ - 2]);
    for (std::size_t level = height_ - 1; level-- > 0;) {  // inner levels, deepest first
      inner_node* node = path[level].node;
      if (level == 0) {
        if (node->count == 0) {  // the root lost its last separator: its one child is the root now
          root_ = node->children[0];
          free_node(node);
          --height_;
        }
        break;
      }
      if (node->count >= min_inner_keys) break;
      rebalance_inner(node, path[level - 1]);
    }
    return true;
  }

  // ---- lookups ------------------------------------------------------------------------------

  [[nodiscard]] std::optional<Value> find(const Key& key) const { return descend(key, plain_access{}); }
  [[nodiscard]] bool contains(const Key& key) const { return find(key).has_value(); }

  // The flattened lookup: the whole descent and both node searches in one coroutine frame.
  template <execution_mode M, class Inputs>
  stream_coro<Inputs> lookups(Inputs inputs) const {
    while (const auto input = inputs.next()) {
      const Key& key = input.key;
      if (root_ == nullptr) {
        inputs.deliver(input, std::nullopt);
        continue;
      }
      const void* current = root_;
      for (std::size_t level = 1; level < height_; ++level) {
        const auto* inner = static_cast<const inner_node*>(current);
        if constexpr (fetches_whole_nodes) {
          const inner_node& node = co_await fetch_lines<M>(inner);
          current = node.children[child_slot(node.keys, node.count, key)];
        } else {
          const inner_node& header = co_await fetch<M>(inner);
          // The binary search, suspending on every probe while the range spans lines.
          key_search<true> search(inner->keys, header.count);
          while (search.narrowing()) search.step(co_await fetch<M>(search.probe()), key);
          co_await fetch_lines<M>(search.rest(), search.rest_bytes());
          current = co_await fetch<M>(&inner->children[search.position(key)]);
        }
      }
      const auto* leaf = static_cast<const leaf_node*>(current);
      std::optional<Value> result;
      if constexpr (fetches_whole_nodes) {
        result = value_in(co_await fetch_lines<M>(leaf), key);
      } else {
        const leaf_node& header = co_await fetch<M>(leaf);
        const std::uint32_t count = header.count;
        key_search<false> search(leaf->keys, count);
        while (search.narrowing()) search.step(co_await fetch<M>(search.probe()), key);
        co_await fetch_lines<M>(search.rest(), search.rest_bytes());
        const std::size_t position = search.position(key);
        if (position != count && leaf->keys[position] == key) result = co_await fetch<M>(&leaf->values[position]);
      }
      inputs.deliver(input, std::move(result));
    }
    co_return inputs.finish();
  }

  template <execution_mode M>
  coro<std::optional<Value>> lookup(Key key) const {
    return lookups<M>(single_input<Key, std::optional<Value>>(key));
  }

  // The nested lookup: each helper is its own task<> (see the header comment).
  template <execution_mode M>
  task<std::optional<Value>> lookup_nested(Key key) const {
    if (root_ == nullptr) co_return std::nullopt;
    const leaf_node* leaf = co_await descend_to_leaf<M>(key);
    co_return co_await search_leaf<M>(leaf, key);
  }

  template <prefetch_hint Hint = default_prefetch_hint>
  [[nodiscard]] std::optional<Value> find_on_fiber(fiber_context& context, const Key& key) const {
    return descend(key, fiber_access<Hint>{context});
  }

  // ---- range scans --------------------------------------------------------------------------

  // Calls visit(key, value) for up to `limit` entries with key >= start, in key order, along the
  // leaf chain; returns how many it visited. An rvalue visitor is moved into the scan (see
  // owns_visitor); an lvalue one is called in place.
  template <class Visitor>
  std::size_t scan(const Key& start, std::size_t limit, Visitor&& visit) const {
    return scan_with(start, limit, std::forward<Visitor>(visit), plain_access{});
  }

  // The scan as a coroutine: a task<> that reuses the nested lookup's descent (a scan is
  // dominated by its walk), then suspends once per leaf of the walk. Small leaves are fetched
  // whole; of a page-sized leaf only the header and the first line of values, the rest is read
  // in order and left to the hardware prefetcher.
  template <execution_mode M, class Visitor>
  task<std::size_t> scan_coroutine(Key start, std::size_t limit, Visitor visit) const {
    if (root_ == nullptr || limit == 0) co_return 0;
    const leaf_node* leaf = co_await descend_to_leaf<M>(start);
    std::size_t position = 0;
    if constexpr (fetches_whole_nodes) {
      const leaf_node& node = co_await fetch_lines<M>(leaf);
      position = entry_position(node.keys, node.count, start);
    } else {
      const leaf_node& header = co_await fetch<M>(leaf);
      const std::uint32_t count = header.count;
      position = co_await search_keys<M, false>(leaf->keys, count, start);
    }
    std::size_t visited = visit_entries(*leaf, position, 0, limit, visit);
    for (const leaf_node* next = leaf->next; visited < limit && next != nullptr; next = leaf->next) {
      if constexpr (fetches_whole_nodes) {
        leaf = &co_await fetch_lines<M>(next);
      } else {
        if constexpr (M::suspends) prefetch<M::hint>(&next->values[0]);
        leaf = &co_await fetch<M>(next);
      }
      visited = visit_entries(*leaf, 0, visited, limit, visit);
    }
    co_return visited;
  }

  template <prefetch_hint Hint = default_prefetch_hint, class Visitor>
  std::size_t scan_on_fiber(fiber_context& context, const Key& start, std::size_t limit, Visitor&& visit) const {
    return scan_with(start, limit, std::forward<Visitor>(visit), fiber_access<Hint>{context});
  }

  // Calls visit(key, value) for every entry in key order.
  template <class Visitor>
  void for_each(Visitor&& visit) const {
    if (root_ != nullptr) scan_with(leftmost_key(), size_, visit, plain_access{});
  }

  // ---- structure ----------------------------------------------------------------------------

  struct shape {
    std::size_t inner_nodes = 0;
    std::size_t leaves = 0;
    double leaf_fill = 0;  // entries / (leaves * leaf_capacity)
  };

  [[nodiscard]] shape describe_shape() const {
    shape result;
    if (root_ == nullptr) return result;
    walk([&](const void*, std::size_t level) {
      if (level + 1 == height_) ++result.leaves;
      else ++result.inner_nodes;
    });
    result.leaf_fill = static_cast<double>(size_) / static_cast<double>(result.leaves * leaf_capacity);
    return result;
  }

  // Throws std::logic_error naming the first broken invariant (see the header comment).
  void check_invariants() const {
    auto fail = [](const std::string& what) { throw std::logic_error("bplus_tree: " + what); };
    if (root_ == nullptr) {
      if (height_ != 0 || size_ != 0) fail("empty root but height or size set");
      return;
    }
    struct pending {
      const void* node;
      std::size_t level;
      std::optional<Key> low, high;  // low <= key < high
    };
    std::vector<pending> stack = {{root_, 0, std::nullopt, std::nullopt}};
    std::vector<const leaf_node*> leaves_in_order;
    std::size_t counted = 0;
    auto within = [](const Key& key, const pending& bounds) {
      return (!bounds.low || !(key < *bounds.low)) && (!bounds.high || key < *bounds.high);
    };
    while (!stack.empty()) {
      const pending current = stack.back();
      stack.pop_back();
      if (current.level + 1 == height_) {
        const auto* leaf = static_cast<const leaf_node*>(current.node);
        if (leaf->count > leaf_capacity) fail("leaf over capacity");
        if (current.level > 0 && leaf->count < min_leaf_entries) fail("leaf under the minimum fill");
        if (leaf->count == 0) fail("empty leaf");
        for (std::size_t i = 0; i < leaf->count; ++i) {
          if (i > 0 && !(leaf->keys[i - 1] < leaf->keys[i])) fail("leaf keys not strictly increasing");
          if (!within(leaf->keys[i], current)) fail("leaf key outside its separators");
        }
        counted += leaf->count;
        leaves_in_order.push_back(leaf);
        continue;
      }
      const auto* inner = static_cast<const inner_node*>(current.node);
      if (inner->count > inner_capacity) fail("inner node over capacity");
      if (current.level > 0 && inner->count < min_inner_keys) fail("inner node under the minimum fill");
      if (current.level == 0 && inner->count == 0) fail("inner root without keys");
      for (std::size_t i = 0; i < inner->count; ++i) {
        if (i > 0 && !(inner->keys[i - 1] < inner->keys[i])) fail("separators not strictly increasing");
        if (!within(inner->keys[i], current)) fail("separator outside its parent's range");
      }
      for (std::size_t child = inner->count + 1; child-- > 0;) {  // pushed right to left: popped in key order
        if (inner->children[child] == nullptr) fail("null child");
        stack.push_back({inner->children[child], current.level + 1,
                         child == 0 ? current.low : std::optional<Key>(inner->keys[child - 1]),
                         child == inner->count ? current.high : std::optional<Key>(inner->keys[child])});
      }
    }
    if (counted != size_) fail("leaves hold " + std::to_string(counted) + " entries, size() is " + std::to_string(size_));
    for (std::size_t i = 0; i < leaves_in_order.size(); ++i) {
      const leaf_node* expected_next = i + 1 < leaves_in_order.size() ? leaves_in_order[i + 1] : nullptr;
      if (leaves_in_order[i]->next != expected_next) fail("leaf chain does not follow key order");
    }
  }

 private:
  static constexpr std::size_t max_height = 64;
  static constexpr std::size_t keys_per_line = cache_line_bytes / sizeof(Key) > 0 ? cache_line_bytes / sizeof(Key) : 1;

  struct path_step {
    inner_node* node;
    std::size_t child;  // which child the descent took
  };
  using path_type = std::array<path_step, max_height>;

  // ---- node searches (branch-free) ----

  // The one binary search of a node's keys, as steps between loads, so that every descent
  // (plain, fiber, flat and nested coroutine) runs the same search and differs only in how it
  // loads: while narrowing(), load probe() and step() with it; then fetch the remaining keys
  // [rest(), rest() + rest_bytes()) and count them with position(). Upper counts keys <= key
  // (the child to descend into), otherwise keys < key (where key is or would be). Branch-free;
  // stops at `Stop` keys (a cache line for the searches that fetch, one key in cache).
  template <bool Upper, std::size_t Stop = keys_per_line>
  class key_search {
   public:
    key_search(const Key* keys, std::size_t count) noexcept : keys_(keys), base_(keys), length_(count) {}
    [[nodiscard]] bool narrowing() const noexcept { return length_ > Stop; }
    [[nodiscard]] const Key* probe() const noexcept { return base_ + length_ / 2 - 1; }
    void step(const Key& probed, const Key& key) noexcept {
      const std::size_t half = length_ / 2;
      base_ = below(probed, key, std::bool_constant<Upper>{}) ? base_ + half : base_;
      length_ -= half;
    }
    [[nodiscard]] const Key* rest() const noexcept { return base_; }
    [[nodiscard]] std::size_t rest_bytes() const noexcept { return length_ * sizeof(Key); }
    [[nodiscard]] std::size_t position(const Key& key) const noexcept {
      std::size_t counted = 0;
      for (std::size_t i = 0; i < length_; ++i) counted += static_cast<std::size_t>(below(base_[i], key, std::bool_constant<Upper>{}));
      return static_cast<std::size_t>(base_ - keys_) + counted;
    }

   private:
    const Key* keys_;
    const Key* base_;
    std::size_t length_;
  };

  // Searches of a node in cache: child_slot = keys <= key (the child to descend into),
  // entry_position = keys < key (where key is or would be). A fixed-width masked count the
  // compiler unrolls and vectorizes for small nodes; a branch-free binary search for large ones.
  template <std::size_t Capacity>
  static std::size_t child_slot(const Key (&keys)[Capacity], std::size_t count, const Key& key) noexcept {
    if constexpr (fetches_whole_nodes) {
      std::size_t slot = 0;
      for (std::size_t i = 0; i < Capacity; ++i) slot += static_cast<std::size_t>((i < count) & !(key < keys[i]));
      return slot;
    } else {
      return binary_bound<true>(keys, count, key);
    }
  }
  template <std::size_t Capacity>
  static std::size_t entry_position(const Key (&keys)[Capacity], std::size_t count, const Key& key) noexcept {
    if constexpr (fetches_whole_nodes) {
      std::size_t position = 0;
      for (std::size_t i = 0; i < Capacity; ++i) position += static_cast<std::size_t>((i < count) & (keys[i] < key));
      return position;
    } else {
      return binary_bound<false>(keys, count, key);
    }
  }

  // Branch-free binary search: Upper counts keys <= key, otherwise keys < key.
  template <bool Upper>
  static std::size_t binary_bound(const Key* keys, std::size_t count, const Key& key) noexcept {
    key_search<Upper, 1> search(keys, count);
    while (search.narrowing()) search.step(*search.probe(), key);
    return search.position(key);
  }
  static bool below(const Key& probe, const Key& key, std::true_type) noexcept { return !(key < probe); }
  static bool below(const Key& probe, const Key& key, std::false_type) noexcept { return probe < key; }

  // The value of `key` in a leaf in cache.
  static std::optional<Value> value_in(const leaf_node& leaf, const Key& key) noexcept {
    const std::size_t position = entry_position(leaf.keys, leaf.count, key);
    if (position < leaf.count && leaf.keys[position] == key) return leaf.values[position];
    return std::nullopt;
  }

  // ---- how a plain descent reads memory: directly, or yielding on a fiber ----

  struct plain_access {
    template <class T>
    T& whole(T* node) const noexcept { return *node; }
    template <class T>
    T& one(T* address) const noexcept { return *address; }
    template <class T>
    void lines(T*, std::size_t) const noexcept {}
    void prefetch_only(const void*) const noexcept {}
  };

  template <prefetch_hint Hint>
  struct fiber_access {
    fiber_context& context;
    template <class T>
    T& whole(T* node) const { return fiber_fetch_lines<Hint>(context, node); }
    template <class T>
    T& one(T* address) const { return fiber_fetch<Hint>(context, address); }
    template <class T>
    void lines(T* address, std::size_t bytes) const {
      prefetch_lines<Hint>(address, bytes);
      context.suspend();
    }
    void prefetch_only(const void* address) const noexcept { prefetch<Hint>(address); }
  };

  // The node search of the plain descent, reading through `access`: the same steps as
  // lookup<M>. Upper: the child slot of an inner node; otherwise the entry position in a leaf.
  template <bool Upper, class Node, class Access>
  std::size_t search_with(const Node* node, const Key& key, Access& access) const {
    if constexpr (fetches_whole_nodes) {
      const Node& whole = access.whole(node);
      if constexpr (Upper) return child_slot(whole.keys, whole.count, key);
      else return entry_position(whole.keys, whole.count, key);
    } else {
      key_search<Upper> search(node->keys, access.one(node).count);
      while (search.narrowing()) search.step(access.one(search.probe()), key);
      access.lines(search.rest(), search.rest_bytes());
      return search.position(key);
    }
  }
  template <class Access>
  std::size_t child_slot_with(const inner_node* inner, const Key& key, Access& access) const {
    return search_with<true>(inner, key, access);
  }
  template <class Access>
  std::size_t entry_position_with(const leaf_node* leaf, const Key& key, Access& access) const {
    return search_with<false>(leaf, key, access);
  }

  template <class Access>
  std::optional<Value> descend(const Key& key, Access access) const {
    if (root_ == nullptr) return std::nullopt;
    const leaf_node* leaf = descend_to_leaf_with(key, access);
    const std::size_t position = entry_position_with(leaf, key, access);
    if (position == leaf->count || !(leaf->keys[position] == key)) return std::nullopt;
    if constexpr (fetches_whole_nodes) return leaf->values[position];
    else return access.one(&leaf->values[position]);
  }

  template <class Access>
  const leaf_node* descend_to_leaf_with(const Key& key, Access& access) const {
    const void* current = root_;
    for (std::size_t level = 1; level < height_; ++level) {
      const auto* inner = static_cast<const inner_node*>(current);
      const std::size_t slot = child_slot_with(inner, key, access);
      current = fetches_whole_nodes ? inner->children[slot] : access.one(&inner->children[slot]);
    }
    return static_cast<const leaf_node*>(current);
  }

  // A visitor passed as an rvalue is moved into a local of the scan whose address does not
  // escape (walk_leaves is always inlined), so its captures live in registers. Through a
  // reference, every store the visitor makes may alias them: they are reloaded per entry and
  // the walk is not vectorized (a 1,000-entry scan summing values over 4 KiB leaves: 10,294
  // instructions that way). An lvalue visitor is used in place: its state is the caller's.
  template <class Visitor>
  static constexpr bool owns_visitor =
      !std::is_lvalue_reference_v<Visitor> && std::is_move_constructible_v<std::remove_cvref_t<Visitor>>;

  // The plain (or fiber) scan: the same steps as scan_coroutine.
  template <class Visitor, class Access>
  std::size_t scan_with(const Key& start, std::size_t limit, Visitor&& visit, Access access) const {
    if constexpr (owns_visitor<Visitor>) {
      std::remove_cvref_t<Visitor> local(std::move(visit));
      return walk_leaves(start, limit, local, access);
    } else {
      return walk_leaves(start, limit, visit, access);
    }
  }

  template <class Visitor, class Access>
  [[gnu::always_inline]] std::size_t walk_leaves(const Key& start, std::size_t limit, Visitor& visit, Access access) const {
    if (root_ == nullptr || limit == 0) return 0;
    const leaf_node* leaf = descend_to_leaf_with(start, access);
    std::size_t position = entry_position_with(leaf, start, access);
    std::size_t visited = 0;
    for (;;) {
      visited = visit_entries(*leaf, position, visited, limit, visit);
      const leaf_node* next = leaf->next;
      if (visited == limit || next == nullptr) return visited;
      if constexpr (fetches_whole_nodes) {
        leaf = &access.whole(next);
      } else {
        access.prefetch_only(&next->values[0]);
        leaf = &access.one(next);
      }
      position = 0;
    }
  }

  // The walk of a scan along one leaf: visits its entries from `position` on while `visited`
  // is below `limit`; returns the new count. The trip count is computed once, so the loop is a
  // counted one that the compiler can vectorize together with the visitor (when the visitor's
  // captures are in registers, see owns_visitor).
  template <class Visitor>
  static std::size_t visit_entries(const leaf_node& leaf, std::size_t position, std::size_t visited, std::size_t limit,
                                   Visitor& visit) {
    const std::size_t count = leaf.count;
    if (position >= count) return visited;
    const std::size_t taken = std::min(count - position, limit - visited);  // no overflow for any limit
    for (std::size_t entry = position; entry < position + taken; ++entry) visit(leaf.keys[entry], leaf.values[entry]);
    return visited + taken;
  }

  // ---- the nested lookup's helpers: one task per level of helper function ----

  template <execution_mode M>
  task<const leaf_node*> descend_to_leaf(Key key) const {
    const void* current = root_;
    for (std::size_t level = 1; level < height_; ++level) {
      current = co_await child_of<M>(static_cast<const inner_node*>(current), key);
    }
    co_return static_cast<const leaf_node*>(current);
  }

  template <execution_mode M>
  task<const void*> child_of(const inner_node* inner, Key key) const {
    if constexpr (fetches_whole_nodes) {
      const inner_node& node = co_await fetch_lines<M>(inner);
      co_return node.children[child_slot(node.keys, node.count, key)];
    } else {
      const inner_node& header = co_await fetch<M>(inner);
      const std::uint32_t count = header.count;
      const std::size_t slot = co_await search_keys<M, true>(inner->keys, count, key);
      co_return co_await fetch<M>(&inner->children[slot]);
    }
  }

  template <execution_mode M>
  task<std::optional<Value>> search_leaf(const leaf_node* leaf, Key key) const {
    if constexpr (fetches_whole_nodes) {
      co_return value_in(co_await fetch_lines<M>(leaf), key);
    } else {
      const leaf_node& header = co_await fetch<M>(leaf);
      const std::uint32_t count = header.count;
      const std::size_t position = co_await search_keys<M, false>(leaf->keys, count, key);
      if (position == count || !(leaf->keys[position] == key)) co_return std::nullopt;
      co_return co_await fetch<M>(&leaf->values[position]);
    }
  }

  // The in-node binary search of large nodes as its own task (Upper: keys <= key; otherwise
  // keys < key).
  template <execution_mode M, bool Upper>
  task<std::size_t> search_keys(const Key* keys, std::size_t count, Key key) const {
    key_search<Upper> search(keys, count);
    while (search.narrowing()) search.step(co_await fetch<M>(search.probe()), key);
    co_await fetch_lines<M>(search.rest(), search.rest_bytes());
    co_return search.position(key);
  }

  // ---- updates ----

  leaf_node* descend_recording(const Key& key, path_type& path) const {
    void* current = root_;
    for (std::size_t level = 0; level + 1 < height_; ++level) {
      auto* inner = static_cast<inner_node*>(current);
      const std::size_t slot = child_slot(inner->keys, inner->count, key);
      path[level] = {inner, slot};
      current = inner->children[slot];
    }
    return static_cast<leaf_node*>(current);
  }

  bool insert_or_update(const Key& key, const Value& value, bool overwrite) {
    if (root_ == nullptr) {
      leaf_node* leaf = new_leaf();
      leaf->keys[0] = key;
      leaf->values[0] = value;
      leaf->count = 1;
      root_ = leaf;
      height_ = 1;
      size_ = 1;
      return true;
    }
    path_type path;
    leaf_node* leaf = descend_recording(key, path);
    const std::size_t position = entry_position(leaf->keys, leaf->count, key);
    if (position < leaf->count && leaf->keys[position] == key) {
      if (overwrite) leaf->values[position] = value;
      return false;
    }
    ++size_;
    if (leaf->count < leaf_capacity) {
      shift_right(leaf->keys, position, leaf->count);
      shift_right(leaf->values, position, leaf->count);
      leaf->keys[position] = key;
      leaf->values[position] = value;
      ++leaf->count;
      return true;
    }
    // Split: the leaf_capacity + 1 entries go ceil / floor to the leaf and a new right sibling.
    std::array<Key, leaf_capacity + 1> all_keys;
    std::array<Value, leaf_capacity + 1> all_values;
    std::copy_n(leaf->keys, position, all_keys.begin());
    std::copy_n(leaf->values, position, all_values.begin());
    all_keys[position] = key;
    all_values[position] = value;
    std::copy(leaf->keys + position, leaf->keys + leaf_capacity, all_keys.begin() + static_cast<std::ptrdiff_t>(position) + 1);
    std::copy(leaf->values + position, leaf->values + leaf_capacity,
              all_values.begin() + static_cast<std::ptrdiff_t>(position) + 1);
    constexpr std::size_t left_count = (leaf_capacity + 2) / 2;
    leaf_node* right = new_leaf();
    std::copy_n(all_keys.begin(), left_count, leaf->keys);
    std::copy_n(all_values.begin(), left_count, leaf->values);
    std::copy(all_keys.begin() + left_count, all_keys.end(), right->keys);
    std::copy(all_values.begin() + left_count, all_values.end(), right->values);
    leaf->count = left_count;
    right->count = leaf_capacity + 1 - left_count;
    right->next = leaf->next;
    leaf->next = right;
    insert_into_parent(path, height_ - 1, right->keys[0], right);
    return true;
  }

  // Adds (separator, right) after the child the descent took at `level` - 1 of the path (the
  // parent of the node that split at `level`), splitting inner nodes up to a new root if full.
  void insert_into_parent(path_type& path, std::size_t level, Key separator, void* right) {
    while (level > 0) {
      inner_node* parent = path[level - 1].node;
      const std::size_t slot = path[level - 1].child;  // the split node is children[slot]
      if (parent->count < inner_capacity) {
        shift_right(parent->keys, slot, parent->count);
        shift_right(parent->children, slot + 1, parent->count + 1);
        parent->keys[slot] = separator;
        parent->children[slot + 1] = right;
        ++parent->count;
        return;
      }
      // Split the full parent: inner_capacity + 1 keys; the middle one moves up.
      std::array<Key, inner_capacity + 1> all_keys;
      std::array<void*, inner_capacity + 2> all_children;
      std::copy_n(parent->keys, slot, all_keys.begin());
      all_keys[slot] = separator;
      std::copy(parent->keys + slot, parent->keys + inner_capacity, all_keys.begin() + static_cast<std::ptrdiff_t>(slot) + 1);
      std::copy_n(parent->children, slot + 1, all_children.begin());
      all_children[slot + 1] = right;
      std::copy(parent->children + slot + 1, parent->children + inner_capacity + 1,
                all_children.begin() + static_cast<std::ptrdiff_t>(slot) + 2);
      constexpr std::size_t left_keys = (inner_capacity + 1) / 2;
      inner_node* sibling = new_inner();
      std::copy_n(all_keys.begin(), left_keys, parent->keys);
      std::copy_n(all_children.begin(), left_keys + 1, parent->children);
      std::copy(all_keys.begin() + left_keys + 1, all_keys.end(), sibling->keys);
      std::copy(all_children.begin() + left_keys + 1, all_children.end(), sibling->children);
      parent->count = left_keys;
      sibling->count = inner_capacity - left_keys;
      separator = all_keys[left_keys];
      right = sibling;
      --level;
    }
    // The root split: a new root above it.
    if (height_ >= max_height) throw std::length_error("bplus_tree: height limit reached");
    inner_node* root = new_inner();
    root->count = 1;
    root->keys[0] = separator;
    root->children[0] = root_;
    root->children[1] = right;
    root_ = root;
    ++height_;
  }

  // `leaf` (child `step.child` of `step.node`) holds min_leaf_entries - 1 pairs.
  void rebalance_leaf(leaf_node* leaf, path_step step) {
    inner_node* parent = step.node;
    const std::size_t slot = step.child;
    if (slot > 0) {
      auto* left = static_cast<leaf_node*>(parent->children[slot - 1]);
      if (left->count > min_leaf_entries) {  // borrow the left sibling's largest pair
        shift_right(leaf->keys, 0, leaf->count);
        shift_right(leaf->values, 0, leaf->count);
        leaf->keys[0] = left->keys[left->count - 1];
        leaf->values[0] = left->values[left->count - 1];
        ++leaf->count;
        --left->count;
        parent->keys[slot - 1] = leaf->keys[0];
        return;
      }
    }
    if (slot < parent->count) {
      auto* right = static_cast<leaf_node*>(parent->children[slot + 1]);
      if (right->count > min_leaf_entries) {  // borrow the right sibling's smallest pair
        leaf->keys[leaf->count] = right->keys[0];
        leaf->values[leaf->count] = right->values[0];
        ++leaf->count;
        shift_left(right->keys, 0, right->count);
        shift_left(right->values, 0, right->count);
        --right->count;
        parent->keys[slot] = right->keys[0];
        return;
      }
      if (slot == 0) {  // no left sibling: merge the right one into this leaf
        merge_leaves(leaf, right);
        remove_from_inner(parent, slot, slot + 1);
        return;
      }
    }
    merge_leaves(static_cast<leaf_node*>(parent->children[slot - 1]), leaf);
    remove_from_inner(parent, slot - 1, slot);
  }

  void merge_leaves(leaf_node* left, leaf_node* right) {
    std::copy_n(right->keys, right->count, left->keys + left->count);
    std::copy_n(right->values, right->count, left->values + left->count);
    left->count += right->count;
    left->next = right->next;
    free_node(right);
  }

  // `node` (child `step.child` of `step.node`) holds min_inner_keys - 1 keys.
  void rebalance_inner(inner_node* node, path_step step) {
    inner_node* parent = step.node;
    const std::size_t slot = step.child;
    if (slot > 0) {
      auto* left = static_cast<inner_node*>(parent->children[slot - 1]);
      if (left->count > min_inner_keys) {  // rotate through the parent from the left
        shift_right(node->keys, 0, node->count);
        shift_right(node->children, 0, node->count + 1);
        node->keys[0] = parent->keys[slot - 1];
        node->children[0] = left->children[left->count];
        ++node->count;
        parent->keys[slot - 1] = left->keys[left->count - 1];
        --left->count;
        return;
      }
    }
    if (slot < parent->count) {
      auto* right = static_cast<inner_node*>(parent->children[slot + 1]);
      if (right->count > min_inner_keys) {  // rotate through the parent from the right
        node->keys[node->count] = parent->keys[slot];
        node->children[node->count + 1] = right->children[0];
        ++node->count;
        parent->keys[slot] = right->keys[0];
        shift_left(right->keys, 0, right->count);
        shift_left(right->children, 0, right->count + 1);
        --right->count;
        return;
      }
      if (slot == 0) {
        merge_inner(node, parent->keys[slot], right);
        remove_from_inner(parent, slot, slot + 1);
        return;
      }
    }
    merge_inner(static_cast<inner_node*>(parent->children[slot - 1]), parent->keys[slot - 1], node);
    remove_from_inner(parent, slot - 1, slot);
  }

  // left := left, separator, right (the separator comes down from the parent).
  void merge_inner(inner_node* left, const Key& separator, inner_node* right) {
    left->keys[left->count] = separator;
    std::copy_n(right->keys, right->count, left->keys + left->count + 1);
    std::copy_n(right->children, right->count + 1, left->children + left->count + 1);
    left->count += right->count + 1;
    free_node(right);
  }

  static void remove_from_inner(inner_node* node, std::size_t key_index, std::size_t child_index) noexcept {
    shift_left(node->keys, key_index, node->count);
    shift_left(node->children, child_index, node->count + 1);
    --node->count;
  }

  // Opens a hole at `position` in elements[0, count): [position, count) moves up by one.
  template <class T>
  static void shift_right(T* elements, std::size_t position, std::size_t count) noexcept {
    std::copy_backward(elements + position, elements + count, elements + count + 1);
  }
  // Closes the hole at `position`: (position, count) moves down by one.
  template <class T>
  static void shift_left(T* elements, std::size_t position, std::size_t count) noexcept {
    std::copy(elements + position + 1, elements + count, elements + position);
  }

  // ---- nodes ----

  void* allocate_node() {
    if (free_nodes_ != nullptr) {
      void* recycled = free_nodes_;
      free_nodes_ = *static_cast<void**>(recycled);
      return recycled;
    }
    return arena_.allocate(sizeof(inner_node), node_alignment);
  }
  leaf_node* new_leaf() {
    return std::construct_at(static_cast<leaf_node*>(allocate_node()), leaf_node{0, 0, nullptr, {}, {}});
  }
  inner_node* new_inner() { return std::construct_at(static_cast<inner_node*>(allocate_node()), inner_node{0, 0, {}, {}}); }
  void free_node(void* node) noexcept {
    *static_cast<void**>(node) = free_nodes_;
    free_nodes_ = node;
  }

  // Calls visit(node, level) for every node, root first (level 0).
  template <class Visitor>
  void walk(Visitor&& visit) const {
    std::vector<std::pair<const void*, std::size_t>> stack = {{root_, 0}};
    while (!stack.empty()) {
      const auto [node, level] = stack.back();
      stack.pop_back();
      visit(node, level);
      if (level + 1 < height_) {
        const auto* inner = static_cast<const inner_node*>(node);
        for (std::size_t child = 0; child <= inner->count; ++child) stack.emplace_back(inner->children[child], level + 1);
      }
    }
  }

  [[nodiscard]] Key leftmost_key() const {
    const void* current = root_;
    for (std::size_t level = 1; level < height_; ++level) current = static_cast<const inner_node*>(current)->children[0];
    return static_cast<const leaf_node*>(current)->keys[0];
  }

  // Number of nodes for `items` at `target` per node that keeps every node >= minimum (an even
  // split of items over the nodes; see the fill invariant).
  static std::size_t nodes_for(std::size_t items, std::size_t target, std::size_t minimum) noexcept {
    std::size_t nodes = (items + target - 1) / target;
    while (nodes > 1 && items / nodes < minimum) --nodes;
    return nodes;
  }
  static std::size_t even_split(std::size_t items, std::size_t parts, std::size_t part) noexcept {
    return items / parts * part + std::min(part, items % parts);
  }

  void bulk_load(std::span<const Key> keys, std::span<const Value> values, double fill) {
    const std::size_t n = keys.size();
    if (n == 0) return;
    const auto leaf_target = std::max<std::size_t>(static_cast<std::size_t>(static_cast<double>(leaf_capacity) * fill), min_leaf_entries);
    const auto child_target =
        std::max<std::size_t>(static_cast<std::size_t>(static_cast<double>(inner_capacity + 1) * fill), min_inner_keys + 1);
    const std::size_t leaves = nodes_for(n, leaf_target, min_leaf_entries);
    // Every node of the tree is allocated in one run: leaves first, in key order.
    std::size_t total = leaves;
    for (std::size_t level_nodes = leaves; level_nodes > 1;) {
      level_nodes = nodes_for(level_nodes, child_target, min_inner_keys + 1);
      total += level_nodes;
    }
    arena_.reserve(total * sizeof(inner_node));

    std::vector<void*> level(leaves);
    std::vector<Key> smallest(leaves);
    leaf_node* previous = nullptr;
    for (std::size_t i = 0; i < leaves; ++i) {
      const std::size_t begin = even_split(n, leaves, i);
      const std::size_t end = even_split(n, leaves, i + 1);
      leaf_node* leaf = new_leaf();
      leaf->count = static_cast<std::uint32_t>(end - begin);
      std::copy(keys.begin() + static_cast<std::ptrdiff_t>(begin), keys.begin() + static_cast<std::ptrdiff_t>(end), leaf->keys);
      std::copy(values.begin() + static_cast<std::ptrdiff_t>(begin), values.begin() + static_cast<std::ptrdiff_t>(end),
                leaf->values);
      if (previous != nullptr) previous->next = leaf;
      previous = leaf;
      level[i] = leaf;
      smallest[i] = keys[begin];
    }
    height_ = 1;
    while (level.size() > 1) {
      const std::size_t parents = nodes_for(level.size(), child_target, min_inner_keys + 1);
      std::vector<void*> parent_level(parents);
      std::vector<Key> parent_smallest(parents);
      for (std::size_t i = 0; i < parents; ++i) {
        const std::size_t begin = even_split(level.size(), parents, i);
        const std::size_t end = even_split(level.size(), parents, i + 1);
        inner_node* inner = new_inner();
        inner->count = static_cast<std::uint32_t>(end - begin - 1);
        for (std::size_t child = begin; child < end; ++child) {
          inner->children[child - begin] = level[child];
          if (child > begin) inner->keys[child - begin - 1] = smallest[child];
        }
        parent_level[i] = inner;
        parent_smallest[i] = smallest[begin];
      }
      level = std::move(parent_level);
      smallest = std::move(parent_smallest);
      ++height_;
    }
    root_ = level.front();
    size_ = n;
  }

  detail::ordered_node_arena arena_;
  void* root_ = nullptr;  // inner_node* when height_ > 1, leaf_node* when height_ == 1
  std::size_t height_ = 0;
  std::size_t size_ = 0;
  void* free_nodes_ = nullptr;  // recycled nodes, chained through their first word
};

}  // namespace braid
