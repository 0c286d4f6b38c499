// bucket_chain_table: the cache-sized hash table the classical radix join builds per partition
// (Balkesen et al.'s bucket chaining over a contiguous partition): a bucket array of
// 2^ceil(log2 |R_p|) heads and a `next` array parallel to the partition, both holding
// 1-based tuple indexes (0 ends a chain). Hashing uses the key bits above the radix bits,
// since every key of a partition has the same radix bits.
//
// Build O(|R_p|), probe O(|S_p| + matches + chain lengths). The table refers to the
// partition's tuples: they must outlive it. Limits: partitions below 2^32 - 1 tuples.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <vector>

#include "braid/join/relation.hpp"

namespace braid::join::detail {

class bucket_chain_table {
 public:
  // Builds over `partition`, hashing on key >> hash_shift. Reuses the arrays' memory.
  void build(std::span<const tuple> partition, unsigned hash_shift) {
    if (partition.size() >= std::numeric_limits<std::uint32_t>::max()) {
      throw std::length_error("bucket_chain_table: a partition of 2^32 - 1 tuples or more");
    }
    partition_ = partition;
    shift_ = hash_shift;
    const std::size_t buckets = std::bit_ceil(std::max<std::size_t>(partition.size(), 1));
    mask_ = buckets - 1;
    heads_.assign(buckets, 0);
    next_.resize(partition.size());
    for (std::size_t i = 0; i < partition.size(); ++i) {
      std::uint32_t& head = heads_[bucket_of(partition[i].key)];
      next_[i] = head;
      head = static_cast<std::uint32_t>(i + 1);
    }
  }

  // Emits every (r, s) with r.key == s.key for s in `probe`.
  void probe(std::span<const tuple> probe, join_output& out) const {
    for (const tuple& s : probe) {
      for (std::uint32_t hit = heads_[bucket_of(s.key)]; hit != 0; hit = next_[hit - 1]) {
        const tuple& r = partition_[hit - 1];
        if (r.key == s.key) out.emit(s.key, r.payload, s.payload);
      }
    }
  }

 private:
  [[nodiscard]] std::size_t bucket_of(std::uint64_t key) const noexcept {
    return static_cast<std::size_t>(key >> shift_) & mask_;
  }

  std::span<const tuple> partition_;
  std::vector<std::uint32_t> heads_;
  std::vector<std::uint32_t> next_;
  unsigned shift_ = 0;
  std::size_t mask_ = 0;
};

}  // namespace braid::join::detail
