// masstree: a concurrent ordered index over variable-length binary keys, built the way
// Masstree is (Mao, Kohler, Morris, "Cache Craftiness for Fast Multicore Key-Value Storage",
// EuroSys 2012) — the Masstree of the "Killer Nanoseconds" experiments (Jonathan et al.,
// PVLDB 2018, §4.1) and the index of CoroBase's engine (Chen et al., PVLDB 2021).
//
//   braid::masstree<std::uint64_t> tree;
//   tree.put("user:42", 7);                                    // insert or update
//   std::optional<std::uint64_t> v = tree.find("user:42");     // the plain get
//   tree.multi_find(keys, results, braid::technique::coro, 32);   // 32 flat gets in flight
//   tree.scan("user:", [](std::string_view key, std::uint64_t value) { ...; return true; });
//
// Structure. A trie with 8-byte fanout: layer 0 is a B+-tree over the first 8 bytes of every
// key (its "slice"); keys that share their first 8 bytes and go on beyond them continue in a
// layer-1 B+-tree over bytes 8..15, and so on. A key that is alone with its slice keeps its
// remaining bytes as an out-of-line suffix, so a layer is created only when a second long key
// with the same slice arrives. Border (leaf) nodes hold 12 keys, interior nodes 15 separators:
// everything a reader touches fits in a node's first four cache lines, and a node is
// prefetched whole (those four lines, as Masstree prefetches its nodes) before it is read.
// A new layer's root starts as a small border node of 4 keys (two lines; most layers of
// short keys hold two or three keys for good) and grows into a full one when it fills. A
// border node's suffixes are packed in one block (its suffix bag, as Masstree's stringbag).
// A full node made from keys whose suffixes are short (a split's right half, a grown layer
// root) keeps its first bag inline, in three lines right after its slots, as Masstree keeps
// suffixes in its border nodes; interior nodes count such children, and where most children
// have one a reader prefetches a child with its bag (seven lines), so comparing a suffix
// costs no fetch of its own (a bag that outgrew its node is fetched on its own, as before).
// Border nodes keep their keys in unordered slots listed in order by a one-word permutation,
// and link to their right neighbour.
//
// Concurrency (Masstree's protocol, see masstree/node.hpp for the version word):
//  - get is latch-free: it reads a node's stable version, reads, and re-checks the version;
//    descending, it reads the child's version before re-checking the parent's (hand over hand).
//    A changed border node is re-read; one that split is left by the right links.
//  - put and remove lock only the border node they change; a split keeps the splitting node
//    locked and marked while it locks the parent to insert the new separator (hand over hand,
//    always child before parent, so writers cannot deadlock). Nothing ever suspends while
//    holding a lock: the coroutine forms suspend only during the optimistic descent.
//  - memory is reclaimed by epochs (detail/epoch_domain.hpp): key suffixes that a remove or a
//    new layer replaces are retired, never freed under a reader. Every operation pins in its
//    own frame (a suspended get keeps its epoch pinned; see the domain's header for why that
//    does not hold reclamation back).
//  - a scan reads one border node at a time, validated; it sees every key that is present for
//    its whole duration, and concurrent inserts and removes possibly or not (as Masstree).
//
// Lookups, all returning exactly what find() returns:
//   find(key)               the plain get: the point probe driven without a coroutine
//                           frame, nodes prefetched whole one at a time (Masstree's
//                           unmodified get); put, insert and remove likewise;
//   lookup<M>(key)          the flat get: one coroutine frame for the whole descent, layers
//                           and right-link walks inlined (CoroBase's two-level design, its
//                           "flattened" level); technique::coro. It drives point_probe
//                           (masstree/point_probe.hpp), which other layers' operations drive
//                           in their own frames;
//   lookup_nested<M>(key)   the natural helper structure (get -> find_in_layer -> reach_leaf /
//                           advance_to_slice) as nested task<>s, suspending after every node
//                           prefetch (the mechanical conversion of "Killer Nanoseconds");
//                           technique::coro_nested;
//   multi_find(keys, out, technique, group)   a batch, in input order (no gp, amac or fiber).
// Writes: insert / insert_or_assign / erase as every index has them (reporting what they did);
// Masstree's put(key, value) (insert or update; returns the value it replaced) and remove(key)
// (returns the value it removed); put_flat<M> / put_nested<M> / remove_flat<M> descend with
// suspensions like the gets and then change the border node under its lock without suspending.
// scan(from, visit) visits keys >= from in order.
//
// Complexity: get, put and remove take O(L · log₁₅ n) node visits for a key of L slices;
// a put that splits locks O(height) nodes. Memory: about 30 bytes per 8-byte key at the
// fill random inserts leave (border nodes ~70% full); for keys a few bytes longer than a
// slice, add the suffix bag (128-192 bytes per border node; an inline bag that its node
// outgrew stays with the node) and two lines per layer of keys that share a slice
// (braid-bench masstree-strings reports bytes per key).
//
// Known limits: removing keys never frees nodes or layers (an emptied border node stays in
// its tree and keeps its key range; memory of removed keys' suffixes is reclaimed). Values
// are trivially copyable and at most 8 bytes (a row id, a pointer); they are read atomically,
// so a get never returns a torn value. Keys passed to the coroutine forms must outlive them.
// The destructor requires that no other thread uses the tree.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <concepts>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "braid/core/coro.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/huge_buffer.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/prefetch.hpp"
#include "braid/core/scheduler.hpp"
#include "braid/core/task.hpp"
#include "braid/index/detail/batch_arguments.hpp"
#include "braid/index/detail/epoch_domain.hpp"
#include "braid/index/detail/multi_find.hpp"
#include "braid/index/masstree/descent.hpp"
#include "braid/index/masstree/node.hpp"
#include "braid/index/masstree/point_probe.hpp"

