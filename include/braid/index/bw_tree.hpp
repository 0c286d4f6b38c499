// bw_tree: a latch-free B+-tree in the design of the Bw-tree (Levandoski, Lomet, Sengupta,
// "The Bw-Tree: A B-tree for New Hardware Platforms", ICDE 2013; details as in the open
// Bw-tree of Wang et al., "Building a Bw-Tree Takes More Than Just Buzz Words", SIGMOD 2018)
// — the Bw-tree of the "Killer Nanoseconds" experiments (Jonathan et al., PVLDB 2018, §4.2).
//
//   braid::bw_tree<std::uint64_t, std::uint64_t> tree;
//   tree.insert_or_assign(42, 7);
//   std::optional<std::uint64_t> v = tree.find(42);                     // the plain get
//   tree.multi_find(keys, results, braid::technique::amac, 12);          // 12 gets in flight
//
// Structure. Pages are named by logical page ids; a mapping table maps each id to the page's
// newest record. A page is a base node (sorted keys with values, or separators with child
// page ids) under a chain of immutable delta records: upsert and remove deltas on leaves, index
// entries on inner pages, and split deltas on both. A writer builds a delta and installs it
// with one compare-and-swap on the page's mapping slot; nothing is ever locked. A chain that
// reaches `ChainThreshold` deltas is consolidated into a new base node, installed the same
// way; the replaced records are retired to the epoch domain (detail/epoch_domain.hpp) and
// reclaimed once no reader can hold them. A base that holds more than its capacity splits:
// the upper half goes to a new page, a split delta on the old page redirects its keys there
// (B-link style: every record's header carries the page's high key and right sibling), and an
// index-entry delta posts the separator to the parent. The root keeps page id 0: it splits by
// moving both halves to new pages under a new root base.
//
// Reads. A get descends from the root: at each page it reads the mapping slot, then the head
// record; if the key is beyond the page's high key it moves to the right sibling; otherwise it
// walks the delta chain (the first delta about the key decides) and ends in the base node with
// a binary search. Every step that may miss the cache is a separate dependent load: the slot,
// each record, each binary-search probe on a new cache line, the value's or child's line.
//
//   find(key)                        the plain get: lookup<sequential>, no prefetch, no suspension;
//   lookup<M>(key)                   the same code as one coroutine that prefetches and
//                                    suspends before each of those loads (the paper's
//                                    "approach 1": all of get in one function);
//   find_group_prefetching<H>(...)   group prefetching: a group of gets advances stage by stage
//                                    in lock step; the next group starts when all are done;
//   find_amac<H>(...)                AMAC: a ring of state machines, a finished slot refilled at
//                                    once. Both run the hand-written state machine of
//                                    `lookup_state` (8 stages; the paper's AMAC had 10);
//   multi_find(keys, out, technique, group)   a batch, in input order (naive, gp, amac, coro,
//                                    adaptive; the Bw-tree has no fiber lookup).
// GP and AMAC take (keys, out, group) as every index's do, and also a `Batch` (see
// find_amac) so that a workload can mix writes into the stream: a write is applied, plainly,
// when the driver reaches it.
//
// Writes: insert(key, value) adds a key that is absent, insert_or_assign(key, value) adds or
// overwrites, erase(key) removes; each reports what it did. Whether the key is present is read
// from the leaf page's chain that the delta is installed on, so the answer is the one the
// compare-and-swap made true. upsert(key, value) is the Bw-tree's blind write (no read of the
// page: cheaper, reports nothing).
// scan(from, visit) visits keys >= from in order, one page's consolidated view at a time.
//
// Complexity: get O(log n) pages plus the chain (< ChainThreshold deltas per page after
// consolidation catches up); upsert O(log n) plus an O(capacity) consolidation every
// ChainThreshold writes to a page. Nodes merge never: pages emptied by erase stay (their
// memory is not returned until the tree is destroyed); the workloads of the experiments do
// not shrink. Keys are unsigned integers; values are trivially copyable, at most 8 bytes.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "braid/core/coro.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/frame_pool.hpp"
#include "braid/core/huge_buffer.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/prefetch.hpp"
#include "braid/core/scheduler.hpp"
#include "braid/index/bw_tree/page_views.hpp"
#include "braid/index/bw_tree/records.hpp"
#include "braid/index/detail/adaptive_lookups.hpp"
#include "braid/index/detail/batch_arguments.hpp"
#include "braid/index/detail/epoch_domain.hpp"
#include "braid/index/detail/lookup_techniques.hpp"
#include "braid/index/detail/multi_find.hpp"
#include "braid/index/technique.hpp"

