// radix_joiner: the classical radix join (Balkesen et al., "Main-memory hash joins on multi-core
// CPUs", ICDE 2013): partition the build relation R and the probe relation S on the same radix
// bits (radix_partition.hpp, one or two passes, with or without write-combine buffers), then for
// each partition pair build a cache-sized bucket-chaining table over R_p and probe it with S_p.
//
//   braid::join::join_output out = braid::join::radix_join(build, probe, {.bits = 10, .threads = 2});
//
// Threads: both partitionings use all threads (per-thread histograms, one prefix sum, each
// thread scatters its share); partition pairs are then handed to threads by an atomic counter.
// Each thread writes its own join_output; they are merged with absorb (the checksum does not
// depend on the order, materialized rows come thread after thread).
//
// Complexity: O(|R| + |S|) per pass plus O(matches); memory: a partitioned copy of R and S (two
// with two passes) and one table per thread of O(largest |R_p|). A joiner keeps its partition
// buffers between runs. Known limits: as radix_partition (bits 1..20, passes 1..2); a skewed
// partition simply makes a big table (no skew handling), and any partition below 2^32 - 1 tuples.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "braid/join/detail/bucket_chain_table.hpp"
#include "braid/join/detail/thread_team.hpp"
#include "braid/join/radix_partition.hpp"
#include "braid/join/relation.hpp"

namespace braid::join {

struct radix_join_options {
  unsigned bits = 10;
  unsigned passes = 1;
  bool write_combine = false;
  unsigned threads = 1;
  bool materialize = false;
};

// Wall time of a partitioned join's phases (the last run).
struct join_phase_times {
  double partition_ns = 0;    // partitioning R and S
  double build_probe_ns = 0;  // building the partitions' tables and probing them
  [[nodiscard]] double total_ns() const noexcept { return partition_ns + build_probe_ns; }
};

class radix_joiner {
 public:
  explicit radix_joiner(const radix_join_options& options) : options_(options) {
    check_partition_options(partition_options(), "radix_join");
  }

  [[nodiscard]] join_output run(std::span<const tuple> build, std::span<const tuple> probe) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    radix_partition_into(build, partition_options(), build_parts_);
    radix_partition_into(probe, partition_options(), probe_parts_);
    const auto partitioned = clock::now();
    join_output out = join_partitions();
    const auto finished = clock::now();
    phases_.partition_ns = std::chrono::duration<double, std::nano>(partitioned - start).count();
    phases_.build_probe_ns = std::chrono::duration<double, std::nano>(finished - partitioned).count();
    return out;
  }

  [[nodiscard]] const radix_join_options& options() const noexcept { return options_; }
  [[nodiscard]] const join_phase_times& last_phases() const noexcept { return phases_; }

 private:
  [[nodiscard]] radix_partition_options partition_options() const noexcept {
    return {.bits = options_.bits, .shift = 0, .passes = options_.passes, .write_combine = options_.write_combine,
            .threads = options_.threads};
  }

  join_output join_partitions() {
    const unsigned threads = options_.threads;
    std::vector<join_output> outputs;
    outputs.reserve(threads);
    for (unsigned thread = 0; thread < threads; ++thread) outputs.emplace_back(options_.materialize);
    std::atomic<std::size_t> next_partition{0};
    const std::size_t fanout = build_parts_.fanout();
    detail::run_on_threads(threads, [&](unsigned thread) {
      detail::bucket_chain_table table;
      for (std::size_t p = next_partition.fetch_add(1, std::memory_order_relaxed); p < fanout;
           p = next_partition.fetch_add(1, std::memory_order_relaxed)) {
        const std::span<const tuple> build = build_parts_.partition(p);
        const std::span<const tuple> probe = probe_parts_.partition(p);
        if (build.empty() || probe.empty()) continue;
        table.build(build, options_.bits);
        table.probe(probe, outputs[thread]);
      }
    });
    for (unsigned thread = 1; thread < threads; ++thread) outputs[0].absorb(std::move(outputs[thread]));
    return std::move(outputs[0]);
  }

  radix_join_options options_;
  partitioned_relation build_parts_;
  partitioned_relation probe_parts_;
  join_phase_times phases_;
};

inline join_output radix_join(std::span<const tuple> build, std::span<const tuple> probe,
                              const radix_join_options& options) {
  radix_joiner joiner(options);
  return joiner.run(build, probe);
}

}  // namespace braid::join
