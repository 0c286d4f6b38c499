// skip_list<Key, Value>: a sorted map as a skip list with folly-like tower nodes, the skip
// list (SL) and skip-list iterator (SLi) benchmarks of Cimple (Kiriansky et al., PACT'18).
//
//   braid::skip_list<std::uint64_t, std::uint64_t> list(keys, values);   // insertion order
//   list.find(42);
//   list.multi_find(lookups, results, braid::technique::coro, 16);
//   list.multi_scan(requests, counts, braid::technique::coro, 16,
//                   [&](std::size_t request, std::uint64_t key, std::uint64_t value) { ... });
//
// Layout (folly's ConcurrentSkipList node): key, value, height, then an inline array of
// `height` next pointers, one per level; level 0 links every node in key order. A node is
// placed at a multiple of 32 bytes, so key, value and the level-0 link share one cache line
// (a range scan touches one line per entry). Heights are geometric with p = 1/e and at most
// max_height, as in folly (expected height 1.58, about 44 bytes per node for 64-bit keys and
// values). Nodes live in a node arena on huge pages, placed in insertion order: neighbours in
// key order are far apart in memory, as in a list built by inserts.
//
// Invariants:
//  - level 0 holds every entry in strictly increasing key order; level L holds exactly the
//    nodes of height > L, in the same order (so each level is a sublist of the one below);
//  - the head has max_height links; those at levels >= height() are null;
//  - erased nodes are recycled for later inserts of the same height.
//
// Complexity: find / insert / erase expected O(log n) (about e * ln n node visits); a scan
// of m entries O(log n + m). The bulk constructor sorts once (O(n log n)) and links in O(n);
// it builds exactly the list that inserting the same pairs one by one builds.
//
// Lookups and scans, all returning exactly what find / scan return:
//   find(key), scan(start, limit, visit)            plain: baseline and oracle
//   lookup<M>(key), scan_coroutine<M>(start, limit, visit)   coro<>; sequential = plain
//   find_on_fiber, scan_on_fiber                    the stackful comparators
//   find_group_prefetching<H>(keys, out, group)     hand-written group prefetching (gp)
//   scan_group_prefetching<H>(requests, visited, group, visit)
//   find_amac<H>(keys, out, group)                  hand-written AMAC (amac)
//   scan_amac<H>(requests, visited, group, visit)
//   find_imlp<H, L, D>(keys, out, group, schedule)  the lookup generated from the kernel
//                                                   description kernels/skip_list_find.imlp.cpp
//   scan_imlp<H, L, D>(requests, visited, group, schedule, visit)   the scan generated from
//                                                   kernels/skip_list_scan.imlp.cpp (Cimple's SLi)
//   multi_find(keys, out, technique, group)         naive, gp, amac, coro, fiber, adaptive, imlp-*
//   multi_scan(requests, visited, technique, group, visit)   the same techniques, many scans
// Cimple has no group-prefetching or AMAC version of the skip list; these are the hand-written
// comparators of its generated code. They make the same down-and-right search as the coroutine
// and the kernels, with the same prefetch points: the candidate node and the link of the level
// it will read are prefetched, and examined one step later; a scan's walk prefetches each next
// entry. GP advances a group of searches in lock step, one node each per round: a search that
// has finished (a short descent, a short scan) idles until the whole group has finished, so a
// group costs as many rounds as its longest search (GP's known limit for variable-length
// searches). AMAC runs a ring of state machines and refills a finished slot at once.
//
// Not thread-safe for writers; concurrent readers are fine.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "braid/core/coro.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/fiber.hpp"
#include "braid/core/input_stream.hpp"
#include "braid/core/huge_buffer.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/prefetch.hpp"
#include "braid/core/radix_sort.hpp"
#include "braid/core/scheduler.hpp"
#include "braid/index/detail/build_arguments.hpp"
#include "braid/index/detail/lookup_techniques.hpp"
#include "braid/index/detail/multi_scan.hpp"
#include "braid/index/detail/ordered_node_arena.hpp"
#include "braid/index/generated/skip_list_find.hpp"
#include "braid/index/generated/skip_list_scan.hpp"
#include "braid/index/technique.hpp"