namespace braid {

// The plain algorithm without Masstree's whole-node prefetch: an execution mode for measuring
// what that prefetch buys the plain get (nodes are then read line by line as the search
// touches them).
struct sequential_without_node_prefetch {
  static constexpr bool suspends = false;
  static constexpr const char* name = "sequential-without-node-prefetch";
};

template <class Value = std::uint64_t>
class masstree : public detail::multi_find_member<masstree<Value>, std::string_view, std::optional<Value>> {
  static_assert(std::is_trivially_copyable_v<Value> && sizeof(Value) <= 8,
                "masstree values are trivially copyable and at most 8 bytes (stored in one atomic word)");

  using node_base = detail::masstree::node_base;
  using border_node = detail::masstree::border_node;
  using interior_node = detail::masstree::interior_node;
  using node_version = detail::masstree::node_version;
  using permutation = detail::masstree::permutation;
  using key_cursor = detail::masstree::key_cursor;
  using suffix_bag = detail::masstree::suffix_bag;
  using version_word = node_version::word;
  static constexpr int border_width = detail::masstree::border_width;
  static constexpr int interior_width = detail::masstree::interior_width;
  static constexpr std::size_t prefetched_bytes = detail::masstree::prefetched_bytes;

 public:
  using key_type = std::string_view;
  using mapped_type = Value;
  static constexpr prefetch_hint default_prefetch_hint = prefetch_hint::t0;  // nodes are reused: every level
  static constexpr const char* structure_name = "masstree";
  using result_type = std::optional<Value>;

  explicit masstree(page_size pages = page_size::huge_2m) : domain_(pages) {
    root_.store(new_border(node_version::root_bit, 0, border_width), std::memory_order_release);
  }
  masstree(const masstree&) = delete;
  masstree& operator=(const masstree&) = delete;
  // Every node and suffix lives in the epoch domain's arena and goes with it.
  ~masstree() = default;

  // ---- lookups ---------------------------------------------------------------------------------

  // The plain get: the value of `key`, or nullopt.
  [[nodiscard]] std::optional<Value> find(std::string_view key) const { return run_plain(key, lookup_action{}); }

  // The get as one flat coroutine (CoroBase's flattened operation): the point probe driven
  // node by node, suspending at every node fetch when M interleaves.
  template <execution_mode M>
  [[nodiscard]] coro<std::optional<Value>> lookup(std::string_view key) const {
    return operate_flat<M>(key, lookup_action{});
  }

  // The get as a state machine, for operations of other layers that inline the probe into
  // their own coroutine frame (masstree/point_probe.hpp). fetch_node<M>(probe.next(),
  // probe.next_bytes()) is its fetch: it prefetches the lines a reader touches (a node's four,
  // seven with its inline suffix bag when its parent's hint says it has one; a bag's four) and
  // suspends if the mode interleaves (the plain get prefetches too, as Masstree's baseline
  // does, except in the ablation mode that measures what that buys).
  using point_probe = detail::masstree::point_probe<masstree>;
  template <execution_mode M>
  static auto fetch_node(const void* node, std::size_t bytes) noexcept {
    if constexpr (M::suspends) {
      prefetch_node<M::hint>(node, bytes);
      return yield_point<M>();
    } else {
      if constexpr (!std::is_same_v<M, sequential_without_node_prefetch>) prefetch_node<prefetch_hint::t0>(node, bytes);
      return std::suspend_never{};
    }
  }

  // Prefetches the first `bytes` of a node or bag: a node's four lines, or seven with its inline bag.
  template <prefetch_hint Hint>
  static void prefetch_node(const void* node, std::size_t bytes) noexcept {
    if (bytes == prefetched_bytes) [[likely]] {
      prefetch_lines<prefetched_bytes, Hint>(node);
    } else {
      prefetch_lines<detail::masstree::prefetched_bytes_with_bag, Hint>(node);
    }
  }

  // The get as nested tasks, one per helper function (the mechanical conversion).
  template <execution_mode M>
  [[nodiscard]] task<std::optional<Value>> lookup_nested(std::string_view key) const {
    return operate_nested<M>(key, lookup_action{});
  }

  // ---- writes ----------------------------------------------------------------------------------

  // The protocol's writes: insert adds `key` if it is absent, insert_or_assign adds or
  // overwrites (true: it added), erase removes (true: it was present).
  bool insert(std::string_view key, Value value) {
    return !run_plain(key, upsert_action{this, encode(value), false}).has_value();
  }
  bool insert_or_assign(std::string_view key, Value value) { return !put(key, value).has_value(); }
  bool erase(std::string_view key) { return remove(key).has_value(); }

  // Masstree's own names, which also return the old value: put inserts `key` or updates its
  // value and returns the value it replaced (nullopt: inserted); remove returns the removed
  // value (nullopt: it was absent).
  std::optional<Value> put(std::string_view key, Value value) { return run_plain(key, upsert_action{this, encode(value)}); }
  std::optional<Value> remove(std::string_view key) { return run_plain(key, remove_action{this}); }

  template <execution_mode M>
  [[nodiscard]] coro<std::optional<Value>> put_flat(std::string_view key, Value value) {
    return operate_flat<M>(key, upsert_action{this, encode(value)});
  }
  template <execution_mode M>
  [[nodiscard]] task<std::optional<Value>> put_nested(std::string_view key, Value value) {
    return operate_nested<M>(key, upsert_action{this, encode(value)});
  }
  template <execution_mode M>
  [[nodiscard]] coro<std::optional<Value>> remove_flat(std::string_view key) {
    return operate_flat<M>(key, remove_action{this});
  }

  // ---- ordered scan ----------------------------------------------------------------------------

  // Calls visit(key, value) for every key >= from, in key order, until visit returns false
  // (visit may also return void). Returns the number of keys visited.
  template <class Visit>
    requires std::invocable<Visit&, std::string_view, Value>
  std::size_t scan(std::string_view from, Visit&& visit) const {
    const auto guard = domain_.pin();
    std::string prefix;
    std::size_t visited = 0;
    scan_layer(root_.load(std::memory_order_acquire), prefix, scan_bound::at(from), visit, visited);
    return visited;
  }

  // The protocol's scan: visit(key, value) for up to `limit` keys >= start, in order; returns
  // how many it visited.
  template <class Visit>
    requires std::invocable<Visit&, std::string_view, Value>
  std::size_t scan(std::string_view start, std::size_t limit, Visit&& visit) const {
    if (limit == 0) return 0;
    return scan(start, [&](std::string_view key, Value value) {
      visit(key, value);
      return --limit > 0;
    });
  }

