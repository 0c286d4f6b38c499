// inline_chain_table: the per-partition hash table of the micro-partitioned radix join
// (MxTasks §6: fragments are scattered, so the table cannot refer to a contiguous partition by
// tuple index as Balkesen's does). Each entry holds the key and payload inline with its chain
// link; buckets hold 1-based entry indexes (0 ends a chain). Hashing uses the key bits above
// the radix bits.
//
// prepare(expected) sizes it (2^ceil(log2 expected) buckets, room for `expected` entries);
// insert appends fragments, probe emits matches (group prefetching, see probe). O(1) per
// insert, O(1 + chain) per probe.
// Not thread-safe: the join builds and probes each table from its partition's squad, whose
// tasks run one after another on one worker. Limits: fewer than 2^32 - 1 entries.
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
  static constexpr std::size_t probe_group = 16;

  struct entry {
    std::uint64_t key;
    std::uint64_t payload;
    std::uint32_t next;
  };

  void prepare(std::size_t expected, unsigned hash_shift) {
    if (expected >= std::numeric_limits<std::uint32_t>::max()) {
      throw std::length_error("inline_chain_table: 2^32 - 1 entries or more");
    }
    shift_ = hash_shift;
    const std::size_t buckets = std::bit_ceil(std::max<std::size_t>(expected, 1));
    mask_ = buckets - 1;
    heads_.assign(buckets, 0);
    entries_.clear();
    entries_.reserve(expected);
    prepared_ = true;
  }
  [[nodiscard]] bool prepared() const noexcept { return prepared_; }
  // Forgets the contents but keeps the memory; prepare() again before the next use.
  void invalidate() noexcept { prepared_ = false; }
  // Frees the memory; prepare() again before the next use.
  void release() noexcept {
    heads_ = {};
    entries_ = {};
    prepared_ = false;
  }

  void insert(std::span<const tuple> fragment) {
    if (entries_.size() + fragment.size() >= std::numeric_limits<std::uint32_t>::max()) {
      throw std::length_error("inline_chain_table: 2^32 - 1 entries or more");
    }
    for (const tuple& r : fragment) {
      std::uint32_t& head = heads_[bucket_of(r.key)];
      entries_.push_back({r.key, r.payload, head});
      head = static_cast<std::uint32_t>(entries_.size());
    }
  }

  // Group prefetching over `probe_group` tuples at a time: hash all, prefetch their buckets,
  // read the heads and prefetch the first entries, then walk the chains. The join builds every
  // table before it probes any, so a table is back in memory by the time its probes run; the
  // group's misses then overlap instead of following one another.
  void probe(std::span<const tuple> fragment, join_output& out) const {
    std::size_t first = 0;
    for (; first + probe_group <= fragment.size(); first += probe_group) {
      const tuple* group = fragment.data() + first;
      std::array<std::size_t, probe_group> buckets;
      for (std::size_t g = 0; g < probe_group; ++g) {
        buckets[g] = bucket_of(group[g].key);
        braid::prefetch(&heads_[buckets[g]]);
      }
      std::array<std::uint32_t, probe_group> hits;
      for (std::size_t g = 0; g < probe_group; ++g) {
        hits[g] = heads_[buckets[g]];
        if (hits[g] != 0) braid::prefetch(&entries_[hits[g] - 1]);
      }
      for (std::size_t g = 0; g < probe_group; ++g) walk_chain(hits[g], group[g], out);
    }
    for (const tuple& s : fragment.subspan(first)) walk_chain(heads_[bucket_of(s.key)], s, out);
  }

  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }

 private:
  void walk_chain(std::uint32_t hit, const tuple& s, join_output& out) const {
    while (hit != 0) {
      const entry& r = entries_[hit - 1];
      if (r.key == s.key) out.emit(s.key, r.payload, s.payload);
      hit = r.next;
    }
  }

  [[nodiscard]] std::size_t bucket_of(std::uint64_t key) const noexcept {
    return static_cast<std::size_t>(key >> shift_) & mask_;
  }

  std::vector<std::uint32_t> heads_;
  std::vector<entry> entries_;
  unsigned shift_ = 0;
  std::size_t mask_ = 0;
  bool prepared_ = false;
};

}  // namespace braid::join::detail
