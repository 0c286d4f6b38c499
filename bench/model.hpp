// The analytical model of interleaved execution (Psaropoulos's thesis, §3.1, Formulas 3.2 and
// 3.4), fitted to measured times instead of hardware counters.
//
// A lookup is a chain of compute stages separated by cache misses. Run sequentially, each miss
// stalls for T_stall; interleaved, each suspension costs T_switch, and the other G-1 lookups'
// stages (T_compute + T_switch each) hide what remains of the stall, T_target = T_stall -
// T_switch:
//
//   (3.2)  G >= T_target / (T_compute + T_switch) + 1        the smallest group hiding every stall
//   (3.4)  Speedup_max = (T_compute + T_stall) / (T_compute + T_switch)
//
// The thesis takes T_stall and T_compute from a counter profile of the baseline and T_switch from
// the difference in retiring cycles at G = 1. Counters are not available here, so the fit uses
// three measured times per operation:
//   naive       the plain lookup on the DRAM-resident data          = T_compute + T_stall
//   compute     the plain lookup on cache-resident data of the same work (our stand-in for
//               T_compute: stalls on cache hits are counted as compute)
//   group-1     the interleaved technique at G = 1 (every stall exposed) = naive + T_switch
// and the counts per operation: misses (stages that stall) and suspensions (switches; at least
// the misses, more when lookups also suspend on loads that hit). Per-miss stall and per-stage
// compute and switch enter Formula 3.2; the per-operation totals enter Formula 3.4. With one
// suspension per miss the two formulas give the same number (G_min = Speedup_max); the thesis's
// 256 MB binary search (G_GP >= 12 with Speedup_max 5.7) suspends on about twice as many loads
// as miss.
//
// A measured caveat: the naive loop's independent lookups overlap in the core's out-of-order
// window (a few misses in flight without any interleaving), while a technique at G = 1 runs
// too many instructions per lookup for the window to reach the next one. Its DRAM group-1 time
// then exceeds naive by far more than the switching, and group-1 minus naive overstates
// T_switch. Experiments that can should also measure the technique at G = 1 on the
// cache-resident data (compute_group1): the difference to the compute time is switching alone,
// the closest timing stand-in for the thesis's retiring-cycle difference, and is used when given.
#pragma once

#include <string>
#include <vector>

#include "figures.hpp"
#include "results.hpp"

namespace braid::bench {

struct model_inputs {
  double naive_ns_per_op = 0;
  double group1_ns_per_op = 0;
  double compute_ns_per_op = 0;
  double misses_per_op = 0;
  double suspensions_per_op = 0;        // 0: one suspension per miss
  double compute_group1_ns_per_op = 0;  // 0: not measured (T_switch from group-1 minus naive)
};

struct model_prediction {
  double compute_ns_per_stage = 0;  // T_compute between two suspensions
  double stall_ns_per_miss = 0;     // T_stall
  double switch_ns = 0;             // T_switch per suspension (negative measurements clamp to 0)
  bool switch_from_compute = false; // T_switch came from the cache-resident group-1 time
  double target_ns = 0;             // T_target = T_stall - T_switch
  double stall_share = 0;           // %stall of the sequential time
  double switch_share = 0;          // %switch
  double minimum_group = 1;         // Formula 3.2, real-valued; 1 when nothing is left to hide
  unsigned minimum_group_size = 1;  // the smallest integer G satisfying it
  double speedup_max = 1;           // Formula 3.4 (below 1: interleaving can only lose)
};

// Throws std::invalid_argument naming the input when a time or count is not positive, or when
// the compute time exceeds the naive time.
model_prediction predict_interleaving(const model_inputs& inputs);

// The model next to the measured optimum, for every configuration of a group sweep in `rows`
// (configurations are told apart by panel, structure, size_bytes, distribution, threads and
// pages). Needs per
// configuration a baseline row carrying `compute_ns_per_op` and `misses_per_op` (and optionally
// `suspensions_per_op`), and per technique a row at group 1. One row per configuration and
// technique: the model's T_compute, T_stall, T_switch, predicted G and speedup, the measured
// best group and speedup. The technique's group-1 row may carry `compute_group1_ns_per_op`
// (see the caveat above). Configurations missing an input are reported in `skipped`.
struct model_report {
  std::vector<result_row> rows;
  std::vector<std::string> skipped;
};
model_report evaluate_model(const std::vector<result_row>& rows, const model_request& request);

}  // namespace braid::bench