  // At most `limit` (key, value) pairs with key >= from, in order.
  [[nodiscard]] std::vector<std::pair<std::string, Value>> scan(std::string_view from, std::size_t limit) const {
    std::vector<std::pair<std::string, Value>> found;
    scan(from, limit, [&](std::string_view key, Value value) { found.emplace_back(std::string(key), value); });
    return found;
  }

  // ---- introspection ---------------------------------------------------------------------------

  // Bytes of nodes and suffixes in use (retired but not yet reclaimed ones included).
  [[nodiscard]] std::size_t memory_bytes() const { return domain_.statistics().allocated_bytes; }
  [[nodiscard]] detail::epoch_statistics reclamation_statistics() const { return domain_.statistics(); }
  // Tries to advance the epoch and reclaim what the calling thread retired.
  void collect_garbage() const { domain_.collect(); }

 private:
  // ---- values ----------------------------------------------------------------------------------

  static std::uint64_t encode(Value value) noexcept {
    std::uint64_t raw = 0;
    std::memcpy(&raw, &value, sizeof(Value));
    return raw;
  }
  static Value decode(std::uint64_t raw) noexcept {
    std::array<std::byte, sizeof(Value)> bytes;
    std::memcpy(bytes.data(), &raw, sizeof(Value));
    return std::bit_cast<Value>(bytes);
  }
  static std::uint64_t encode_layer(node_base* layer) noexcept { return reinterpret_cast<std::uintptr_t>(layer); }
  static node_base* decode_layer(std::uint64_t raw) noexcept { return reinterpret_cast<node_base*>(raw); }

  // Runs an operation that does not suspend to its end.
  template <class Operation>
  static auto finish(Operation operation) {
    if constexpr (!Operation::starts_eagerly) operation.resume();
    while (!operation.done()) operation.resume();
    return operation.take_result();
  }

  template <class, class> friend class detail::masstree::point_probe;
  using epoch_guard = detail::epoch_domain::guard;

  // ---- what an operation does at the border node -------------------------------------------

  struct leaf_position {
    const border_node* leaf;
    version_word version;  // stable version read when the leaf was reached
  };

  struct leaf_outcome {
    enum class kind : std::uint8_t {
      done,        // the operation's result is in `result`
      next_layer,  // the key goes on in the layer rooted at `layer`
      moved,       // the leaf changed under an optimistic read: re-read it, follow right links
      restart,     // the leaf was deleted: descend this layer again from its root
    };
    kind what;
    std::optional<Value> result{};
    const node_base* layer = nullptr;
  };

  // Where a key is, or would go, among a border node's keys.
  struct located {
    int position;  // index in the permutation of the first key >= the searched one
    int slot;      // its slot when slice and length rank are equal, else -1
  };
  static located locate(const border_node& leaf, permutation keys, const key_cursor& key) noexcept {
    for (int position = 0; position < keys.size(); ++position) {
      const int slot = keys[position];
      const std::uint64_t slice = leaf.slice_at(slot).load(std::memory_order_relaxed);
      if (slice < key.slice) continue;
      if (slice > key.slice) return {position, -1};
      const std::uint8_t rank = detail::masstree::length_rank(leaf.key_length[slot].load(std::memory_order_relaxed));
      if (rank < key.rank) continue;
      return {position, rank == key.rank ? slot : -1};
    }
    return {keys.size(), -1};
  }

  // The optimistic read of get.
  struct lookup_action {
    leaf_outcome at_leaf(const border_node& leaf, version_word version, const key_cursor& key) const noexcept {
      using detail::masstree::long_key_in_layer;
      using detail::masstree::long_key_with_suffix;
      const located at = locate(leaf, leaf.keys(), key);
      leaf_outcome outcome{leaf_outcome::kind::done};
      if (at.slot >= 0) {
        const std::uint8_t length = leaf.key_length[at.slot].load(std::memory_order_relaxed);
        // Acquire: a layer's root is published into its slot by a release store (under the
        // leaf's lock only, which a version check does not see), so its init is visible here.
        const std::uint64_t raw = leaf.value_at(at.slot).load(std::memory_order_acquire);
        if (length == long_key_in_layer) {
          outcome = {leaf_outcome::kind::next_layer, std::nullopt, decode_layer(raw)};
        } else if (length == long_key_with_suffix) {
          if (leaf.suffix(at.slot) == key.suffix()) outcome.result = decode(raw);
        } else {
          outcome.result = decode(raw);
        }
      }
      if (leaf.version.has_changed(version)) return {leaf_outcome::kind::moved};
      return outcome;
    }
  };

  // Writes the key's value: always, or (overwrite false) only if the key is absent. The
  // outcome's result is the value the key had (nullopt: it was absent).
  struct upsert_action {
    masstree* tree;
    std::uint64_t raw_value;
    bool overwrite = true;
    leaf_outcome at_leaf(const border_node& leaf, version_word version, const key_cursor& key) const {
      return tree->upsert_at(const_cast<border_node&>(leaf), version, key, raw_value, overwrite);
    }
  };

  struct remove_action {
    masstree* tree;
    leaf_outcome at_leaf(const border_node& leaf, version_word version, const key_cursor& key) const {
      return tree->remove_at(const_cast<border_node&>(leaf), version, key);
    }
  };

  // ---- the flattened operation: one frame ------------------------------------------------------

  // The point probe (masstree/point_probe.hpp) with `action` at the border node, in one
  // coroutine frame that suspends at every node fetch (and suffix bag fetch) when M interleaves.
  template <execution_mode M, class Action>
  coro<std::optional<Value>> operate_flat(std::string_view key, Action action) const {
    detail::masstree::point_probe<masstree, Action> probe(*this, key, action, M::suspends);
    while (const void* node = probe.next()) {
      co_await fetch_node<M>(node, probe.next_bytes());
      probe.step();
    }
    co_return probe.result();
  }