namespace braid {

template <std::unsigned_integral Key = std::uint64_t, class Value = std::uint64_t, std::uint32_t LeafCapacity = 64,
          std::uint32_t InnerCapacity = 64, std::uint32_t ChainThreshold = 8>
class bw_tree : public detail::multi_find_member<bw_tree<Key, Value, LeafCapacity, InnerCapacity, ChainThreshold>, Key, std::optional<Value>> {
  static_assert(std::is_trivially_copyable_v<Value> && sizeof(Value) <= 8, "values are trivially copyable, <= 8 bytes");
  static_assert(LeafCapacity >= 4 && InnerCapacity >= 4 && ChainThreshold >= 1);

  using page_id = detail::bw_tree::page_id;
  using record = detail::bw_tree::record_header<Key>;
  using record_kind = detail::bw_tree::record_kind;
  using upsert_delta = detail::bw_tree::upsert_delta<Key, Value>;
  using remove_delta = detail::bw_tree::remove_delta<Key>;
  using entry_delta = detail::bw_tree::entry_delta<Key>;
  using leaf_base = detail::bw_tree::base_node<Key, Value>;
  using inner_base = detail::bw_tree::base_node<Key, page_id>;
  using search = detail::bw_tree::base_search<Key>;
  static constexpr page_id root_page = detail::bw_tree::root_page;
  static constexpr page_id no_page = detail::bw_tree::no_page;
  static constexpr std::size_t max_levels = 32;

 public:
  using key_type = Key;
  using mapped_type = Value;
  static constexpr prefetch_hint default_prefetch_hint = prefetch_hint::t0;  // nodes are reused: every level
  static constexpr const char* structure_name = "bw_tree";
  using result_type = std::optional<Value>;
  static constexpr std::uint32_t leaf_capacity = LeafCapacity;
  static constexpr std::uint32_t inner_capacity = InnerCapacity;
  static constexpr std::uint32_t chain_threshold = ChainThreshold;

  explicit bw_tree(page_size pages = page_size::huge_2m) : domain_(pages), mapping_(domain_) {
    const page_id root = mapping_.allocate();  // page 0
    leaf_base* empty = new_base<Value>(0, 0, false, Key{}, no_page);
    mapping_.publish(root, empty);
  }
  bw_tree(const bw_tree&) = delete;
  bw_tree& operator=(const bw_tree&) = delete;
  // Records and mapping chunks live in the epoch domain's memory and go with it.
  ~bw_tree() = default;

  // ---- lookups ---------------------------------------------------------------------------------

  [[nodiscard]] std::optional<Value> find(Key key) const { return lookup<sequential>(key).take_result(); }

  // The get as one coroutine: prefetch + suspend before every load that may miss when M
  // interleaves; the plain get when M is sequential.
  template <execution_mode M>
  [[nodiscard]] coro<std::optional<Value>> lookup(Key key) const {
    const auto guard = domain_.pin();
    page_id page = root_page;
    for (;;) {
      co_await fetch<M>(&mapping_.at(page));
      const record* head = mapping_.read(page);
      co_await fetch<M>(head);
      if (head->beyond(key)) {
        page = head->right;
        continue;
      }
      const record* current = head;
      if (head->level > 0) {
        // An inner page: the first index entry covering the key, else the base's child.
        page_id child = no_page;
        while (!current->is_base()) {
          if (current->kind == record_kind::inner_entry && as_entry(current)->covers(key)) {
            child = as_entry(current)->child;
            break;
          }
          current = current->next;
          co_await fetch<M>(current);
        }
        if (child == no_page) {
          const inner_base* base = static_cast<const inner_base*>(current);
          search position{base->keys(), 0, base->count};
          const void* fetched = line_of(base);
          while (!position.done()) {
            if (const Key* probe = probe_on_new_line(position, fetched)) co_await fetch<M>(probe);
            position.step(key);
          }
          const page_id* link = base->payloads() + position.first;
          if (line_of(link) != fetched) co_await fetch<M>(link);
          child = *link;
        }
        page = child;
        continue;
      }
      // A leaf page: the newest delta about the key decides, else the base.
      while (!current->is_base()) {
        if (current->kind == record_kind::leaf_upsert && as_upsert(current)->key == key) {
          co_return as_upsert(current)->value;
        }
        if (current->kind == record_kind::leaf_remove && as_remove(current)->key == key) co_return std::nullopt;
        current = current->next;
        co_await fetch<M>(current);
      }
      const leaf_base* base = static_cast<const leaf_base*>(current);
      if (base->count == 0 || base->keys()[0] > key) co_return std::nullopt;
      search position{base->keys(), 0, base->count};
      const void* fetched = line_of(base);
      while (!position.done()) {
        if (const Key* probe = probe_on_new_line(position, fetched)) co_await fetch<M>(probe);
        position.step(key);
      }
      if (base->keys()[position.first] != key) co_return std::nullopt;
      const Value* value = base->payloads() + position.first;
      if (line_of(value) != fetched) co_await fetch<M>(value);
      co_return *value;
    }
  }

