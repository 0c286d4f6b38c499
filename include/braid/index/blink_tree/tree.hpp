// blink_tree: a B-link tree of 8-byte keys and values in 1 KiB nodes (fan-out 60), the
// demonstrator of MxTasking's dissertation Ch. 5, driven three ways over the same nodes:
//
//  - as tasks (blink_tree/tasks.hpp): one descriptor per operation, re-annotated with every
//    node it visits, so the runtime prefetches each node a few tasks ahead and wraps the
//    node's primitive around each step (inner nodes: optimistic reads, writers scheduled to
//    the owner; leaves: OLFIT);
//  - by plain threads (find / insert / insert_or_assign / update / erase / scan below):
//    optimistic lock coupling, the in-run baseline;
//  - as one coroutine source, `lookup<M>`, run sequentially, interleaved on a thread, or as
//    tasks through the coroutine bridge (M = tasks::on_runtime).
// One form at a time: the task form's scheduled writers do not take the version latch that
// the thread form's writers take.
//
// Structure: inner nodes above branch nodes above leaves (node.hpp). Insert splits a full
// node (upper half to a new right sibling, linked before the separator is known to the
// parent) and inserts the separator one level up: the thread form at once, the task form in
// a separate task. The root splits synchronously, inside its writer's critical section, so a
// level never lacks a parent. Every search re-checks the high key and moves right. Deleting
// a key never merges nodes, so no node is freed while the tree lives: no reclamation needed.
//
// Writes speak the index protocol: `insert` adds an absent key and leaves a present one as it
// is, `insert_or_assign` adds or overwrites, `erase` removes; each reports what it did.
//
// Layer: the nodes are task-runtime resources (their latch and version words are the
// runtime's, and every node is annotated with an owner worker and a primitive), so the whole
// tree is the task form of an index in DESIGN's sense and includes tasks/; nothing in
// core/ or the other indexes depends on it. Nodes and their helpers live in
// braid::detail::blink_tree.
//
// Complexity: O(log_60 n) node visits per operation; memory ~1 KiB per 42 keys under random
// inserts (nodes ~70 % full), from 2 MiB-page arenas.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <concepts>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "braid/core/coro.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/huge_buffer.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/prefetch.hpp"
#include "braid/index/blink_tree/node.hpp"
#include "braid/index/detail/multi_find.hpp"
#include "braid/tasks/coroutine_bridge.hpp"  // tasks::on_runtime, the mode of the lookup as tasks
#include "braid/tasks/prefetch_descriptor.hpp"
#include "braid/tasks/runtime.hpp"

