// chained_hash_table: separate chaining with singly linked lists — the hash table of the
// "Killer Nanoseconds" experiments (Jonathan et al., PVLDB 2018, §3.1).
//
//   braid::chained_hash_table<std::uint32_t, std::uint64_t> table;   // 100,000 buckets
//   table.insert(42, 7);
//   std::optional<std::uint64_t> v = table.find(42);                  // the plain lookup
//   table.multi_find(keys, results, braid::technique::coro, 16);       // 16 lookups in flight
//
// Layout: an array of bucket heads (one pointer per bucket) and nodes of one cache line each
// (`node` is aligned to 64 bytes: next pointer, key, value, padding; the paper's table used
// ~60 bytes per node, 390 MB for 6.3 M nodes). Nodes are carved from page-backed chunks
// (huge_array, 2 MiB pages by default), never one allocation per node; a node's position in
// memory is its insertion order, so walking a chain jumps across the whole pool, as with
// the paper's malloc'ed nodes. Bucket of a key: Murmur3's fmix32/fmix64 of the key, mapped
// onto [0, bucket_count) by a multiply-shift (no division, any bucket count).
//
// The bucket count is fixed at construction: the paper's 100,000 buckets make chains long
// (N keys give N / 100,000 nodes per bucket on average), which is what makes the probe a
// chain of dependent misses; `with_buckets_for(keys)` sizes one bucket per key instead
// (chains of one or two). The table grows its node pool as needed, not its bucket array.
//
// Complexity: insert and find take O(1 + chain length); a lookup reads one bucket head and
// every node of the chain up to its key (the whole chain when the key is absent).
// Invariants: keys are unique (insert of a present key changes nothing); a chain ends with
// a null `next`; nodes never move, so pointers to them stay valid for the table's lifetime.
//
// Lookups, all returning the value or std::nullopt, and all returning exactly what find()
// returns (the differential tests check it):
//   find(key)                     the plain loop: the naive baseline and the oracle;
//   lookup<M>(key)             the same loop as a coroutine: each bucket head and node is
//                                 `co_await fetch<M>`ed (prefetch + suspend when interleaved);
//   find_on_fiber<H>(context, key)   the plain loop's body on a stackful fiber (yields at the
//                                 same loads);
//   find_group_prefetching<H>     group prefetching (Chen et al.; the paper's Algorithm 1,
//                                 with absent keys and partial groups handled);
//   find_amac<H>                  AMAC (Kocberber et al.; Algorithm 2, with the empty chain,
//                                 the absent key and the final drain handled);
//   multi_find(keys, out, technique, group)   any of the above over a batch, in input order.
// Lookups are const and may run concurrently from several threads; insert may not run
// concurrently with anything.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
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
#include "braid/index/detail/build_arguments.hpp"
#include "braid/index/detail/lookup_techniques.hpp"
#include "braid/index/detail/murmur_hash.hpp"
#include "braid/index/technique.hpp"

namespace braid {

template <std::unsigned_integral Key = std::uint32_t, class Value = std::uint64_t>
class chained_hash_table : public detail::multi_find_member<chained_hash_table<Key, Value>, Key, std::optional<Value>> {
  static_assert(sizeof(Key) <= 8, "keys are hashed as 64-bit integers");
  static_assert(std::is_trivially_copyable_v<Value> && std::is_trivially_default_constructible_v<Value>,
                "values live in page-backed node chunks");

 public:
  using key_type = Key;
  using mapped_type = Value;
  using result_type = std::optional<Value>;

  // The bucket count of the paper's experiments.
  static constexpr std::size_t paper_bucket_count = 100'000;
  // Hint of the interleaved lookups unless multi_find is told otherwise (chosen by measuring
  // T0 against NTA with `braid-bench run hash-probe`).
  static constexpr prefetch_hint default_prefetch_hint = prefetch_hint::nta;
  static constexpr const char* structure_name = "chained_hash_table";

  struct alignas(cache_line_bytes) node {
    const node* next;
    Key key;
    Value value;
  };

  // `expected_keys` sizes the first node chunk of insert() (the pool grows by doubling beyond
  // it); insert_all() into an empty table sizes its chunk to the distinct keys exactly.
  explicit chained_hash_table(std::size_t bucket_count = paper_bucket_count, std::size_t expected_keys = 0,
                              page_size pages = page_size::huge_2m)
      : buckets_(checked_bucket_count(bucket_count), pages),
        pages_(pages),
        next_chunk_nodes_(std::max<std::size_t>(expected_keys, minimum_chunk_nodes)) {}

  // One bucket per expected key: chains of one or two nodes.
  static chained_hash_table with_buckets_for(std::size_t expected_keys, page_size pages = page_size::huge_2m) {
    return chained_hash_table(std::max<std::size_t>(expected_keys, 1), expected_keys, pages);
  }

