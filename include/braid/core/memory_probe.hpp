// memory_probe: this machine's limits for latency-bound code, measured, not assumed.
//
//  - dependent-load latency: one pointer chase over a buffer far larger than the last-level
//    cache (a random cyclic permutation of cache lines), ns per load;
//  - memory-level parallelism: k independent chases advanced in lock step, k = 1..64; the
//    fetch rate (lines per ns) grows with k until the core's miss handling saturates. The
//    best rate is the roofline that interleaved lookups are measured against.
//
// Interleaving cannot beat the best k-chain rate: a lookup technique's `roofline_fraction`
// is its cache-line fetch rate over that maximum.
#pragma once

#include <cstddef>
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

}  // namespace braid