namespace braid {

// Node parts a traversal prefetches (dissertation Fig. 5.2): none, the header line, the header
// and half the keys (binary search starts in the middle), all keys, or the whole node.
enum class blink_tree_node_part : std::uint8_t { none, header, half_keys, all_keys, whole_node };
const char* to_string(blink_tree_node_part part) noexcept;
tasks::prefetch_descriptor blink_tree_prefetch(blink_tree_node_part part, tasks::prefetch_temporality temporality) noexcept;

struct blink_tree_options {
  // Synchronization: by default from the dissertation's annotations (root: excessive access;
  // inner and branch nodes: high frequency, heavy reads -> writers scheduled to the owner,
  // optimistic readers; leaves: normal frequency, balanced -> OLFIT). Or one primitive for all.
  std::optional<tasks::primitive> inner_protocol{};
  std::optional<tasks::primitive> leaf_protocol{};
  // Task form prefetches: traversals and lookups the header plus half the keys,
  // non-temporal; writers half the node (all keys) with write intent; lookups and updates
  // read the value in a second step that prefetches exactly the value's line.
  tasks::prefetch_descriptor traversal_prefetch =
      blink_tree_prefetch(blink_tree_node_part::half_keys, tasks::prefetch_temporality::non_temporal);
  tasks::prefetch_descriptor insert_prefetch =
      tasks::prefetch_descriptor::bytes(detail::blink_tree::node_bytes / 2, tasks::prefetch_temporality::write);
  bool value_step = true;
};

class blink_tree : public detail::multi_find_member<blink_tree, detail::blink_tree::key_type,
                                                    std::optional<detail::blink_tree::value_type>> {
 public:
  using key_type = detail::blink_tree::key_type;
  using value_type = detail::blink_tree::value_type;
  using resource_ptr = tasks::resource_ptr;
  using prefetch_descriptor = tasks::prefetch_descriptor;
  static constexpr std::size_t node_bytes = detail::blink_tree::node_bytes;
  // Hint of the interleaved lookups unless told otherwise: non-temporal, as the task form's
  // traversals and the request drivers prefetch (a node is read once per descent).
  static constexpr prefetch_hint default_prefetch_hint = prefetch_hint::nta;
  static constexpr const char* structure_name = "blink_tree";

  // What check() found.
  struct consistency_report {
    bool ok = true;
    std::vector<std::string> problems;  // the first few, each naming the node and the rule
    std::size_t keys = 0;
    std::vector<std::size_t> nodes_per_level;  // leaves first
    [[nodiscard]] std::string describe() const;
  };

  // `owner` assigns each node an owner worker and a primitive; the tree keeps no other tie
  // to it and may be used by threads alone.
  explicit blink_tree(tasks::runtime& owner, blink_tree_options options = {});
  blink_tree(const blink_tree&) = delete;
  blink_tree& operator=(const blink_tree&) = delete;
  ~blink_tree();

  // ---- plain operations: any thread, concurrently (optimistic lock coupling) -------------
  [[nodiscard]] std::optional<value_type> find(key_type key) const;
  // Adds the key if it is absent; true when it did. A present key keeps its value.
  bool insert(key_type key, value_type value);
  // Adds the key, or replaces the value of a present one; true when it added, false when it
  // overwrote.
  bool insert_or_assign(key_type key, value_type value);
  // Replaces the value of an existing key; false when absent.
  bool update(key_type key, value_type value);
  // Removes the key; false when absent. Nodes are never merged.
  bool erase(key_type key);
  struct scan_summary {
    std::uint32_t count = 0;
    value_type checksum = 0;  // sum of the values seen
  };
  // Up to `limit` entries with keys >= `from`, ascending (appended to `out` when given).
  scan_summary scan(key_type from, std::uint32_t limit, std::vector<std::pair<key_type, value_type>>* out = nullptr) const;
  // The protocol's scan: visit(key, value) for up to `limit` entries with keys >= `start`,
  // ascending; returns how many. The entries are collected under the leaves' versions first,
  // then visited.
  template <class Visit>
    requires std::invocable<Visit&, key_type, value_type>
  std::size_t scan(key_type start, std::size_t limit, Visit&& visit) const {
    std::vector<std::pair<key_type, value_type>> entries;
    scan(start, static_cast<std::uint32_t>(std::min<std::size_t>(limit, std::numeric_limits<std::uint32_t>::max())), &entries);
    for (const auto& [key, value] : entries) visit(key, value);
    return entries.size();
  }

  // ---- the lookup, written once ----------------------------------------------------------
  // sequential: the plain descent; interleaved: prefetch + suspend at every node;
  // tasks::on_runtime: every node a task step. Validates each node read itself.
  template <execution_mode M>
  coro<std::optional<value_type>> lookup(key_type key) const;
  // multi_find(keys, out, technique, group) (from multi_find_member): naive, coro or
  // adaptive on the calling thread; the task forms run through the task runtime instead.

  // ---- between runs (no operation in flight) -----------------------------------------------
  // Empties the tree, keeping its arenas (already faulted in) for the next fill.
  void clear();
  // Pre-allocates arenas for `nodes` nodes, so that a timed fill does not fault memory in.
  void reserve(std::size_t nodes);
  // The task form's prefetch hints (the node-part experiment changes them between runs).
  void set_prefetch(prefetch_descriptor traversal, prefetch_descriptor insert, bool value_step) noexcept {
    options_.traversal_prefetch = traversal;
    options_.insert_prefetch = insert;
    options_.value_step = value_step;
  }

  // ---- introspection ---------------------------------------------------------------------
  [[nodiscard]] resource_ptr root() const noexcept { return resource_ptr::from_bits(root_.load(std::memory_order_acquire)); }
  [[nodiscard]] unsigned height() const noexcept { return root().as<detail::blink_tree::node_header>()->level + 1u; }
  [[nodiscard]] std::size_t node_count() const noexcept { return nodes_.load(std::memory_order_relaxed); }
  [[nodiscard]] std::size_t memory_bytes() const noexcept { return node_count() * node_bytes; }
  [[nodiscard]] std::string describe_pages() const;
  // Quiescent trees only: sorted keys, high keys, sibling chains, parent entries, and (when
  // asked) every key reachable from the root.
  [[nodiscard]] consistency_report check(bool every_key_reachable = true) const;
  [[nodiscard]] const blink_tree_options& options() const noexcept { return options_; }
  [[nodiscard]] tasks::runtime& owner_runtime() const noexcept { return *runtime_; }

  // ---- building blocks of the task form: the caller holds the node exclusively -----------
  struct split {
    key_type separator = 0;
    resource_ptr right{};
    explicit operator bool() const noexcept { return static_cast<bool>(right); }
  };
  struct leaf_write {
    bool inserted = false;
    split grown{};
  };
  // What a write to a present key does: keep its value (insert) or replace it
  // (insert_or_assign).
  enum class if_present : std::uint8_t { keep, assign };
  // Adds the key when absent, splitting a full leaf (the new right leaf is linked before
  // return); a present key is kept or assigned as `present` says. `inserted`: whether it added.
  leaf_write leaf_insert(resource_ptr leaf, key_type key, value_type value, if_present present);
  bool leaf_update(resource_ptr leaf, unsigned index_hint, key_type key, value_type value);
  bool leaf_erase(resource_ptr leaf, key_type key);
  // Inserts a separator and the child right of it; splits a full node.
  split inner_insert(resource_ptr inner, key_type separator, resource_ptr child);
  // If `node` (just split) is the root, puts a new root above it and returns true.
  bool grow_root(resource_ptr node, const split& grown);
  // Separator insertions still running as tasks (a quiescent task form has none).
  void separator_started() noexcept { pending_separators_.fetch_add(1, std::memory_order_relaxed); }
  void separator_finished() noexcept { pending_separators_.fetch_sub(1, std::memory_order_release); }
  [[nodiscard]] std::int64_t pending_separators() const noexcept {
    return pending_separators_.load(std::memory_order_acquire);
  }

 private:
  resource_ptr make_leaf();
  resource_ptr make_inner(std::uint8_t level);
  void* allocate_node();
  // The node each level was left from on the way down: the parent candidates of a split.
  using level_path = std::array<resource_ptr, 32>;
  resource_ptr locked_leaf_for(key_type key, level_path& path);
  void insert_separator_locked(level_path& path, unsigned level, split grown);
  bool insert_locked(key_type key, value_type value, if_present present);

  tasks::runtime* runtime_;
  blink_tree_options options_;
  std::atomic<std::uint64_t> root_{0};
  std::atomic<std::size_t> nodes_{0};
  std::atomic<std::int64_t> pending_separators_{0};

  std::mutex arena_mutex_;
  std::vector<huge_buffer> arenas_;
  std::size_t current_arena_ = 0;  // arenas_[current_arena_] is being carved
  std::size_t arena_used_ = 0;
};

// ---- the coroutine lookup -----------------------------------------------------------------

template <execution_mode M>
coro<std::optional<blink_tree::value_type>> blink_tree::lookup(key_type key) const {
  using namespace detail::blink_tree;
  constexpr std::size_t traversal_bytes = sizeof(node_header) + inner_node::capacity / 2 * sizeof(key_type);
  resource_ptr current = root();
  for (;;) {
    const node_header& node = co_await fetch_lines<M>(current.as<const node_header>(), traversal_bytes);
    const std::uint64_t version = node.stable_version();
    if (node.must_move_right(key)) {
      const resource_ptr next = node.right_sibling();
      if (node.validate(version)) current = next;
      continue;
    }
    if (!node.is_leaf()) {
      const resource_ptr child = static_cast<const inner_node&>(node).child_for(key);
      if (node.validate(version)) current = child;
      continue;
    }
    const auto& leaf = static_cast<const leaf_node&>(node);
    const unsigned index = leaf.find(key);
    if (index == leaf_node::capacity) {
      if (node.validate(version)) co_return std::nullopt;
      continue;
    }
    // Named first: GCC 12 cannot call a member on a co_await expression directly.
    const std::atomic<value_type>& slot = co_await fetch<M>(&leaf.values[index]);
    const value_type value = slot.load(std::memory_order_relaxed);
    if (node.validate(version)) co_return value;
  }
}

}  // namespace braid
