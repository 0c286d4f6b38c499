// Instruction counts per operation, from valgrind's callgrind (hardware counters are not
// available on these machines).
//
// `braid-bench run NAME ... --callgrind` first runs NAME as usual (timed), then runs the same
// command again under `valgrind --tool=callgrind --instr-atstart=no`. In that second process,
// measure_interleaved runs each technique's warm-up pass uninstrumented and then exactly one
// pass between CALLGRIND_START_INSTRUMENTATION and CALLGRIND_STOP_INSTRUMENTATION, and dumps
// the counts with the label "braid-pass:<call>:<technique>", where <call> numbers the
// measure_interleaved calls of the process. The first process knows, for every row it emitted,
// which call and technique the row reports (the latest call that measured a technique of the
// row's name when the row was emitted); it reads the dumps and sets
// instructions_per_op = instructions of that pass / the row's `ops`.
//
// The second run uses the same options, so it builds the same data and counts the same passes;
// keep it affordable with --quick or small --size/--keys (a pass runs 20-100x slower under
// callgrind). What can be known before the timed run (no valgrind, no portable build, a stale
// one) refuses the command with a usage error (exit 2) before it runs; a counting run that
// fails prints the rows without the column, says why, and exits with status 1.
//
// valgrind (3.19-3.22) cannot decode AVX-512. A build tuned with -march=native on a machine
// with AVX-512 therefore runs the counting pass with the portable build of the `callgrind`
// preset (-march=x86-64-v3) when it exists (`make callgrind`); the counts then describe that
// build's code, which the run's notes record.
#pragma once

#include <cstddef>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace braid::bench {

// A pass measured by measure_interleaved: which call of the process, which technique.
struct pass_key {
  std::size_t call = 0;
  std::string technique;
  auto operator<=>(const pass_key&) const = default;
};

// ---- attribution (every process) ----------------------------------------------------------

// Records a measure_interleaved call with the names of its techniques; returns its number.
std::size_t record_measurement_call(const std::vector<std::string>& techniques);
// The latest recorded call that measured `technique`.
std::optional<pass_key> latest_pass_of(const std::string& technique);

// ---- the counting process -----------------------------------------------------------------

// True in the process that runs under callgrind to count instructions.
bool counting_instructions();
void begin_counted_pass();
void end_counted_pass(const pass_key& pass);

// ---- reading the counts -------------------------------------------------------------------

// One dump file: the pass its label names and its total instructions (the `totals:` line);
// nullopt for dumps without a braid-pass label (program termination).
std::optional<std::pair<pass_key, double>> parse_callgrind_dump(std::istream& dump);

struct instruction_counts {
  std::map<pass_key, double> instructions;  // per counted pass
  std::string program;                      // the executable that was counted
  std::string problem;                      // non-empty: why there are no counts
};

// Why counting cannot work here (empty when it can): no callgrind header at build time, no
// valgrind, an AVX-512 build without a portable build as new as itself.
std::string counting_unavailable();

// Re-runs this program's command `arguments` (after the program name, without --callgrind)
// under callgrind and collects the counts of every pass.
instruction_counts count_instructions(const std::vector<std::string>& arguments);

}  // namespace braid::bench