  // Inserts (key, value) at the head of its chain. Returns false, changing nothing, when the
  // key is present.
  bool insert(Key key, Value value) {
    const node*& head = buckets_[bucket_of(key)];
    for (const node* current = head; current != nullptr; current = current->next) {
      if (current->key == key) return false;
    }
    push_front(head, key, value);
    return true;
  }

  // Inserts (keys[i], value_of(i)) for every key not yet present; the first occurrence of a
  // repeated key wins. Returns the number of keys inserted. Into an empty table the keys are
  // deduplicated by sorting a copy (O(n log n), sequential memory traffic) and linked in input
  // order without walking any chain, so building a table of long chains stays fast.
  template <class ValueOf>
    requires std::is_invocable_r_v<Value, ValueOf&, std::size_t>
  std::size_t insert_all(std::span<const Key> keys, ValueOf value_of) {
    const std::size_t before = size_;
    if (!empty()) {
      for (std::size_t i = 0; i < keys.size(); ++i) insert(keys[i], value_of(i));
      return size_ - before;
    }
    const std::vector<std::size_t> inserted = first_occurrences(keys);
    if (!inserted.empty()) reserve_nodes(inserted.size(), /*exactly=*/true);
    for (std::size_t i : inserted) push_front(buckets_[bucket_of(keys[i])], keys[i], value_of(i));
    return size_ - before;
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::size_t bucket_count() const noexcept { return buckets_.size(); }
  [[nodiscard]] double average_chain_length() const noexcept {
    return static_cast<double>(size_) / static_cast<double>(buckets_.size());
  }
  // Bytes of the bucket array and the stored nodes (the data a lookup may touch).
  [[nodiscard]] std::size_t memory_bytes() const noexcept {
    return buckets_.size() * sizeof(const node*) + size_ * sizeof(node);
  }
  // Bytes reserved: the bucket array and every node chunk, used or not.
  [[nodiscard]] std::size_t reserved_bytes() const noexcept {
    std::size_t bytes = buckets_.size() * sizeof(const node*);
    for (const auto& chunk : chunks_) bytes += chunk.size() * sizeof(node);
    return bytes;
  }
  // The page size backing the node pool, as the kernel granted it.
  [[nodiscard]] std::string describe_pages() const {
    return chunks_.empty() ? buckets_.buffer().describe_pages() : chunks_.front().buffer().describe_pages();
  }

  // Nodes the plain lookup of `key` reads: the cache lines it fetches besides the bucket head.
  [[nodiscard]] std::size_t nodes_visited(Key key) const noexcept {
    std::size_t visited = 0;
    for (const node* current = buckets_[bucket_of(key)]; current != nullptr; current = current->next) {
      ++visited;
      if (current->key == key) break;
    }
    return visited;
  }

  // ---- lookups ------------------------------------------------------------------------------

  [[nodiscard]] result_type find(Key key) const { return find_with(key, detail::plain_load{}); }

  template <execution_mode M, class Inputs>
  stream_coro<Inputs> lookups(Inputs inputs) const {
    while (const auto input = inputs.next()) {
      result_type result;
      const node* current = co_await fetch<M>(&buckets_[bucket_of(input.key)]);
      while (current != nullptr) {
        const node& visited = co_await fetch_lines<M>(current);
        if (visited.key == input.key) {
          result = visited.value;
          break;
        }
        current = visited.next;
      }
      inputs.deliver(input, result);
    }
    co_return inputs.finish();
  }

  template <execution_mode M>
  coro<result_type> lookup(Key key) const {
    return lookups<M>(single_input<Key, result_type>(key));
  }

  template <prefetch_hint Hint>
  result_type find_on_fiber(fiber_context& context, Key key) const {
    return find_with(key, detail::fiber_load<Hint>{&context});
  }

  // Group prefetching: groups of `group` keys advance stage by stage in lock step. Stage 1
  // hashes every key and prefetches its bucket head; stage 2 reads the heads and prefetches
  // the first nodes; then every round compares each unfinished key with its current node
  // and prefetches the next one, until every key of the group has been found or has reached
  // the end of its chain. A group costs as many rounds as its longest chain.
  template <prefetch_hint Hint>
  void find_group_prefetching(std::span<const Key> keys, std::span<result_type> out, std::size_t group) const {
    detail::check_batch_arguments(keys.size(), out.size(), group, "chained_hash_table::find_group_prefetching");
    detail::scratch_array<const node*> current(std::min(group, keys.size()));
    for (std::size_t first = 0; first < keys.size(); first += group) {
      const std::size_t members = std::min(group, keys.size() - first);
      const Key* key = keys.data() + first;
      result_type* result = out.data() + first;
      for (std::size_t i = 0; i < members; ++i) prefetch<Hint>(&buckets_[bucket_of(key[i])]);
      std::size_t unfinished = 0;
      for (std::size_t i = 0; i < members; ++i) {
        current[i] = buckets_[bucket_of(key[i])];
        if (current[i] == nullptr) {
          result[i] = std::nullopt;  // empty bucket: finished before it started
        } else {
          prefetch_lines<sizeof(node), Hint>(current[i]);
          ++unfinished;
        }
      }
      while (unfinished > 0) {
        for (std::size_t i = 0; i < members; ++i) {
          const node* visited = current[i];
          if (visited == nullptr) continue;  // finished: a no-op slot until the group ends
          if (visited->key == key[i]) {
            result[i] = visited->value;
            current[i] = nullptr;
            --unfinished;
          } else if (visited->next == nullptr) {
            result[i] = std::nullopt;  // end of chain: absent, and finished too
            current[i] = nullptr;
            --unfinished;
          } else {
            current[i] = visited->next;
            prefetch_lines<sizeof(node), Hint>(current[i]);
          }
        }
      }
    }
  }

  // AMAC: a ring of `group` state machines. Stage `at_bucket` reads the (prefetched) bucket
  // head and prefetches the first node; stage `at_node` compares and either finishes or
  // prefetches the next node. A finished lookup's slot starts the next key at once.
  template <prefetch_hint Hint>
  void find_amac(std::span<const Key> keys, std::span<result_type> out, std::size_t group) const {
    detail::check_batch_arguments(keys.size(), out.size(), group, "chained_hash_table::find_amac");
    struct state {
      const node* const* bucket;
      const node* current;
      std::size_t index;
      Key key;
      bool at_bucket;
    };
    detail::run_state_machines<state>(
        keys.size(), group,
        [&](state& s, std::size_t index) {
          s.index = index;
          s.key = keys[index];
          s.bucket = &buckets_[bucket_of(s.key)];
          s.at_bucket = true;
          prefetch<Hint>(s.bucket);
          return true;
        },
        [&](state& s) {
          if (s.at_bucket) {
            s.at_bucket = false;
            s.current = *s.bucket;
          } else if (s.current->key == s.key) {
            out[s.index] = s.current->value;
            return false;
          } else {
            s.current = s.current->next;
          }
          if (s.current == nullptr) {
            out[s.index] = std::nullopt;
            return false;
          }
          prefetch_lines<sizeof(node), Hint>(s.current);
          return true;
        });
  }

 private:
  static constexpr std::size_t minimum_chunk_nodes = 1024;

  static std::size_t checked_bucket_count(std::size_t count) {
    if (count == 0 || count > std::numeric_limits<std::uint32_t>::max()) {
      throw std::invalid_argument("chained_hash_table: bucket count must be in [1, 2^32)");
    }
    return count;
  }

  // Multiply-shift onto [0, bucket_count): the top 32 bits of the mixed key times the count.
  [[nodiscard]] std::size_t bucket_of(Key key) const noexcept {
    std::uint64_t hash32;
    if constexpr (sizeof(Key) <= 4) {
      hash32 = detail::murmur3_fmix32(static_cast<std::uint32_t>(key));
    } else {
      hash32 = detail::murmur3_fmix64(key) >> 32;
    }
    return static_cast<std::size_t>((hash32 * buckets_.size()) >> 32);
  }

  // The one lookup loop behind find() (plain loads) and find_on_fiber() (yielding loads).
  template <class Load>
  result_type find_with(Key key, Load load) const {
    const node* current = load(&buckets_[bucket_of(key)]);
    while (current != nullptr) {
      const node& visited = load(current);
      if (visited.key == key) return visited.value;
      current = visited.next;
    }
    return std::nullopt;
  }

  // Indices of the first occurrence of every distinct key, ascending.
  static std::vector<std::size_t> first_occurrences(std::span<const Key> keys) {
    return detail::ascending_positions(detail::first_positions_by_key(keys));
  }

  void push_front(const node*& head, Key key, Value value) {
    node* fresh = allocate_node();
    fresh->next = head;
    fresh->key = key;
    fresh->value = value;
    head = fresh;
    ++size_;
  }

  // Makes room for `count` more nodes: the current chunk if it has it, else a new chunk of
  // `count` nodes when `exactly`, of max(count, the growth size) otherwise.
  void reserve_nodes(std::size_t count, bool exactly = false) {
    if (!chunks_.empty() && chunks_.back().size() - used_in_last_chunk_ >= count) return;
    chunks_.emplace_back(exactly ? count : std::max(count, next_chunk_nodes_), pages_);
    next_chunk_nodes_ = std::max(next_chunk_nodes_, 2 * chunks_.back().size());
    used_in_last_chunk_ = 0;
  }

  node* allocate_node() {
    reserve_nodes(1);
    return &chunks_.back()[used_in_last_chunk_++];
  }

  huge_array<const node*> buckets_;
  std::vector<huge_array<node>> chunks_;
  page_size pages_;
  std::size_t next_chunk_nodes_;
  std::size_t used_in_last_chunk_ = 0;
  std::size_t size_ = 0;
};

}  // namespace braid
