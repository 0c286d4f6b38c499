// memory_probe: this machine's limits for latency-bound code, measured, not assumed.
//
//  - dependent-load latency: one pointer chase over a buffer far larger than the last-level
//    cache (a random cyclic permutation of cache lines), ns per load;
//  - memory-level parallelism: k independent chases advanced in lock step, k = 1..64; the
//    fetch rate (lines per ns) grows with k until the core's miss handling saturates. The
//    best rate is the roofline that interleaved lookups are measured against.
//
//  - last-level cache size: the dependent-load latency of working sets from 1 MiB upwards
//    (doubling); the cache ends where the latency leaves the cache's plateau. For machines
//    that do not say (no cache information in sysfs, as in some virtual machines).
//
// Interleaving cannot beat the best k-chain rate: a lookup technique's `roofline_fraction`
// is its cache-line fetch rate over that maximum.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "braid/core/huge_buffer.hpp"

namespace braid {

struct chase_rate {
  unsigned chains;       // independent pointer chases in flight
  double lines_per_ns;   // cache lines fetched per ns, all chains together
  double ns_per_load;    // average time per load of one chain
};

struct memory_profile {
  std::size_t buffer_bytes = 0;
  std::string pages;                // page size obtained for the buffer, as huge_buffer describes it
  double load_latency_ns = 0;       // one chain
  std::vector<chase_rate> rates;    // by chains, ascending
  chase_rate best{};                // highest lines_per_ns
};

struct memory_probe_options {
  std::size_t buffer_bytes = std::size_t{512} << 20;  // 16x a 32 MiB LLC
  page_size pages = page_size::huge_2m;
  std::vector<unsigned> chains = {1, 2, 4, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64};
  std::size_t loads_per_measurement = std::size_t{1} << 21;  // per chain count, all chains together
};

// Takes about a second per 512 MiB of buffer (building the permutation dominates).
memory_profile probe_memory(const memory_probe_options& options = {});

// One point of the last-level cache measurement: a working set and its latency.
struct working_set_latency {
  std::size_t bytes;
  double ns_per_load;
};

struct cache_measurement {
  std::size_t last_level_bytes = 0;         // 0: no plateau ends below the largest set
  std::vector<working_set_latency> points;  // by size, ascending
};

// Measures the last-level cache as a chase sees it: the latency of one random chase over
// working sets of 1 MiB, 2 MiB, ... up to `largest_bytes` (at least 4 MiB), on `pages`. The
// cache is the largest set whose latency is within a quarter of the way from the 1 MiB
// set's latency to the largest set's: beyond the cache, random loads miss in proportion to
// the excess (a set of 4/3 of the cache misses a quarter of the time). Reports 0 when the
// largest set is not at least twice as slow as the smallest (no cache boundary in range).
// Under a second for the default 256 MiB; a cache of more than half the largest set is not
// found (0). On a shared machine this is the capacity a chase gets, which can be less than
// the nominal size.
cache_measurement measure_last_level_cache(std::size_t largest_bytes = std::size_t{256} << 20,
                                           page_size pages = page_size::huge_2m);

// The rule measure_last_level_cache applies to its points (ascending sizes): the largest
// size before the first latency above low + (high - low) / 4, where low and high are the
// first and last points' latencies; 0 for fewer than two points or high < 2 x low.
std::size_t cache_boundary(std::span<const working_set_latency> points);

}  // namespace braid