  // The same probe driven without a coroutine frame: the plain operations.
  template <class Action>
  std::optional<Value> run_plain(std::string_view key, Action action) const {
    detail::masstree::point_probe<masstree, Action> probe(*this, key, action, false);
    while (const void* node = probe.next()) {
      (void)fetch_node<sequential>(node, probe.next_bytes());
      probe.step();
    }
    return probe.result();
  }

  // ---- the nested operation: Masstree's helper functions as tasks ------------------------------

  template <execution_mode M, class Action>
  task<std::optional<Value>> operate_nested(std::string_view key, Action action) const {
    const auto guard = domain_.pin();
    const node_base* layer = root_.load(std::memory_order_acquire);
    key_cursor cursor(key, 0);
    for (;;) {
      const leaf_outcome outcome = co_await find_in_layer<M>(layer, cursor, action);
      if (outcome.what == leaf_outcome::kind::done) co_return outcome.result;
      layer = outcome.layer;
      cursor.descend();
    }
  }

  // Masstree's find_unlocked: one layer, from its root to the key's border node and the action.
  template <execution_mode M, class Action>
  task<leaf_outcome> find_in_layer(const node_base* layer, key_cursor cursor, const Action& action) const {
    for (;;) {
      leaf_position at = co_await reach_leaf<M>(layer, cursor.slice);
      for (;;) {
        if (node_version::is_deleted(at.version)) break;
        const leaf_outcome outcome = action.at_leaf(*at.leaf, at.version, cursor);
        if (outcome.what == leaf_outcome::kind::done || outcome.what == leaf_outcome::kind::next_layer) {
          co_return outcome;
        }
        if (outcome.what == leaf_outcome::kind::restart) break;
        at = co_await advance_to_slice<M>(at, cursor.slice);
      }
    }
  }

  // Masstree's reach_leaf: the border node of this layer responsible for `slice`.
  template <execution_mode M>
  task<leaf_position> reach_leaf(const node_base* layer, std::uint64_t slice) const {
    detail::masstree::layer_descent descent(layer, slice);
    do {
      co_await fetch_node<M>(descent.next(), descent.next_bytes());
      descent.step();
    } while (descent.next() != nullptr);
    co_return leaf_position{descent.border(), descent.version()};
  }

  // Masstree's advance_to_key: after a border node changed, its stable version, and if it
  // split, the right neighbour now responsible for `slice`.
  template <execution_mode M>
  task<leaf_position> advance_to_slice(leaf_position at, std::uint64_t slice) const {
    const border_node* leaf = at.leaf;
    version_word version = leaf->version.stable();
    if (node_version::split_between(at.version, version)) {
      while (const border_node* next = detail::masstree::responsible_right(leaf, version, slice)) {
        co_await fetch_node<M>(next, detail::masstree::right_prefetch_bytes(*leaf));
        leaf = next;
        version = leaf->version.stable();
      }
    }
    co_return leaf_position{leaf, version};
  }

  // ---- writes under the border node's lock (never suspended) -----------------------------------

  // Locks the border node now responsible for `slice`, starting at `start`, which was
  // responsible at version `seen` (the probe's stable version); null if it was deleted. A node
  // that has not split since `seen` still is, so its right neighbour is read (a miss of its
  // own, on a line nothing else needs) only after a split, as Masstree's writers do.
  static border_node* lock_responsible(border_node& start, version_word seen, std::uint64_t slice) noexcept {
    border_node* leaf = &start;
    leaf->version.lock();
    if (!node_version::split_between(seen, leaf->version.current())) return leaf;
    for (;;) {
      if (leaf->version.deleted()) {
        leaf->version.unlock();
        return nullptr;
      }
      border_node* next = leaf->next.load(std::memory_order_acquire);
      if (next == nullptr || slice < next->low_slice) return leaf;
      next->version.lock();  // left to right: the order every writer locks neighbours in
      leaf->version.unlock();
      leaf = next;
    }
  }

  // The layer below `slot` of a locked border node; repoints the slot at the layer's current
  // root if that split since the slot was written (readers would climb to it anyway). The
  // root's lines are prefetched whole before its version is read: the descent into the layer
  // that follows then finds them in the cache instead of missing on all but the first.
  static node_base* layer_below(border_node& leaf, int slot) noexcept {
    node_base* layer = decode_layer(leaf.value_at(slot).load(std::memory_order_acquire));
    prefetch_lines<prefetched_bytes, prefetch_hint::t0>(layer);
    node_base* root = layer;
    while (!node_version::is_root(root->version.stable())) root = detail::masstree::parent_of(root).load(std::memory_order_acquire);
    if (root != layer) leaf.value_at(slot).store(encode_layer(root), std::memory_order_release);
    return root;
  }

