// The Markdown report: machine facts, the headline tables, and for every figure run its plot,
// the commands that reproduce it, the papers' numbers beside ours, the analytical model beside
// the measured optimum, and a list of every place where ours differs in shape from the paper.
// Everything in it is computed from the rows of the same invocation; the only prose is the
// papers' own claims (stored with the presets) and how each number was obtained.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "figure_run.hpp"
#include "results.hpp"

namespace braid::bench {

struct report_figure {
  const figure_result* result = nullptr;
  std::string plot_file;  // relative to the report; empty when there is no plot
};

struct report {
  std::string title;                     // "braid-bench headline"
  run_metadata metadata;
  std::vector<result_row> structures;    // headline: best vs naive vs peer
  std::vector<result_row> machine;       // headline: limits and machinery
  std::vector<result_row> timing;        // headline: part, budget, seconds
  std::vector<std::string> failures;     // parts that failed, with the reason
  std::vector<report_figure> figures;
};

// "source: claim — paper X, ours Y" for every paper number of `result` whose shape differs.
std::vector<std::string> shape_differences(const figure_result& result);

void write_report(std::ostream& out, const report& contents);

}  // namespace braid::bench