  // ---- hand-written techniques -----------------------------------------------------------------

  // A batch of operations for the hand-written techniques: gets, interleaved, and writes,
  // applied plainly in input order when the driver reaches them. A type with
  //   std::size_t size() const;  bool is_get(std::size_t) const;  Key key(std::size_t) const;
  //   void apply(std::size_t);   void deliver(std::size_t, std::optional<Value>);

  // Group prefetching and AMAC over gets only: results in input order.
  template <prefetch_hint Hint = default_prefetch_hint>
  void find_group_prefetching(std::span<const Key> keys, std::span<std::optional<Value>> out, std::size_t group) const {
    detail::check_batch_arguments(keys.size(), out.size(), group, "bw_tree::find_group_prefetching");
    get_batch batch{keys, out};
    find_group_prefetching<Hint>(batch, group);
  }
  template <prefetch_hint Hint = default_prefetch_hint>
  void find_amac(std::span<const Key> keys, std::span<std::optional<Value>> out, std::size_t group) const {
    detail::check_batch_arguments(keys.size(), out.size(), group, "bw_tree::find_amac");
    get_batch batch{keys, out};
    find_amac<Hint>(batch, group);
  }

  // Group prefetching: `group` gets advance one stage at a time in lock step; a get that
  // finishes early idles until the whole group is done, then the next group starts.
  template <prefetch_hint Hint = default_prefetch_hint, class Batch>
  void find_group_prefetching(Batch& batch, std::size_t group) const {
    check_group(group, "bw_tree::find_group_prefetching");
    detail::scratch_array<lookup_state> states(group);
    std::size_t next = 0;
    const std::size_t count = batch.size();
    while (next < count) {
      std::size_t active = 0;
      while (active < group && next < count) {
        const std::size_t index = next++;
        if (!batch.is_get(index)) {
          batch.apply(index);
          continue;
        }
        start<Hint>(states[active++], index, batch.key(index));
      }
      std::size_t running = active;
      while (running > 0) {
        for (std::size_t slot = 0; slot < active; ++slot) {
          lookup_state& state = states[slot];
          if (state.stage == lookup_state::stage_kind::finished) continue;
          advance<Hint>(state);
          if (state.stage == lookup_state::stage_kind::finished) {
            batch.deliver(state.index, state.result);
            state.guard.release();
            --running;
          }
        }
      }
    }
  }

  // AMAC: a ring of `group` state machines visited round robin; a finished one is replaced
  // by the next get at once.
  template <prefetch_hint Hint = default_prefetch_hint, class Batch>
  void find_amac(Batch& batch, std::size_t group) const {
    check_group(group, "bw_tree::find_amac");
    detail::scratch_array<lookup_state> states(group);
    std::size_t next = 0;
    const std::size_t count = batch.size();
    auto refill = [&](lookup_state& state) {
      while (next < count) {
        const std::size_t index = next++;
        if (!batch.is_get(index)) {
          batch.apply(index);
          continue;
        }
        start<Hint>(state, index, batch.key(index));
        return true;
      }
      return false;
    };
    std::size_t live = 0;
    while (live < group && refill(states[live])) ++live;
    while (live > 0) {
      for (std::size_t slot = 0; slot < live;) {
        lookup_state& state = states[slot];
        advance<Hint>(state);
        if (state.stage != lookup_state::stage_kind::finished) {
          ++slot;
          continue;
        }
        batch.deliver(state.index, state.result);
        state.guard.release();
        if (refill(state)) {
          ++slot;
          continue;
        }
        --live;  // drain: the last live state moves into this slot
        if (slot != live) std::swap(states[slot], states[live]);
      }
    }
  }

  // ---- writes ----------------------------------------------------------------------------------