  leaf_outcome upsert_at(border_node& start, version_word seen, const key_cursor& key, std::uint64_t raw_value,
                         bool overwrite) {
    using detail::masstree::long_key_in_layer;
    using detail::masstree::long_key_with_suffix;
    border_node* leaf = lock_responsible(start, seen, key.slice);
    if (leaf == nullptr) return {leaf_outcome::kind::restart};
    permutation keys = leaf->keys();
    const located at = locate(*leaf, keys, key);
    if (at.slot >= 0) {
      const std::uint8_t length = leaf->key_length[at.slot].load(std::memory_order_relaxed);
      if (length == long_key_in_layer) {
        node_base* layer = layer_below(*leaf, at.slot);
        leaf->version.unlock();
        return {leaf_outcome::kind::next_layer, std::nullopt, layer};
      }
      if (length == long_key_with_suffix) {
        const std::string_view suffix = leaf->suffix(at.slot);
        if (suffix != key.suffix()) {
          // Two long keys share this slice: they go on in a new layer (the old suffix's bytes
          // stay in the bag until it is next compacted).
          node_base* layer = build_layer(suffix, leaf->value_at(at.slot).load(std::memory_order_relaxed),
                                         key.suffix(), raw_value);
          leaf->version.mark_inserting();
          leaf->value_at(at.slot).store(encode_layer(layer), std::memory_order_release);
          leaf->key_length[at.slot].store(long_key_in_layer, std::memory_order_relaxed);
          leaf->suffixes.load(std::memory_order_relaxed)->clear(at.slot);
          leaf->version.unlock();
          return {leaf_outcome::kind::done};
        }
      }
      // The key itself: update in place (unless only an absent key may be written). A reader
      // sees the old or the new value, both whole.
      if (!overwrite) {
        const std::uint64_t present = leaf->value_at(at.slot).load(std::memory_order_relaxed);
        leaf->version.unlock();
        return {leaf_outcome::kind::done, decode(present)};
      }
      // The lock makes this the slot's only writer: a load and a store, no locked exchange.
      const std::uint64_t previous = leaf->value_at(at.slot).load(std::memory_order_relaxed);
      leaf->value_at(at.slot).store(raw_value, std::memory_order_release);
      leaf->version.unlock();
      return {leaf_outcome::kind::done, decode(previous)};
    }
    const pending_entry entry = make_entry(key, raw_value);
    if (keys.size() < leaf->capacity) {
      // A free slot is invisible to readers until the permutation that lists it is stored.
      const int slot = keys.insert(at.position);
      write_entry(*leaf, slot, entry);
      leaf->order.store(keys.value(), std::memory_order_release);
      leaf->version.unlock();
    } else if (leaf->capacity < border_width) {
      grow_and_insert(*leaf, at.position, entry);
    } else {
      split_and_insert(*leaf, at.position, entry);
    }
    return {leaf_outcome::kind::done};
  }

  leaf_outcome remove_at(border_node& start, version_word seen, const key_cursor& key) {
    using detail::masstree::long_key_in_layer;
    using detail::masstree::long_key_with_suffix;
    border_node* leaf = lock_responsible(start, seen, key.slice);
    if (leaf == nullptr) return {leaf_outcome::kind::restart};
    permutation keys = leaf->keys();
    const located at = locate(*leaf, keys, key);
    if (at.slot < 0) {
      leaf->version.unlock();
      return {leaf_outcome::kind::done};
    }
    const std::uint8_t length = leaf->key_length[at.slot].load(std::memory_order_relaxed);
    if (length == long_key_in_layer) {
      node_base* layer = layer_below(*leaf, at.slot);
      leaf->version.unlock();
      return {leaf_outcome::kind::next_layer, std::nullopt, layer};
    }
    if (length == long_key_with_suffix) {
      if (leaf->suffix(at.slot) != key.suffix()) {
        leaf->version.unlock();
        return {leaf_outcome::kind::done};
      }
      leaf->suffixes.load(std::memory_order_relaxed)->clear(at.slot);
    }
    const std::uint64_t previous = leaf->value_at(at.slot).load(std::memory_order_relaxed);
    // The slot may be reused at once: readers that read the old permutation must retry.
    leaf->version.mark_inserting();
    keys.remove(at.position);
    leaf->order.store(keys.value(), std::memory_order_release);
    leaf->version.unlock();
    return {leaf_outcome::kind::done, decode(previous)};
  }

  // ---- building and splitting nodes ------------------------------------------------------------

  // A key with everything a slot holds. The suffix's bytes are the key's or a bag's (bags
  // replaced meanwhile are retired, not freed, while the writer's epoch is pinned).
  struct pending_entry {
    std::uint64_t slice;
    std::uint8_t key_length;
    std::uint64_t raw_value;
    std::string_view suffix;  // empty unless key_length is long_key_with_suffix
    int old_slot;             // its slot in the node being split, -1 for the key being inserted
  };

  static pending_entry make_entry(const key_cursor& key, std::uint64_t raw_value) noexcept {
    return {key.slice, key.rank, raw_value,
            key.rank == detail::masstree::long_key_with_suffix ? key.suffix() : std::string_view{}, -1};
  }

  static pending_entry read_entry(const border_node& leaf, int slot) noexcept {
    const std::uint8_t length = leaf.key_length[slot].load(std::memory_order_relaxed);
    // Acquire: the value may be a layer's root (see lookup_action::at_leaf).
    return {leaf.slice_at(slot).load(std::memory_order_relaxed), length, leaf.value_at(slot).load(std::memory_order_acquire),
            length == detail::masstree::long_key_with_suffix ? leaf.suffix(slot) : std::string_view{}, slot};
  }

  void write_entry(border_node& leaf, int slot, const pending_entry& entry) {
    leaf.slice_at(slot).store(entry.slice, std::memory_order_relaxed);
    leaf.key_length[slot].store(entry.key_length, std::memory_order_relaxed);
    leaf.value_at(slot).store(entry.raw_value, std::memory_order_relaxed);
    if (!entry.suffix.empty()) {
      store_suffix(leaf, slot, entry.suffix);
    } else if (suffix_bag* bag = leaf.suffixes.load(std::memory_order_relaxed)) {
      bag->clear(slot);
    }
  }

  // Appends the suffix of `slot` to the node's bag; a bag without room is replaced by one that
  // holds the live suffixes (those of the other slots with an entry) with as many bytes again
  // to spare, and retired.
  void store_suffix(border_node& leaf, int slot, std::string_view bytes) {
    suffix_bag* bag = leaf.suffixes.load(std::memory_order_relaxed);
    if (bag != nullptr && bag->fits(bytes.size())) {
      bag->append(slot, bytes);
      return;
    }
    std::size_t live = bytes.size();
    if (bag != nullptr) {
      for (int other = 0; other < border_width; ++other) live += other == slot ? 0 : bag->at(other).size();
    }
    const std::size_t block = suffix_bag::block_bytes(bag == nullptr ? live : 2 * live);
    auto* grown = new (domain_.allocate(block)) suffix_bag(static_cast<std::uint32_t>(block - sizeof(suffix_bag)));
    if (bag != nullptr) {
      for (int other = 0; other < border_width; ++other) {
        if (other != slot && !bag->at(other).empty()) grown->append(other, bag->at(other));
      }
    }
    grown->append(slot, bytes);
    leaf.suffixes.store(grown, std::memory_order_release);
    if (bag != nullptr && bag != leaf.inline_bag()) domain_.retire(bag, suffix_bag::block_bytes(bag->capacity));
  }