namespace braid {

template <std::totally_ordered Key = std::uint64_t, class Value = std::uint64_t>
  requires std::is_trivially_copyable_v<Key> && std::is_trivially_copyable_v<Value>
class skip_list : public detail::multi_find_member<skip_list<Key, Value>, Key, std::optional<Value>>,
                 public detail::multi_scan_member<skip_list<Key, Value>, Key> {
 public:
  using key_type = Key;
  using mapped_type = Value;
  static constexpr prefetch_hint default_prefetch_hint = prefetch_hint::t0;  // nodes are reused: every level
  static constexpr const char* structure_name = "skip_list";

  static constexpr std::size_t max_height = 24;

  // The fixed part of a node; its `height` next pointers follow at links_offset.
  struct node {
    Key key;
    Value value;
    std::uint32_t height;
  };
  static constexpr std::size_t links_offset = (sizeof(node) + alignof(node*) - 1) / alignof(node*) * alignof(node*);
  static constexpr std::size_t node_alignment = 32;

  // One range scan: up to `limit` entries with key >= start, in key order.
  using scan_request = detail::scan_request<Key>;

  explicit skip_list(page_size pages = page_size::huge_2m, std::uint64_t height_seed = default_height_seed)
      : arena_(pages), height_random_(height_seed) {
    reset_head();
  }

  // The list that inserting (keys[i], values[i]) for i = 0, 1, ... builds, tower heights drawn
  // from `height_seed` in that order; for a repeated key the first pair wins. Throws
  // std::invalid_argument if the spans differ in length.
  skip_list(std::span<const Key> keys, std::span<const Value> values, page_size pages = page_size::huge_2m,
            std::uint64_t height_seed = default_height_seed)
      : arena_(pages), height_random_(height_seed) {
    detail::check_same_length(keys.size(), values.size(), "skip_list");
    reset_head();
    build_in_insertion_order(keys, values);
  }

  // A moved-from list is empty. (The head lives inside the object; no node links to it.)
  skip_list(skip_list&& other) noexcept
      : arena_(std::move(other.arena_)),
        head_storage_(other.head_storage_),
        height_(std::exchange(other.height_, 1)),
        size_(std::exchange(other.size_, 0)),
        free_by_height_(std::exchange(other.free_by_height_, {})),
        height_random_(other.height_random_) {
    other.reset_head();
  }
  skip_list& operator=(skip_list&& other) noexcept {
    if (this != &other) {
      arena_ = std::move(other.arena_);
      head_storage_ = other.head_storage_;
      height_ = std::exchange(other.height_, 1);
      size_ = std::exchange(other.size_, 0);
      free_by_height_ = std::exchange(other.free_by_height_, {});
      height_random_ = other.height_random_;
      other.reset_head();
    }
    return *this;
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  // Levels in use: the tallest tower (1 for an empty list).
  [[nodiscard]] std::size_t height() const noexcept { return height_; }
  [[nodiscard]] std::size_t memory_bytes() const noexcept { return arena_.reserved_bytes(); }
  [[nodiscard]] std::string describe_pages() const { return arena_.describe_pages(); }

  // Inserts (key, value) unless key is present; returns whether it inserted.
  bool insert(const Key& key, const Value& value) {
    std::array<node*, max_height> predecessors;
    node* found = locate(key, predecessors);
    if (found != nullptr) return false;
    const std::size_t tower = draw_height();
    for (std::size_t level = height_; level < tower; ++level) predecessors[level] = head();
    height_ = std::max(height_, tower);
    node* fresh = new_node(key, value, tower);
    for (std::size_t level = 0; level < tower; ++level) {
      links(fresh)[level] = links(predecessors[level])[level];
      links(predecessors[level])[level] = fresh;
    }
    ++size_;
    return true;
  }

  // Removes key if present; returns whether it did.
  bool erase(const Key& key) {
    std::array<node*, max_height> predecessors;
    node* doomed = locate(key, predecessors);
    if (doomed == nullptr) return false;
    for (std::size_t level = 0; level < doomed->height; ++level) {
      links(predecessors[level])[level] = links(doomed)[level];
    }
    while (height_ > 1 && links(head())[height_ - 1] == nullptr) --height_;
    free_node(doomed);
    --size_;
    return true;
  }

  // ---- point lookups --------------------------------------------------------------------------

  [[nodiscard]] std::optional<Value> find(const Key& key) const { return descend(key, detail::plain_load{}); }
  [[nodiscard]] bool contains(const Key& key) const { return find(key).has_value(); }

  // A node's next pointers, one per level of its tower (for the generated lookup).
  static node* const* links_of(const node* n) noexcept { return links(n); }

  // The generated IMLP lookup (find_imlp, from detail/multi_find.hpp): its kernel, shared arguments.
  template <prefetch_hint Hint> using imlp_kernel = imlp_kernels::skip_list_find<Hint, skip_list, node, Key, Value>;
  template <class Kernel> typename Kernel::shared_args imlp_shared() const noexcept { return {head(), height_}; }

  // Down-and-right search, one suspension per node examined. A node met again one level down
  // (the one the level above stopped at) is known to be greater and is not fetched twice.
  template <execution_mode M, class Inputs>
  stream_coro<Inputs> lookups(Inputs inputs) const {
    while (const auto input = inputs.next()) {
      std::optional<Value> result;
      for (descent search(head(), height_); search.candidate != nullptr;) {
        const node& examined = co_await fetch_candidate<M>(search);
        if (examined.key == input.key) {
          result = examined.value;
          break;
        }
        search.step(examined.key < input.key);
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
    return descend(key, fiber_line_load<Hint>{context});
  }

  // Group prefetching: groups of `group` lookups advance in lock step, one node each per round.
  template <prefetch_hint Hint = default_prefetch_hint>
  void find_group_prefetching(std::span<const Key> keys, std::span<std::optional<Value>> out, std::size_t group) const {
    detail::check_batch_arguments(keys.size(), out.size(), group, "skip_list::find_group_prefetching");
    const lookup_machine<Hint> machine{*this, keys, out};
    run_in_lock_step<pending_lookup>(keys.size(), group, machine.begins(), machine.advances());
  }

  // AMAC: a ring of `group` lookup state machines; a finished one takes the next key at once.
  template <prefetch_hint Hint = default_prefetch_hint>
  void find_amac(std::span<const Key> keys, std::span<std::optional<Value>> out, std::size_t group) const {
    detail::check_batch_arguments(keys.size(), out.size(), group, "skip_list::find_amac");
    const lookup_machine<Hint> machine{*this, keys, out};
    detail::run_state_machines<pending_lookup>(keys.size(), group, machine.begins(), machine.advances());
  }

  // ---- range scans ----------------------------------------------------------------------------

  // Calls visit(key, value) for up to `limit` entries with key >= start, in key order; returns
  // how many it visited.
  template <class Visitor>
  std::size_t scan(const Key& start, std::size_t limit, Visitor&& visit) const {
    return scan_with(start, limit, visit, detail::plain_load{});
  }

  // The scan as a coroutine: the descent to the first entry suspends at each node it examines,
  // the walk along level 0 at each next entry. `visit` is kept in the frame.
  template <execution_mode M, class Visitor>
  coro<std::size_t> scan_coroutine(Key start, std::size_t limit, Visitor visit) const {
    descent search(head(), height_);
    while (search.candidate != nullptr) {
      const node& examined = co_await fetch_candidate<M>(search);
      search.step(examined.key < start);
    }
    // The first entry >= start was examined by the descent (it is `known_greater`): in cache.
    std::size_t visited = 0;
    for (const node* entry = limit == 0 ? nullptr : links(search.predecessor)[0]; entry != nullptr;) {
      entry = visit_then_next(entry, visited, limit, visit);
      if (entry != nullptr) co_await fetch<M>(entry);
    }
    co_return visited;
  }

  template <prefetch_hint Hint = default_prefetch_hint, class Visitor>
  std::size_t scan_on_fiber(fiber_context& context, const Key& start, std::size_t limit, Visitor&& visit) const {
    return scan_with(start, limit, visit, fiber_line_load<Hint>{context});
  }

  // Many scans at once (multi_scan's gp and amac): visit(request index, key, value) for each
  // entry, in key order within a request; visited[i] the entries request i visited. Group
  // prefetching: groups of `group` scans advance in lock step, one node each per round.
  template <prefetch_hint Hint = default_prefetch_hint, class Visitor>
  void scan_group_prefetching(std::span<const scan_request> requests, std::span<std::size_t> visited,
                              std::size_t group, Visitor&& visit) const {
    detail::check_batch_arguments(requests.size(), visited.size(), group, "skip_list::scan_group_prefetching");
    const scan_machine<Hint, std::remove_reference_t<Visitor>> machine{*this, requests, visited, visit};
    run_in_lock_step<pending_scan>(requests.size(), group, machine.begins(), machine.advances());
  }

  // AMAC: a ring of `group` scan state machines; a finished one takes the next request at once.
  template <prefetch_hint Hint = default_prefetch_hint, class Visitor>
  void scan_amac(std::span<const scan_request> requests, std::span<std::size_t> visited, std::size_t group,
                 Visitor&& visit) const {
    detail::check_batch_arguments(requests.size(), visited.size(), group, "skip_list::scan_amac");
    const scan_machine<Hint, std::remove_reference_t<Visitor>> machine{*this, requests, visited, visit};
    detail::run_state_machines<pending_scan>(requests.size(), group, machine.begins(), machine.advances());
  }

  // The generated IMLP scan (scan_imlp, from detail/multi_scan.hpp): its kernel, which calls
  // visit(request index, key, value) for each entry, and its shared arguments.
  template <prefetch_hint Hint, class Visitor>
  using imlp_scan_kernel = imlp_kernels::skip_list_scan<Hint, skip_list, node, Key, Value, Visitor>;
  template <class Kernel, class Visitor>
  typename Kernel::shared_args imlp_scan_shared(Visitor& visit) const noexcept {
    return {head(), height_, &visit};
  }

  // Calls visit(key, value) for every entry in key order.
  template <class Visitor>
  void for_each(Visitor&& visit) const {
    for (const node* entry = links(head())[0]; entry != nullptr; entry = links(entry)[0]) visit(entry->key, entry->value);
  }

  // Calls visit(key, height) for every entry in key order: the shape, for tests.
  template <class Visitor>
  void for_each_tower(Visitor&& visit) const {
    for (const node* entry = links(head())[0]; entry != nullptr; entry = links(entry)[0]) visit(entry->key, entry->height);
  }

  // Throws std::logic_error naming the first broken invariant.
  void check_invariants() const {
    auto fail = [](const std::string& what) { throw std::logic_error("skip_list: " + what); };
    std::size_t counted = 0;
    std::size_t tallest = 1;
    for (const node* entry = links(head())[0]; entry != nullptr; entry = links(entry)[0]) {
      ++counted;
      if (entry->height == 0 || entry->height > max_height) fail("tower height out of range");
      tallest = std::max<std::size_t>(tallest, entry->height);
      const node* next = links(entry)[0];
      if (next != nullptr && !(entry->key < next->key)) fail("level 0 not strictly increasing");
    }
    if (counted != size_) fail("level 0 holds " + std::to_string(counted) + " entries, size() is " + std::to_string(size_));
    if (tallest != height_) fail("height() " + std::to_string(height_) + " but tallest tower " + std::to_string(tallest));
    for (std::size_t level = height_; level < max_height; ++level) {
      if (links(head())[level] != nullptr) fail("head link above height() is set");
    }
    for (std::size_t level = 1; level < height_; ++level) {
      // Level `level` must list exactly the nodes of height > level, in level-0 order.
      const node* expected = links(head())[0];
      for (const node* entry = links(head())[level]; entry != nullptr; entry = links(entry)[level]) {
        while (expected != nullptr && expected->height <= level) expected = links(expected)[0];
        if (entry != expected) fail("level " + std::to_string(level) + " is not the sublist of tall towers");
        expected = links(expected)[0];
      }
      while (expected != nullptr && expected->height <= level) expected = links(expected)[0];
      if (expected != nullptr) fail("level " + std::to_string(level) + " misses a tower");
    }
  }

 private:
  static constexpr std::uint64_t default_height_seed = 0x5EED5EED5EED5EEDull;

  // Where the bytes a search reads at `level` end: the fixed part and links 0..level.
  static constexpr std::size_t link_end(std::size_t level) noexcept {
    return links_offset + (level + 1) * sizeof(node*);
  }

  static node** links(node* n) noexcept {
    return std::launder(reinterpret_cast<node**>(reinterpret_cast<std::byte*>(n) + links_offset));
  }
  static node* const* links(const node* n) noexcept {
    return std::launder(reinterpret_cast<node* const*>(reinterpret_cast<const std::byte*>(n) + links_offset));
  }

  static constexpr std::size_t node_bytes(std::size_t height) noexcept {
    return (links_offset + height * sizeof(node*) + node_alignment - 1) / node_alignment * node_alignment;
  }

  // The fiber comparator's load: a node's lines up to the link the search will read. The plain
  // descent does not need the level (it just reads), so it takes the plain load.
  template <prefetch_hint Hint>
  struct fiber_line_load {
    fiber_context& context;
    const node& operator()(const node* n, std::size_t bytes) const {
      prefetch_lines<Hint>(n, bytes);
      context.suspend();
      return *n;
    }
    const node& operator()(const node* n) const { return fiber_fetch<Hint>(context, n); }
  };

  template <class Load>
  static const node& load_for_level(Load& load, const node* n, std::size_t level) {
    if constexpr (requires { load(n, link_end(level)); }) {
      return load(n, link_end(level));
    } else {
      return load(n);
    }
  }

  // The down-and-right search of the coroutines and the scans: `candidate` is the node to examine
  // next, at `level`; step() then moves right past it (its key is smaller than the one searched)
  // or down a level (settle()), where the node it stopped at is known to be greater and is not
  // examined again. It ends (candidate null) past level 0, `predecessor` the last node smaller.
  struct descent {
    const node* predecessor = nullptr;
    std::size_t level = 0;
    const node* candidate = nullptr;
    const node* known_greater = nullptr;
    descent() noexcept = default;  // ended; for scratch state
    descent(const node* head_node, std::size_t height) noexcept : predecessor(head_node), level(height) { settle(); }

    void step(bool smaller) noexcept {
      if (smaller) predecessor = std::exchange(candidate, links(candidate)[level]);
      else known_greater = candidate;
      settle();
    }
   private:
    void settle() noexcept {
      while ((candidate == nullptr || candidate == known_greater) && level > 0) candidate = links(predecessor)[--level];
      if (candidate == known_greater) candidate = nullptr;
    }
  };

  // The coroutines' fetch of the descent's candidate: its first line and the line of the link at
  // its level, the two the search reads there (the prefetch points of every technique).
  template <execution_mode M>
  static auto fetch_candidate(const descent& search) noexcept {
    if constexpr (M::suspends) prefetch<M::hint>(&links(search.candidate)[search.level]);
    return fetch<M>(search.candidate);
  }

  // Prefetches the descent's next candidate and the link of its level that the search will read
  // there (the kernels' prefetch points); false once the descent has ended.
  template <prefetch_hint Hint>
  static bool prefetch_candidate(const descent& search) noexcept {
    if (search.candidate == nullptr) return false;
    prefetch<Hint>(search.candidate);
    prefetch<Hint>(&links(search.candidate)[search.level]);
    return true;
  }

  // GP's driver, for the state machines run_state_machines drives (begin / advance, the same
  // contract): inputs [base, base + group) begin together and advance one step per round in
  // lock step; a finished one idles until the whole group has finished, then the next begins.
  template <class State, class Begin, class Advance>
  static void run_in_lock_step(std::size_t count, std::size_t group, Begin begin, Advance advance) {
    struct member {
      State state;
      bool running = false;
    };
    detail::scratch_array<member> members(std::min(group, count));
    for (std::size_t base = 0; base < count; base += group) {
      const std::size_t width = std::min(group, count - base);
      std::size_t unfinished = 0;
      for (std::size_t i = 0; i < width; ++i) {
        members[i].running = begin(members[i].state, base + i);
        unfinished += members[i].running ? 1 : 0;
      }
      while (unfinished > 0) {
        for (std::size_t i = 0; i < width; ++i) {
          if (members[i].running && !advance(members[i].state)) {
            members[i].running = false;
            --unfinished;
          }
        }
      }
    }
  }

  // Handing a machine's begin / advance to a driver.
  template <class Machine, class State>
  struct machine_steps {
    auto begins() const {
      return [this](State& state, std::size_t index) { return self().begin(state, index); };
    }
    auto advances() const {
      return [this](State& state) { return self().advance(state); };
    }
    const Machine& self() const noexcept { return static_cast<const Machine&>(*this); }
  };

  // One lookup of GP or AMAC: its descent and its input index.
  struct pending_lookup {
    descent search;
    std::size_t index = 0;
  };

  // The lookup as an explicit state machine: begin() starts input `index`'s descent and
  // prefetches its first candidate; advance() examines the prefetched candidate, then steps
  // down or right and prefetches the next. Each returns false once the lookup has finished,
  // its result written to out.
  template <prefetch_hint Hint>
  struct lookup_machine : machine_steps<lookup_machine<Hint>, pending_lookup> {
    const skip_list& list;
    std::span<const Key> keys;
    std::span<std::optional<Value>> out;
    lookup_machine(const skip_list& searched, std::span<const Key> searched_keys, std::span<std::optional<Value>> results)
        : list(searched), keys(searched_keys), out(results) {}

    bool begin(pending_lookup& lookup, std::size_t index) const {
      lookup = {descent(list.head(), list.height_), index};
      return goes_on(lookup);
    }
    bool advance(pending_lookup& lookup) const {
      const node& examined = *lookup.search.candidate;
      const Key& key = keys[lookup.index];
      if (examined.key == key) {
        out[lookup.index] = examined.value;
        return false;
      }
      lookup.search.step(examined.key < key);
      return goes_on(lookup);
    }

   private:
    bool goes_on(const pending_lookup& lookup) const {
      if (prefetch_candidate<Hint>(lookup.search)) return true;
      out[lookup.index] = std::nullopt;  // past level 0: absent
      return false;
    }
  };

  // One scan of GP or AMAC: its descent, then its walk along level 0.
  struct pending_scan {
    descent search;
    const node* entry = nullptr;  // the walk's next entry (examined by the descent, or prefetched)
    std::size_t visited = 0;
    std::size_t request = 0;
  };

  // The scan as an explicit state machine: begin() starts request `request`'s descent;
  // advance() examines the prefetched candidate and steps down or right, or, once the descent
  // has ended, visits the walk's entry and prefetches the next. Each returns false once the
  // scan has finished, its count written to visited.
  template <prefetch_hint Hint, class Visitor>
  struct scan_machine : machine_steps<scan_machine<Hint, Visitor>, pending_scan> {
    const skip_list& list;
    std::span<const scan_request> requests;
    std::span<std::size_t> visited;
    Visitor& visit;
    scan_machine(const skip_list& scanned, std::span<const scan_request> scans, std::span<std::size_t> counts,
                 Visitor& visitor)
        : list(scanned), requests(scans), visited(counts), visit(visitor) {}

    bool begin(pending_scan& scan, std::size_t request) const {
      scan = {descent(list.head(), list.height_), nullptr, 0, request};
      return descends_or_walks(scan);
    }
    bool advance(pending_scan& scan) const {
      if (scan.search.candidate == nullptr) return walks(scan);
      scan.search.step(scan.search.candidate->key < requests[scan.request].start);
      return descends_or_walks(scan);
    }

   private:
    // The first entry >= start was examined by the descent (it is in cache): visited at once.
    bool descends_or_walks(pending_scan& scan) const {
      if (prefetch_candidate<Hint>(scan.search)) return true;
      scan.entry = requests[scan.request].limit == 0 ? nullptr : links(scan.search.predecessor)[0];
      return walks(scan);
    }
    bool walks(pending_scan& scan) const {
      auto visit_entry = [this, &scan](const Key& key, const Value& value) { visit(scan.request, key, value); };
      const std::size_t limit = requests[scan.request].limit;
      if (scan.entry != nullptr) scan.entry = visit_then_next(scan.entry, scan.visited, limit, visit_entry);
      if (scan.entry == nullptr) {
        visited[scan.request] = scan.visited;
        return false;
      }
      prefetch<Hint>(scan.entry);
      return true;
    }
  };

  // A scan's walk along level 0 from the descent's predecessor: visits `entry`, then returns
  // the next entry to visit, null at the end of the list or of the `limit`.
  template <class Visitor>
  static const node* visit_then_next(const node* entry, std::size_t& visited, std::size_t limit, Visitor& visit) {
    visit(entry->key, entry->value);
    return ++visited < limit ? links(entry)[0] : nullptr;
  }

  // Loops, not `descent`: with it, Clang stopped inlining the fiber suspension here (25% slower).
  template <class Load>
  std::optional<Value> descend(const Key& key, Load load) const {
    const node* predecessor = head();
    const node* known_greater = nullptr;
    for (std::size_t level = height_; level-- > 0;) {
      for (const node* candidate = links(predecessor)[level]; candidate != nullptr && candidate != known_greater;) {
        const node& examined = load_for_level(load, candidate, level);
        if (examined.key == key) return examined.value;
        if (key < examined.key) {
          known_greater = candidate;
          break;
        }
        predecessor = candidate;
        candidate = links(candidate)[level];
      }
    }
    return std::nullopt;
  }

  template <class Visitor, class Load>
  std::size_t scan_with(const Key& start, std::size_t limit, Visitor& visit, Load load) const {
    descent search(head(), height_);
    while (search.candidate != nullptr) search.step(load_for_level(load, search.candidate, search.level).key < start);
    std::size_t visited = 0;
    for (const node* entry = limit == 0 ? nullptr : links(search.predecessor)[0]; entry != nullptr;) {
      entry = visit_then_next(entry, visited, limit, visit);
      if (entry != nullptr) load(entry);
    }
    return visited;
  }

  // The node holding key (or null), and at each level the last node before key.
  node* locate(const Key& key, std::array<node*, max_height>& predecessors) {
    node* predecessor = head();
    for (std::size_t level = height_; level-- > 0;) {
      node* candidate = links(predecessor)[level];
      while (candidate != nullptr && candidate->key < key) {
        predecessor = candidate;
        candidate = links(candidate)[level];
      }
      predecessors[level] = predecessor;
    }
    node* next = links(predecessor)[0];
    return next != nullptr && next->key == key ? next : nullptr;
  }

  // Geometric with p = 1/e, capped at max_height (folly's distribution).
  std::size_t draw_height() noexcept {
    constexpr double one_over_e = 0.36787944117144233;
    std::size_t tower = 1;
    while (tower < max_height && next_unit_random() < one_over_e) ++tower;
    return tower;
  }

  double next_unit_random() noexcept {  // splitmix64, 53 bits
    std::uint64_t z = (height_random_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
  }

  node* head() noexcept { return std::launder(reinterpret_cast<node*>(head_storage_.data())); }
  const node* head() const noexcept { return std::launder(reinterpret_cast<const node*>(head_storage_.data())); }

  void reset_head() noexcept {
    node* fresh = std::construct_at(reinterpret_cast<node*>(head_storage_.data()),
                                    node{Key{}, Value{}, std::uint32_t{max_height}});
    std::uninitialized_fill_n(links(fresh), max_height, nullptr);
  }

  node* new_node(const Key& key, const Value& value, std::size_t tower) {
    std::byte* memory = nullptr;
    if (node*& recycled = free_by_height_[tower - 1]; recycled != nullptr) {
      memory = reinterpret_cast<std::byte*>(recycled);
      recycled = links(recycled)[0];
    } else {
      memory = arena_.allocate(node_bytes(tower), node_alignment);
    }
    node* fresh = std::construct_at(reinterpret_cast<node*>(memory), node{key, value, static_cast<std::uint32_t>(tower)});
    std::uninitialized_fill_n(links(fresh), tower, nullptr);
    return fresh;
  }

  void free_node(node* doomed) noexcept {
    node*& list = free_by_height_[doomed->height - 1];
    links(doomed)[0] = list;
    list = doomed;
  }

  // Nodes are allocated in insertion order (heights drawn in that order, as inserts would),
  // then linked level by level in one sweep over the keys in order.
  void build_in_insertion_order(std::span<const Key> keys, std::span<const Value> values) {
    const std::vector<detail::key_position<Key>> by_key = detail::first_positions_by_key(keys);
    const std::vector<std::size_t> kept_positions = detail::ascending_positions(by_key);

    std::vector<std::uint8_t> heights(kept_positions.size());
    std::size_t total_bytes = 0;
    for (auto& tower : heights) {
      tower = static_cast<std::uint8_t>(draw_height());
      total_bytes += node_bytes(tower);
    }
    arena_.reserve(total_bytes);
    std::vector<node*> node_at_position(keys.size(), nullptr);
    for (std::size_t i = 0; i < kept_positions.size(); ++i) {
      const std::size_t position = kept_positions[i];
      node_at_position[position] = new_node(keys[position], values[position], heights[i]);
      height_ = std::max<std::size_t>(height_, heights[i]);
    }
    std::array<node*, max_height> last;
    last.fill(head());
    for (const auto& entry : by_key) {
      node* current = node_at_position[entry.position];
      for (std::size_t level = 0; level < current->height; ++level) {
        links(last[level])[level] = current;
        last[level] = current;
      }
    }
    size_ = by_key.size();
  }

  detail::ordered_node_arena arena_;
  // The head tower: max_height links, none pointing back to it, so the list can move.
  alignas(node_alignment) std::array<std::byte, node_bytes(max_height)> head_storage_;
  std::size_t height_ = 1;
  std::size_t size_ = 0;
  std::array<node*, max_height> free_by_height_{};  // recycled nodes, chained through link 0
  std::uint64_t height_random_;
};

}  // namespace braid