  // Adds `key` if it is absent; returns whether it did.
  bool insert(Key key, Value value) { return !write_leaf(key, upsert_builder(key, value), sizeof(upsert_delta), write_rule::if_absent); }
  // Adds `key` or overwrites its value; returns true if it added it.
  bool insert_or_assign(Key key, Value value) {
    return !write_leaf(key, upsert_builder(key, value), sizeof(upsert_delta), write_rule::always);
  }
  // The Bw-tree's blind write: adds or overwrites without reading the page first (the delta is
  // installed whatever the page holds), so it costs no more than the descent and one
  // compare-and-swap; reports nothing. What the experiments load and update with.
  void upsert(Key key, Value value) { write_leaf(key, upsert_builder(key, value), sizeof(upsert_delta), write_rule::blind); }
  // Removes `key`; returns whether it was present.
  bool erase(Key key) {
    return write_leaf(key, [key](void* memory) {
      auto* delta = new (memory) remove_delta;
      delta->kind = record_kind::leaf_remove;
      delta->key = key;
      return delta;
    }, sizeof(remove_delta), write_rule::if_present);
  }

  // ---- ordered scan ----------------------------------------------------------------------------

  // The protocol's scan: visit(key, value) for up to `limit` keys >= start, in order; returns
  // how many it visited.
  template <class Visit>
    requires std::invocable<Visit&, Key, Value>
  std::size_t scan(Key start, std::size_t limit, Visit&& visit) const {
    if (limit == 0) return 0;
    return scan(start, [&](Key key, Value value) {
      visit(key, value);
      return --limit > 0;
    });
  }

  // Calls visit(key, value) for every key >= from in order, until visit returns false (or
  // void). Each page is read as one consistent view. Returns the number of keys visited.
  template <class Visit>
    requires std::invocable<Visit&, Key, Value>
  std::size_t scan(Key from, Visit&& visit) const {
    const auto guard = domain_.pin();
    std::array<page_id, max_levels> path{};
    page_id page = descend_to_leaf(from, path);
    std::vector<std::pair<Key, Value>> view;
    std::size_t visited = 0;
    for (;;) {
      const record* head = mapping_.read(page);
      if (head->level != 0) {  // the root split under us: descend again
        page = descend_to_leaf(from, path);
        continue;
      }
      if (head->beyond(from)) {
        page = head->right;
        continue;
      }
      detail::bw_tree::merged_leaf<Key, Value>(head, view);
      for (const auto& [key, value] : view) {
        if (key < from) continue;
        ++visited;
        if constexpr (std::is_void_v<std::invoke_result_t<Visit&, Key, Value>>) {
          visit(key, value);
        } else {
          if (!visit(key, value)) return visited;
        }
      }
      if (!head->has_high) return visited;
      from = head->high;
      page = head->right;
    }
  }

  // ---- introspection ---------------------------------------------------------------------------

  struct tree_statistics {
    std::uint64_t consolidations = 0;
    std::uint64_t splits = 0;
    std::uint64_t root_splits = 0;
    std::uint64_t pages = 0;
  };
  [[nodiscard]] tree_statistics statistics() const {
    return {consolidations_.load(std::memory_order_relaxed), splits_.load(std::memory_order_relaxed),
            root_splits_.load(std::memory_order_relaxed), mapping_.pages_allocated()};
  }
  // Bytes of records and mapping chunks in use (retired, not yet reclaimed ones included).
  [[nodiscard]] std::size_t memory_bytes() const { return domain_.statistics().allocated_bytes; }
  [[nodiscard]] detail::epoch_statistics reclamation_statistics() const { return domain_.statistics(); }
  // Tries to advance the epoch and reclaim what the calling thread retired.
  void collect_garbage() const { domain_.collect(); }
  // The height of the tree (1: the root is a leaf).
  [[nodiscard]] std::size_t height() const {
    const auto guard = domain_.pin();
    return std::size_t{mapping_.read(root_page)->level} + 1;
  }

 private:
  static const void* line_of(const void* address) noexcept {
    return reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(address) & ~(cache_line_bytes - 1));
  }
  static const upsert_delta* as_upsert(const record* r) noexcept { return static_cast<const upsert_delta*>(r); }
  static const remove_delta* as_remove(const record* r) noexcept { return static_cast<const remove_delta*>(r); }
  static const entry_delta* as_entry(const record* r) noexcept { return static_cast<const entry_delta*>(r); }