  // A border node; with inline_bag_area > 0 (full nodes only), its first suffix bag in its own block.
  border_node* new_border(version_word flags, std::uint64_t low_slice, int slots, std::size_t inline_bag_area = 0) {
    if (inline_bag_area != 0 && slots != border_width) throw std::logic_error("masstree: an inline bag follows a full node");
    const std::size_t bytes =
        border_node::bytes_for(slots) + (inline_bag_area == 0 ? 0 : suffix_bag::block_bytes(inline_bag_area));
    return new (domain_.allocate(bytes)) border_node(flags, low_slice, slots, inline_bag_area);
  }
  // The inline bag's area for a node that takes over entries[first, last) from a node with
  // suffixes: the smallest inline bag's if twice their suffix bytes fit in it (room for as many
  // again), else none (long suffixes keep a bag of their own, which grows), and none if the
  // node they come from has no bag.
  template <std::size_t N>
  static std::size_t inline_bag_area_for(const border_node& from, const std::array<pending_entry, N>& entries,
                                         int first, int last) noexcept {
    if (from.suffixes.load(std::memory_order_relaxed) == nullptr) return 0;
    std::size_t live = 0;
    for (int index = first; index < last; ++index) live += entries[index].suffix.size();
    return 2 * live <= detail::masstree::smallest_inline_bag_area ? detail::masstree::smallest_inline_bag_area : 0;
  }
  interior_node* new_interior(version_word flags) {
    return new (domain_.allocate(detail::masstree::interior_bytes)) interior_node(flags);
  }

  // The root of a new layer holding two long keys that share a slice, by their remaining bytes.
  // If those share their next slice too, that one becomes a layer of its own, and so on.
  node_base* build_layer(std::string_view first, std::uint64_t first_value, std::string_view second,
                         std::uint64_t second_value) {
    const key_cursor a(first, 0);
    const key_cursor b(second, 0);
    border_node* root = new_border(node_version::root_bit, 0, detail::masstree::small_border_width);
    if (a.slice == b.slice && a.rank == detail::masstree::long_key_with_suffix && a.rank == b.rank) {
      node_base* below = build_layer(a.suffix(), first_value, b.suffix(), second_value);
      write_entry(*root, 0, {a.slice, detail::masstree::long_key_in_layer, encode_layer(below), {}, -1});
      root->order.store(permutation::sorted(1).value(), std::memory_order_relaxed);
      return root;
    }
    const bool first_smaller = a.slice < b.slice || (a.slice == b.slice && a.rank < b.rank);
    const pending_entry low = make_entry(first_smaller ? a : b, first_smaller ? first_value : second_value);
    const pending_entry high = make_entry(first_smaller ? b : a, first_smaller ? second_value : first_value);
    write_entry(*root, 0, low);
    write_entry(*root, 1, high);
    root->order.store(permutation::sorted(2).value(), std::memory_order_relaxed);
    return root;
  }

  // Where to split the 13 sorted entries of a full node and a new key: near the middle, never
  // between two keys of one slice (at most ten keys share a slice, so a place exists). Appending to the rightmost leaf keeps the
  // left node full, as Masstree does for sequential inserts.
  static int choose_split(const std::array<pending_entry, border_width + 1>& entries, bool appending) noexcept {
    constexpr int count = border_width + 1;
    if (appending && entries[count - 2].slice != entries[count - 1].slice) return count - 1;
    for (int distance = 0; distance < count; ++distance) {
      for (const int split : {count / 2 + distance, count / 2 - distance}) {
        if (split >= 1 && split < count && entries[split - 1].slice != entries[split].slice) return split;
      }
    }
    return count / 2;  // unreachable: 13 entries hold at least two slices
  }

  // `leaf` is locked and full: splits it, inserting `entry` at `position`, and links the new
  // right node into the parent. Unlocks everything it locked.
  void split_and_insert(border_node& leaf, int position, pending_entry entry) {
    const permutation keys = leaf.keys();
    std::array<pending_entry, border_width + 1> entries;
    for (int index = 0, from = 0; index <= border_width; ++index) {
      entries[index] = index == position ? entry : read_entry(leaf, keys[from++]);
    }
    const bool appending = position == border_width && leaf.next.load(std::memory_order_relaxed) == nullptr;
    const int split = choose_split(entries, appending);

    leaf.version.mark_splitting();
    border_node* right = new_border(node_version::locked_bit, entries[split].slice, border_width,
                                    inline_bag_area_for(leaf, entries, split, border_width + 1));
    for (int index = split; index <= border_width; ++index) write_entry(*right, index - split, entries[index]);
    // The suffixes that moved right leave the left bag's live set (their bytes stay until it
    // is next compacted).
    if (suffix_bag* bag = leaf.suffixes.load(std::memory_order_relaxed)) {
      for (int index = split; index <= border_width; ++index) {
        if (entries[index].old_slot >= 0) bag->clear(entries[index].old_slot);
      }
    }
    right->order.store(permutation::sorted(border_width + 1 - split).value(), std::memory_order_relaxed);
    right->next.store(leaf.next.load(std::memory_order_relaxed), std::memory_order_relaxed);
    right->parent.store(leaf.parent.load(std::memory_order_relaxed), std::memory_order_relaxed);

    // The left part keeps its slots; the new key, if it stays left, takes a slot that moved.
    int slots[border_width];
    bool taken[border_width] = {};
    for (int index = 0; index < split; ++index) {
      if (entries[index].old_slot >= 0) taken[entries[index].old_slot] = true;
    }
    for (int index = 0; index < split; ++index) {
      int slot = entries[index].old_slot;
      if (slot < 0) {
        slot = 0;
        while (taken[slot]) ++slot;
        taken[slot] = true;
        write_entry(leaf, slot, entries[index]);
      }
      slots[index] = slot;
    }
    leaf.order.store(permutation::of(slots, split).value(), std::memory_order_release);
    leaf.next.store(right, std::memory_order_release);
    insert_into_parent(&leaf, right->low_slice, right);
  }

