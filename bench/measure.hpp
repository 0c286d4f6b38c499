// Timing discipline for every experiment: the techniques being compared run interleaved
// within each repetition (technique order rotates from one repetition to the next), so a
// burst of noise on a shared machine hits all of them alike; results are medians over the
// repetitions. Each run returns a checksum of what it computed; checksums must agree across
// repetitions, and experiments compare them across techniques (a technique that computes
// something else is a bug, not a speedup).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace braid::bench {

class run_context;

struct technique_run {
  std::string name;
  std::function<std::uint64_t()> run;  // one full pass; returns its checksum
};

struct measurement {
  std::string name;
  double median_ns = 0;      // wall time of one pass
  double median_cycles = 0;  // TSC cycles of one pass
  double min_ns = 0;
  std::uint64_t checksum = 0;
  std::vector<double> samples_ns;
};

// Runs every technique `repetitions` times (at least once), interleaved. A warm-up pass of each
// precedes the timed ones. Throws std::logic_error if a technique's checksum changes between
// passes. Every call is numbered and its technique names recorded, so that rows emitted
// afterwards can be matched to their pass (callgrind.hpp); in the process that counts
// instructions under callgrind, each technique runs one counted pass after its warm-up.
std::vector<measurement> measure_interleaved(const std::vector<technique_run>& techniques,
                                             unsigned repetitions, const run_context* progress = nullptr);

// Throws std::logic_error naming the first technique whose checksum differs from the first.
void require_same_checksums(const std::vector<measurement>& measurements, const std::string& what);

const measurement& find_measurement(const std::vector<measurement>& measurements, const std::string& name);

double median(std::vector<double> values);

}  // namespace braid::bench