  static void check_group(std::size_t group, const char* entry) {
    if (group == 0) throw std::invalid_argument(std::string(entry) + ": group size must be at least 1");
  }

  // multi_find's batch: every operation a get.
  struct get_batch {
    std::span<const Key> keys;
    std::span<std::optional<Value>> out;
    [[nodiscard]] std::size_t size() const noexcept { return keys.size(); }
    [[nodiscard]] static bool is_get(std::size_t) noexcept { return true; }
    [[nodiscard]] Key key(std::size_t index) const noexcept { return keys[index]; }
    static void apply(std::size_t) noexcept {}
    void deliver(std::size_t index, std::optional<Value> result) noexcept { out[index] = result; }
  };

  // ---- the hand-written state machine ----------------------------------------------------------

  // One get in flight. Each stage ends by prefetching what the next stage reads.
  struct lookup_state {
    enum class stage_kind : std::uint8_t {
      read_slot,     // the page's mapping slot is on its way: read the head record
      read_record,   // a record is on its way: range check (head), delta, or base
      search_leaf,   // a leaf base's probed key is on its way: one binary-search step
      read_value,    // the value's line is on its way
      search_inner,  // an inner base's probed separator is on its way
      read_child,    // the child page id's line is on its way
      finished,
    };
    stage_kind stage = stage_kind::finished;
    bool at_head = false;
    Key key{};
    std::size_t index = 0;
    page_id page = root_page;
    const record* current = nullptr;
    search position{nullptr, 0, 0};
    const void* fetched = nullptr;
    std::optional<Value> result;
    detail::epoch_domain::guard guard;
  };

  template <prefetch_hint Hint>
  void start(lookup_state& state, std::size_t index, Key key) const {
    state.guard = domain_.pin();
    state.index = index;
    state.key = key;
    state.result.reset();
    go_to_page<Hint>(state, root_page);
  }

  template <prefetch_hint Hint>
  void go_to_page(lookup_state& state, page_id page) const noexcept {
    state.page = page;
    prefetch<Hint>(&mapping_.at(page));
    state.stage = lookup_state::stage_kind::read_slot;
  }

  static void finish(lookup_state& state, std::optional<Value> result) noexcept {
    state.result = result;
    state.stage = lookup_state::stage_kind::finished;
  }

  // Runs the current stage of `state`.
  template <prefetch_hint Hint>
  void advance(lookup_state& state) const noexcept {
    using stage_kind = typename lookup_state::stage_kind;
    switch (state.stage) {
      case stage_kind::read_slot:
        state.current = mapping_.read(state.page);
        state.at_head = true;
        prefetch<Hint>(state.current);
        state.stage = stage_kind::read_record;
        return;
      case stage_kind::read_record: {
        const record* current = state.current;
        if (state.at_head) {
          state.at_head = false;
          if (current->beyond(state.key)) {
            go_to_page<Hint>(state, current->right);
            return;
          }
        }
        if (current->level > 0) {
          if (current->kind == record_kind::inner_entry && as_entry(current)->covers(state.key)) {
            go_to_page<Hint>(state, as_entry(current)->child);
            return;
          }
          if (current->kind == record_kind::inner_base) {
            const inner_base* base = static_cast<const inner_base*>(current);
            state.position = {base->keys(), 0, base->count};
            state.fetched = line_of(base);
            continue_inner_search<Hint>(state);
            return;
          }
        } else {
          if (current->kind == record_kind::leaf_upsert && as_upsert(current)->key == state.key) {
            finish(state, as_upsert(current)->value);
            return;
          }
          if (current->kind == record_kind::leaf_remove && as_remove(current)->key == state.key) {
            finish(state, std::nullopt);
            return;
          }
          if (current->kind == record_kind::leaf_base) {
            const leaf_base* base = static_cast<const leaf_base*>(current);
            if (base->count == 0 || base->keys()[0] > state.key) {
              finish(state, std::nullopt);
              return;
            }
            state.position = {base->keys(), 0, base->count};
            state.fetched = line_of(base);
            continue_leaf_search<Hint>(state);
            return;
          }
        }
        state.current = current->next;  // a delta about other keys, or a split delta
        prefetch<Hint>(state.current);
        return;
      }
      case stage_kind::search_leaf:
        state.position.step(state.key);
        continue_leaf_search<Hint>(state);
        return;
      case stage_kind::read_value:
        finish(state, static_cast<const leaf_base*>(state.current)->payloads()[state.position.first]);
        return;
      case stage_kind::search_inner:
        state.position.step(state.key);
        continue_inner_search<Hint>(state);
        return;
      case stage_kind::read_child:
        go_to_page<Hint>(state, static_cast<const inner_base*>(state.current)->payloads()[state.position.first]);
        return;
      case stage_kind::finished: return;
    }
  }