  // `small` is locked, full, and the root of its layer (a small node never splits, it grows):
  // a full node takes its keys and `entry` at `position`, and replaces it as the layer's root.
  // The small node stays as a forwarder: no longer a root, with its parent and right link on
  // the full node, so that readers that reach it from the upper layer climb to the new root,
  // readers inside it see a split and move right, and writers follow the right link (the
  // upper layer's slot is repointed lazily, as after a root split). Unlocks it.
  void grow_and_insert(border_node& small, int position, const pending_entry& entry) {
    const permutation keys = small.keys();
    std::array<pending_entry, detail::masstree::small_border_width + 1> entries;
    for (int index = 0, from = 0; index <= keys.size(); ++index) {
      entries[index] = index == position ? entry : read_entry(small, keys[from++]);
    }
    border_node* grown = new_border(node_version::root_bit, small.low_slice, border_width,
                                    inline_bag_area_for(small, entries, 0, keys.size() + 1));
    for (int index = 0; index <= keys.size(); ++index) write_entry(*grown, index, entries[index]);
    grown->order.store(permutation::sorted(keys.size() + 1).value(), std::memory_order_relaxed);
    small.version.mark_splitting();
    small.version.set_root(false);
    small.next.store(grown, std::memory_order_release);
    small.parent.store(grown, std::memory_order_release);
    small.version.unlock();
  }

  // The parent of a locked node, locked (null for a layer root). Parents are locked after
  // their children, never before.
  static interior_node* locked_parent(node_base* node) noexcept {
    std::atomic<node_base*>& parent_link = detail::masstree::parent_of(node);
    for (;;) {
      interior_node* parent = detail::masstree::as_interior(parent_link.load(std::memory_order_acquire));
      if (parent == nullptr) return nullptr;
      parent->version.lock();
      if (parent_link.load(std::memory_order_acquire) == parent) return parent;
      parent->version.unlock();  // it split and `node` moved to its sibling
    }
  }

  // Updates `parent`'s bag hint once `child` joined it as one of `children` (the parent's
  // lock holder).
  static void note_inline_bag(interior_node& parent, const node_base* child, int children) noexcept {
    const int with_inline_bag = parent.inline_bag_children.load(std::memory_order_relaxed) +
                                (detail::masstree::carries_inline_bag(child) ? 1 : 0);
    parent.set_bag_hint(with_inline_bag, children);
  }
  // Sets the bag hint of a node that a split filled with `children` anew.
  static void recount_inline_bags(interior_node& node, std::span<node_base* const> children) noexcept {
    int with_inline_bag = 0;
    for (const node_base* child : children) with_inline_bag += detail::masstree::carries_inline_bag(child) ? 1 : 0;
    node.set_bag_hint(with_inline_bag, static_cast<int>(children.size()));
  }

  // `left` is locked and marked splitting, `right` (its new right sibling, holding the slices
  // >= separator) is locked. Inserts the separator into the parent, splitting parents as
  // needed; every node stays locked and marked until its parent knows its new sibling, so a
  // reader that validates a parent after reading a child's stable version never misses it.
  void insert_into_parent(node_base* left, std::uint64_t separator, node_base* right) {
    for (;;) {
      interior_node* parent = locked_parent(left);
      if (parent == nullptr) {
        // `left` was the root of its layer: a new root above both.
        interior_node* root = new_interior(node_version::root_bit);
        root->count.store(1, std::memory_order_relaxed);
        root->slice[0].store(separator, std::memory_order_relaxed);
        root->child[0].store(left, std::memory_order_relaxed);
        root->child[1].store(right, std::memory_order_relaxed);
        note_inline_bag(*root, left, 1);
        note_inline_bag(*root, right, 2);
        detail::masstree::parent_of(left).store(root, std::memory_order_release);
        detail::masstree::parent_of(right).store(root, std::memory_order_release);
        left->version.set_root(false);
        // Layer 0's root is the tree's; a deeper layer's slot is repointed lazily (readers
        // climb from a former root through the parent pointers).
        if (root_.load(std::memory_order_relaxed) == left) root_.store(root, std::memory_order_release);
        right->version.unlock();
        left->version.unlock();
        return;
      }
      const int count = parent->count.load(std::memory_order_relaxed);
      int index = 0;
      while (parent->child[index].load(std::memory_order_relaxed) != left) ++index;
      if (count < interior_width) {
        parent->version.mark_inserting();
        for (int position = count; position > index; --position) {
          parent->slice[position].store(parent->slice[position - 1].load(std::memory_order_relaxed),
                                        std::memory_order_relaxed);
          parent->child[position + 1].store(parent->child[position].load(std::memory_order_relaxed),
                                            std::memory_order_relaxed);
        }
        parent->slice[index].store(separator, std::memory_order_relaxed);
        parent->child[index + 1].store(right, std::memory_order_release);
        note_inline_bag(*parent, right, count + 2);
        parent->count.store(static_cast<std::uint8_t>(count + 1), std::memory_order_relaxed);
        detail::masstree::parent_of(right).store(parent, std::memory_order_release);
        right->version.unlock();
        left->version.unlock();
        parent->version.unlock();
        return;
      }
      // The parent is full: split it too; its middle separator goes one level up.
      parent->version.mark_splitting();
      std::array<std::uint64_t, interior_width + 1> slices;
      std::array<node_base*, interior_width + 2> children;
      for (int position = 0, from = 0; position <= interior_width; ++position) {
        slices[position] = position == index ? separator : parent->slice[from++].load(std::memory_order_relaxed);
      }
      for (int position = 0, from = 0; position <= interior_width + 1; ++position) {
        children[position] = position == index + 1 ? right : parent->child[from++].load(std::memory_order_relaxed);
      }
      constexpr int left_keys = (interior_width + 1) / 2;  // 8 keys stay, slices[8] goes up, 7 move
      interior_node* sibling = new_interior(node_version::locked_bit);
      constexpr int right_keys = interior_width - left_keys;
      recount_inline_bags(*sibling, std::span(children).subspan(left_keys + 1, right_keys + 1));
      recount_inline_bags(*parent, std::span(children).first(left_keys + 1));
      for (int position = 0; position < right_keys; ++position) {
        sibling->slice[position].store(slices[left_keys + 1 + position], std::memory_order_relaxed);
      }
      for (int position = 0; position <= right_keys; ++position) {
        node_base* child = children[left_keys + 1 + position];
        sibling->child[position].store(child, std::memory_order_relaxed);
        detail::masstree::parent_of(child).store(sibling, std::memory_order_release);
      }
      sibling->count.store(static_cast<std::uint8_t>(right_keys), std::memory_order_relaxed);
      sibling->parent.store(parent->parent.load(std::memory_order_relaxed), std::memory_order_relaxed);
      for (int position = 0; position < left_keys; ++position) {
        parent->slice[position].store(slices[position], std::memory_order_relaxed);
      }
      for (int position = 0; position <= left_keys; ++position) {
        parent->child[position].store(children[position], std::memory_order_relaxed);
        detail::masstree::parent_of(children[position]).store(parent, std::memory_order_release);
      }
      parent->count.store(static_cast<std::uint8_t>(left_keys), std::memory_order_relaxed);
      right->version.unlock();
      left->version.unlock();
      left = parent;
      right = sibling;
      separator = slices[left_keys];
    }
  }

