// inline_chain_table: the per-partition hash table of the micro-partitioned radix join
// (MxTasks §6: fragments are scattered, so the table cannot refer to a contiguous partition by
// tuple index as Balkesen's does; keys and chain links are stored in the table itself). Each
// bucket holds its first entry inline (key, payload, link); further entries of a bucket go to
// an overflow array and are chained from the bucket by 1-based index (0 ends a chain). A probe
// of a key whose bucket holds one entry touches one 32-byte slot. Hashing uses the key bits
// above the radix bits.
//
// prepare(expected) sizes it (2^ceil(log2 expected) buckets, overflow room for expected / 4);
// insert appends fragments, probe emits matches (group prefetching, see probe). O(1) per
// insert, O(1 + chain) per probe; 32 bytes per bucket plus 32 per overflowing entry.
// Not thread-safe: the join builds and probes each table from its partition's squad, whose
// tasks run one after another on one worker. prepare() reuses the vectors' memory, so a table
// taken from a pool for the next partition stays where it was (in cache, if it was). Limits: fewer than 2^32 - 1 entries.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <vector>

#include "braid/core/prefetch.hpp"
#include "braid/join/relation.hpp"

namespace braid::join::detail {

class inline_chain_table {
 public:
  static constexpr std::size_t probe_group = 32;

  struct alignas(32) entry {
    std::uint64_t key;
    std::uint64_t payload;
    std::uint32_t next;  // 1-based overflow index of the bucket's next entry, 0: none
    std::uint32_t used;  // a bucket's inline entry is taken
  };
  static_assert(sizeof(entry) == 32);

  void prepare(std::size_t expected, unsigned hash_shift) {
    if (expected >= std::numeric_limits<std::uint32_t>::max()) {
      throw std::length_error("inline_chain_table: 2^32 - 1 entries or more");
    }
    shift_ = hash_shift;
    const std::size_t buckets = std::bit_ceil(std::max<std::size_t>(expected, 1));
    mask_ = buckets - 1;
    buckets_.assign(buckets, entry{});
    overflow_.clear();
    overflow_.reserve(expected / 4);
    size_ = 0;
    prepared_ = true;
  }
  [[nodiscard]] bool prepared() const noexcept { return prepared_; }
  // Forgets the contents but keeps the memory; prepare() again before the next use.
  void invalidate() noexcept { prepared_ = false; }

  void insert(std::span<const tuple> fragment) {
    if (size_ + fragment.size() >= std::numeric_limits<std::uint32_t>::max()) {
      throw std::length_error("inline_chain_table: 2^32 - 1 entries or more");
    }
    for (const tuple& r : fragment) {
      entry& bucket = buckets_[bucket_of(r.key)];
      if (bucket.used == 0) {
        bucket = {r.key, r.payload, 0, 1};
      } else {
        overflow_.push_back({r.key, r.payload, bucket.next, 1});
        bucket.next = static_cast<std::uint32_t>(overflow_.size());
      }
    }
    size_ += fragment.size();
  }

  // Group prefetching over `probe_group` tuples at a time: hash all and prefetch their
  // buckets, then walk the chains. Under the join's phases schedule every table is built
  // before any is probed, so a table is back in memory by the time its probes run and the
  // group's misses overlap. Under pairs the table was just built, but the fragments streaming
  // through L2 push parts of it out, and the group still pays: the join's build+probe phase
  // took 20-30 % longer with a plain loop (1 thread, 1 GiB S, two rough runs each).
  void probe(std::span<const tuple> fragment, join_output& out) const {
    std::size_t first = 0;
    for (; first + probe_group <= fragment.size(); first += probe_group) {
      const tuple* group = fragment.data() + first;
      std::array<const entry*, probe_group> buckets;
      for (std::size_t g = 0; g < probe_group; ++g) {
        buckets[g] = &buckets_[bucket_of(group[g].key)];
        braid::prefetch(buckets[g]);
      }
      for (std::size_t g = 0; g < probe_group; ++g) match_bucket(*buckets[g], group[g], out);
    }
    for (const tuple& s : fragment.subspan(first)) match_bucket(buckets_[bucket_of(s.key)], s, out);
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }

 private:
  void match_bucket(const entry& bucket, const tuple& s, join_output& out) const {
    if (bucket.used == 0) return;
    if (bucket.key == s.key) out.emit(s.key, bucket.payload, s.payload);
    for (std::uint32_t hit = bucket.next; hit != 0;) {
      const entry& r = overflow_[hit - 1];
      if (r.key == s.key) out.emit(s.key, r.payload, s.payload);
      hit = r.next;
    }
  }

  [[nodiscard]] std::size_t bucket_of(std::uint64_t key) const noexcept {
    return static_cast<std::size_t>(key >> shift_) & mask_;
  }

  std::vector<entry> buckets_;
  std::vector<entry> overflow_;
  std::size_t size_ = 0;
  unsigned shift_ = 0;
  std::size_t mask_ = 0;
  bool prepared_ = false;
};

}  // namespace braid::join::detail