  // The binary search's next probe if it lies on a line other than `fetched` (which then
  // becomes its line): the one rule by which the coroutine and the state machines decide to
  // fetch. Null if the probe's line is already loaded.
  static const Key* probe_on_new_line(const search& position, const void*& fetched) noexcept {
    const Key* probe = position.probe();
    if (line_of(probe) == fetched) return nullptr;
    fetched = line_of(probe);
    return probe;
  }

  // Binary-search steps whose probe is on a line already fetched run at once; the first on a
  // new line is prefetched and becomes the next stage.
  template <prefetch_hint Hint>
  static bool probe_cached(lookup_state& state, typename lookup_state::stage_kind next) noexcept {
    while (!state.position.done()) {
      if (const Key* probe = probe_on_new_line(state.position, state.fetched)) {
        prefetch<Hint>(probe);
        state.stage = next;
        return false;
      }
      state.position.step(state.key);
    }
    return true;
  }

  template <prefetch_hint Hint>
  static void continue_leaf_search(lookup_state& state) noexcept {
    if (!probe_cached<Hint>(state, lookup_state::stage_kind::search_leaf)) return;
    const leaf_base* base = static_cast<const leaf_base*>(state.current);
    if (base->keys()[state.position.first] != state.key) {
      finish(state, std::nullopt);
      return;
    }
    const Value* value = base->payloads() + state.position.first;
    if (line_of(value) == state.fetched) {
      finish(state, *value);
      return;
    }
    prefetch<Hint>(value);
    state.stage = lookup_state::stage_kind::read_value;
  }

  template <prefetch_hint Hint>
  void continue_inner_search(lookup_state& state) const noexcept {
    if (!probe_cached<Hint>(state, lookup_state::stage_kind::search_inner)) return;
    const page_id* link = static_cast<const inner_base*>(state.current)->payloads() + state.position.first;
    if (line_of(link) == state.fetched) {
      go_to_page<Hint>(state, *link);
      return;
    }
    prefetch<Hint>(link);
    state.stage = lookup_state::stage_kind::read_child;
  }

  // ---- writes ----------------------------------------------------------------------------------

  template <class Payload>
  detail::bw_tree::base_node<Key, Payload>* new_base(std::uint32_t count, std::uint8_t level, bool has_high, Key high,
                                                     page_id right) {
    using base = detail::bw_tree::base_node<Key, Payload>;
    auto* node = new (domain_.allocate(base::bytes_for(count))) base;
    node->kind = level > 0 ? record_kind::inner_base : record_kind::leaf_base;
    node->level = level;
    node->has_high = has_high ? 1 : 0;
    node->chain_length = 0;
    node->right = right;
    node->high = high;
    node->next = nullptr;
    node->count = count;
    return node;
  }

  // The delta's header repeats the page's state and links to the current head.
  static void stack_on(record* delta, const record* head) noexcept {
    delta->level = head->level;
    delta->has_high = head->has_high;
    delta->chain_length = head->chain_length + 1;
    delta->right = head->right;
    delta->high = head->high;
    delta->next = head;
  }

  static std::size_t record_bytes(const record* r) noexcept {
    switch (r->kind) {
      case record_kind::leaf_base: return static_cast<const leaf_base*>(r)->bytes();
      case record_kind::inner_base: return static_cast<const inner_base*>(r)->bytes();
      case record_kind::leaf_upsert: return sizeof(upsert_delta);
      case record_kind::leaf_remove: return sizeof(remove_delta);
      case record_kind::split: return sizeof(record);
      case record_kind::inner_entry: return sizeof(entry_delta);
    }
    return sizeof(record);
  }

  // The page at `level` responsible for `key`, found from the root (the tree may have grown
  // since a path was recorded). Records the pages passed on the way in `path`.
  page_id find_page(Key key, std::uint8_t level, std::array<page_id, max_levels>& path) const {
    page_id page = root_page;
    for (;;) {
      const record* head = mapping_.read(page);
      if (head->beyond(key)) {
        page = head->right;
        continue;
      }
      path[head->level] = page;
      if (head->level <= level) return page;
      page = child_for(head, key);
    }
  }
  page_id descend_to_leaf(Key key, std::array<page_id, max_levels>& path) const { return find_page(key, 0, path); }