  // ---- scan ------------------------------------------------------------------------------------

  // Where a scan of one layer starts: at or after (slice, rank); for a long key at the start
  // slice, at or after the remaining bytes `rest` (compared in the suffix or the layer below).
  struct scan_bound {
    std::uint64_t slice = 0;
    std::uint8_t rank = 0;
    bool inclusive = true;
    bool bounded_rest = false;  // the start key is long: `rest` bounds the long key at `slice`
    std::string_view rest;

    static scan_bound at(std::string_view from) noexcept {
      const key_cursor cursor(from, 0);
      return {cursor.slice, cursor.rank, true, cursor.rank == detail::masstree::long_key_with_suffix,
              cursor.rank == detail::masstree::long_key_with_suffix ? cursor.suffix() : std::string_view{}};
    }
    // Entries up to and including (slice, rank) are done.
    void pass(std::uint64_t done_slice, std::uint8_t done_rank) noexcept {
      *this = {done_slice, done_rank, false, false, {}};
    }
  };

  // A border node's keys read under one validated version.
  struct leaf_snapshot {
    int count = 0;
    std::array<pending_entry, border_width> entries;
    const border_node* next = nullptr;
  };

  static void read_snapshot(const border_node* leaf, leaf_snapshot& snapshot, version_word& version) noexcept {
    for (;;) {
      const permutation keys = leaf->keys();
      snapshot.count = keys.size();
      for (int position = 0; position < snapshot.count; ++position) snapshot.entries[position] = read_entry(*leaf, keys[position]);
      snapshot.next = leaf->next.load(std::memory_order_acquire);
      if (!leaf->version.has_changed(version)) return;
      version = leaf->version.stable();
    }
  }

  template <class Visit>
  static bool emit(Visit& visit, std::string_view key, Value value) {
    if constexpr (std::is_void_v<std::invoke_result_t<Visit&, std::string_view, Value>>) {
      visit(key, value);
      return true;
    } else {
      return static_cast<bool>(visit(key, value));
    }
  }

  // Visits the keys of one layer from `bound` on; `prefix` holds the bytes of the upper
  // layers. Returns false once visit asked to stop.
  template <class Visit>
  bool scan_layer(const node_base* layer, std::string& prefix, scan_bound bound, Visit& visit,
                  std::size_t& visited) const {
    using detail::masstree::length_rank;
    using detail::masstree::long_key_in_layer;
    using detail::masstree::long_key_with_suffix;
    leaf_position at = finish(reach_leaf<sequential>(layer, bound.slice));
    const border_node* leaf = at.leaf;
    version_word version = at.version;
    leaf_snapshot snapshot;
    for (;;) {
      if (node_version::is_deleted(version)) {
        at = finish(reach_leaf<sequential>(layer, bound.slice));
        leaf = at.leaf;
        version = at.version;
        continue;
      }
      read_snapshot(leaf, snapshot, version);
      if (node_version::is_deleted(version)) continue;
      for (int position = 0; position < snapshot.count; ++position) {
        const pending_entry& entry = snapshot.entries[position];
        const std::uint8_t rank = length_rank(entry.key_length);
        if (entry.slice < bound.slice || (entry.slice == bound.slice && rank < bound.rank)) continue;
        const bool at_bound = entry.slice == bound.slice && rank == bound.rank;
        if (at_bound && !bound.inclusive) continue;
        const std::size_t prefix_length = prefix.size();
        if (entry.key_length == long_key_in_layer) {
          detail::masstree::append_slice(prefix, entry.slice, detail::masstree::slice_bytes);
          const scan_bound below = at_bound && bound.bounded_rest ? scan_bound::at(bound.rest) : scan_bound{};
          const bool go_on = scan_layer(decode_layer(entry.raw_value), prefix, below, visit, visited);
          prefix.resize(prefix_length);
          if (!go_on) return false;
        } else {
          if (entry.key_length == long_key_with_suffix) {
            if (entry.suffix.empty()) continue;  // cannot happen in a validated snapshot
            if (at_bound && bound.bounded_rest && entry.suffix < bound.rest) {
              bound.pass(entry.slice, rank);
              continue;
            }
            detail::masstree::append_slice(prefix, entry.slice, detail::masstree::slice_bytes);
            prefix.append(entry.suffix);
          } else {
            detail::masstree::append_slice(prefix, entry.slice, entry.key_length);
          }
          ++visited;
          const bool go_on = emit(visit, prefix, decode(entry.raw_value));
          prefix.resize(prefix_length);
          if (!go_on) return false;
        }
        bound.pass(entry.slice, rank);
      }
      if (snapshot.next == nullptr) return true;
      leaf = snapshot.next;
      version = leaf->version.stable();
    }
  }

  mutable detail::epoch_domain domain_;
  std::atomic<node_base*> root_{nullptr};  // root of layer 0
};

}  // namespace braid
