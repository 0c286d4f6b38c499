// The machine's measured limits, for experiments that report `roofline_fraction`.
//
// The memory profile is probed once per process (a 512 MiB pointer-chase buffer; 64 MiB with
// --quick; a token 4 MiB in the process that counts instructions under callgrind) and cached. A DRAM-resident technique fetching `lines_per_op` cache lines per
// operation at `ns_per_op` runs at lines_per_op / ns_per_op lines per ns; its roofline
// fraction is that rate over the best k-chain rate the probe measured.
//
// The sequential-read bandwidth is the other limit: GB/s of a streaming read (a sum of the 64-bit
// words of a buffer, which the compiler vectorizes) by 1 thread or by every CPU's thread, each
// over its own contiguous share. A join that reads both inputs once cannot run faster than
// their bytes at this rate. Measured over dram_resident_bytes() (16x the last-level cache, a
// quarter of the available memory at most) unless told otherwise; best of `passes` passes.
#pragma once

#include <cstddef>
#include <string>

#include "braid/core/memory_probe.hpp"

namespace braid::bench {

class run_context;

// Probes on first use; notes latency and peak rate in the run's metadata.
const memory_profile& measured_memory_profile(run_context& context);

// Makes `profile` the process's profile: the `roofline` experiment measures one with the
// user's buffer size and pages, and the experiments that follow in the same process (the
// headline) compute their fractions against it.
void adopt_memory_profile(const memory_profile& profile);

double roofline_fraction(double lines_per_op, double ns_per_op, const memory_profile& profile);

struct read_bandwidth {
  unsigned threads = 0;
  std::size_t buffer_bytes = 0;
  std::string pages;              // page size obtained for the buffer
  double gigabytes_per_s = 0;     // 10^9 bytes per second, the best pass
};

// Streams `buffer_bytes` (rounded down to whole 64-bit words per thread; at least 1 MiB) with
// `threads` pinned threads (at least 1), `passes` times (at least 1). Throws
// std::invalid_argument for arguments out of range and std::runtime_error if a pass's sum is
// not the buffer's (the read did not read every word once).
read_bandwidth measure_read_bandwidth(std::size_t buffer_bytes, unsigned threads, unsigned passes = 3);

// The all-threads sequential-read bandwidth of this machine, measured on first use over
// dram_resident_bytes() (64 MiB with --quick) and cached, or the figure the roofline experiment
// adopted; noted in the run's metadata. What the joins compare against.
const read_bandwidth& measured_read_bandwidth(run_context& context);
void adopt_read_bandwidth(const read_bandwidth& bandwidth);

}  // namespace braid::bench