  // The child of an inner page (given its head) that holds `key`, plainly.
  static page_id child_for(const record* head, Key key) noexcept {
    const record* current = head;
    while (!current->is_base()) {
      if (current->kind == record_kind::inner_entry && as_entry(current)->covers(key)) return as_entry(current)->child;
      current = current->next;
    }
    const inner_base* base = static_cast<const inner_base*>(current);
    search position{base->keys(), 0, base->count};
    while (!position.done()) position.step(key);
    return base->payloads()[position.first];
  }

  // When a write takes effect, given whether the key is present on its leaf page.
  enum class write_rule { blind, always, if_absent, if_present };

  static auto upsert_builder(Key key, Value value) noexcept {
    return [key, value](void* memory) {
      auto* delta = new (memory) upsert_delta;
      delta->kind = record_kind::leaf_upsert;
      delta->key = key;
      delta->value = value;
      return delta;
    };
  }

  // Installs the delta `build` makes on the key's leaf page, if `rule` allows it given whether
  // the key is present on the head it is installed on (the compare-and-swap keeps that head).
  // Returns whether the key was present (false for a blind write, which does not look).
  template <class Build>
  bool write_leaf(Key key, Build build, std::size_t bytes, write_rule rule) {
    const auto guard = domain_.pin();
    std::array<page_id, max_levels> path{};
    page_id page = descend_to_leaf(key, path);
    record* delta = build(domain_.allocate(bytes));
    bool present = false;
    for (;;) {
      const record* head = mapping_.read(page);
      if (head->level != 0) {  // the root split and moved down: find the leaf again
        page = descend_to_leaf(key, path);
        continue;
      }
      if (head->beyond(key)) {
        page = head->right;
        path[0] = page;
        continue;
      }
      if (rule != write_rule::blind) {
        present = detail::bw_tree::leaf_holds<Key, Value>(head, key);
        if ((rule == write_rule::if_absent && present) || (rule == write_rule::if_present && !present)) {
          domain_.deallocate(delta, bytes);  // never published
          return present;
        }
      }
      stack_on(delta, head);
      if (mapping_.install(page, head, delta)) break;
    }
    if (delta->chain_length >= ChainThreshold) consolidate(page, path);
    return present;
  }

  template <class Payload>
  detail::bw_tree::base_node<Key, Payload>* build_base(const std::vector<std::pair<Key, Payload>>& entries,
                                                       std::size_t first, std::size_t last, std::uint8_t level,
                                                       bool has_high, Key high, page_id right) {
    auto* node = new_base<Payload>(static_cast<std::uint32_t>(last - first), level, has_high, high, right);
    for (std::size_t index = first; index < last; ++index) {
      node->keys()[index - first] = entries[index].first;
      node->payloads()[index - first] = entries[index].second;
    }
    return node;
  }

  void retire_chain(const record* head) {
    for (const record* current = head; current != nullptr;) {
      const record* older = current->next;
      domain_.retire(const_cast<record*>(current), record_bytes(current));
      current = older;
    }
  }

  // Replaces the page's chain by one base node; splits it if it is over capacity.
  void consolidate(page_id page, std::array<page_id, max_levels>& path) {
    const record* head = mapping_.read(page);
    if (head->is_base()) return;
    if (head->level == 0) {
      std::vector<std::pair<Key, Value>> entries;
      detail::bw_tree::merged_leaf<Key, Value>(head, entries);
      leaf_base* base = build_base<Value>(entries, 0, entries.size(), 0, head->has_high != 0, head->high, head->right);
      replace_and_split(page, head, base, entries, path);
    } else {
      std::vector<std::pair<Key, page_id>> entries;
      detail::bw_tree::merged_inner<Key>(head, entries);
      inner_base* base =
          build_base<page_id>(entries, 0, entries.size(), head->level, head->has_high != 0, head->high, head->right);
      replace_and_split(page, head, base, entries, path);
    }
  }

  template <class Payload>
  void replace_and_split(page_id page, const record* head, detail::bw_tree::base_node<Key, Payload>* base,
                         const std::vector<std::pair<Key, Payload>>& entries, std::array<page_id, max_levels>& path) {
    if (!mapping_.install(page, head, base)) {
      domain_.deallocate(base, base->bytes());  // another write got in first; it will consolidate
      return;
    }
    consolidations_.fetch_add(1, std::memory_order_relaxed);
    retire_chain(head);
    const std::uint32_t capacity = base->level == 0 ? LeafCapacity : InnerCapacity;
    if (base->count <= capacity) return;
    if (page == root_page) {
      split_root(base, entries);
    } else {
      split(page, base, entries, path);
    }
  }

