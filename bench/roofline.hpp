// The machine's measured limits, for experiments that report `roofline_fraction`.
//
// The memory profile is probed once per process (a 512 MiB pointer-chase buffer; 64 MiB with
// --quick; a token 4 MiB in the process that counts instructions under callgrind) and cached. A DRAM-resident technique fetching `lines_per_op` cache lines per
// operation at `ns_per_op` runs at lines_per_op / ns_per_op lines per ns; its roofline
// fraction is that rate over the best k-chain rate the probe measured.
#pragma once

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

}  // namespace braid::bench