  // Moves the upper half of an over-full page to a new right sibling, redirects the page's
  // upper keys there with a split delta, and posts the separator to the parent.
  template <class Payload>
  void split(page_id page, const detail::bw_tree::base_node<Key, Payload>* base,
             const std::vector<std::pair<Key, Payload>>& entries, std::array<page_id, max_levels>& path) {
    const std::size_t half = entries.size() / 2;
    const Key separator = entries[half].first;
    auto* sibling =
        build_base<Payload>(entries, half, entries.size(), base->level, base->has_high != 0, base->high, base->right);
    const page_id sibling_page = mapping_.allocate();
    mapping_.publish(sibling_page, sibling);
    auto* delta = new (domain_.allocate(sizeof(record))) record;
    delta->kind = record_kind::split;
    stack_on(delta, base);
    delta->has_high = 1;
    delta->high = separator;
    delta->right = sibling_page;
    if (!mapping_.install(page, base, delta)) {
      // Another write got in first: the page splits at its next consolidation.
      domain_.deallocate(delta, sizeof(record));
      domain_.deallocate(sibling, sibling->bytes());
      mapping_.release(sibling_page);
      return;
    }
    splits_.fetch_add(1, std::memory_order_relaxed);
    post_entry(static_cast<std::uint8_t>(base->level + 1), separator, sibling_page, base->has_high != 0, base->high,
               path);
  }

  // Adds the index entry [separator, high) -> child to the parent level.
  void post_entry(std::uint8_t level, Key separator, page_id child, bool has_high, Key high,
                  std::array<page_id, max_levels>& path) {
    page_id page = path[level];
    auto* delta = new (domain_.allocate(sizeof(entry_delta))) entry_delta;
    delta->kind = record_kind::inner_entry;
    delta->separator = separator;
    delta->entry_high = high;
    delta->entry_has_high = has_high ? 1 : 0;
    delta->child = child;
    for (;;) {
      const record* head = mapping_.read(page);
      if (head->level != level) {  // the path is stale: the root grew since
        page = find_page(separator, level, path);
        continue;
      }
      if (head->beyond(separator)) {
        page = head->right;
        continue;
      }
      stack_on(delta, head);
      if (mapping_.install(page, head, delta)) break;
    }
    path[level] = page;
    if (delta->chain_length >= ChainThreshold) consolidate(page, path);
  }

  // The root keeps its page id: both halves move to new pages under a new root base.
  template <class Payload>
  void split_root(const detail::bw_tree::base_node<Key, Payload>* base, const std::vector<std::pair<Key, Payload>>& entries) {
    const std::size_t half = entries.size() / 2;
    const Key separator = entries[half].first;
    const page_id left_page = mapping_.allocate();
    const page_id right_page = mapping_.allocate();
    auto* left = build_base<Payload>(entries, 0, half, base->level, true, separator, right_page);
    auto* right = build_base<Payload>(entries, half, entries.size(), base->level, base->has_high != 0, base->high,
                                      base->right);
    mapping_.publish(left_page, left);
    mapping_.publish(right_page, right);
    inner_base* root = new_base<page_id>(2, static_cast<std::uint8_t>(base->level + 1), base->has_high != 0,
                                         base->high, base->right);
    root->keys()[0] = std::numeric_limits<Key>::min();
    root->keys()[1] = separator;
    root->payloads()[0] = left_page;
    root->payloads()[1] = right_page;
    if (!mapping_.install(root_page, base, root)) {
      domain_.deallocate(root, root->bytes());
      domain_.deallocate(left, left->bytes());
      domain_.deallocate(right, right->bytes());
      mapping_.release(right_page);
      mapping_.release(left_page);
      return;
    }
    root_splits_.fetch_add(1, std::memory_order_relaxed);
    domain_.retire(const_cast<detail::bw_tree::base_node<Key, Payload>*>(base), base->bytes());
  }

  mutable detail::epoch_domain domain_;
  detail::bw_tree::mapping_table<Key> mapping_;
  std::atomic<std::uint64_t> consolidations_{0};
  std::atomic<std::uint64_t> splits_{0};
  std::atomic<std::uint64_t> root_splits_{0};
};

}  // namespace braid
