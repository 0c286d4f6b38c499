// Running a figure preset (or a plain experiment, as a one-panel figure) and writing what it
// produced: the terminal table, CSV and JSON lines, the PNG plot, the Markdown section with the
// papers' numbers beside ours, the analytical model, and instruction counts (--callgrind).
// Shared by `braid-bench run`, `roofline` and `headline`.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "callgrind.hpp"
#include "figures.hpp"
#include "model.hpp"
#include "options.hpp"
#include "results.hpp"

namespace braid::bench {

// The figure preset called `name`, or experiment `name` as a figure of one unlabelled panel
// with the swept field on the x axis. Throws usage_error when neither exists.
figure figure_named(const std::string& name);

struct figure_result {
  figure definition;
  options user;                                  // the options given after the name
  std::vector<result_row> rows;                  // every panel's, each tagged with `panel` when labelled
  std::vector<std::optional<pass_key>> passes;   // per row, for instruction counts
  std::vector<std::pair<std::string, std::string>> notes;
  std::vector<std::string> panel_commands;       // per panel: the equivalent `braid-bench run` line
  double seconds = 0;
  model_report model;
};

// Runs every panel of `definition` (its quick arguments under --quick) with the user's options
// overriding. Throws usage_error for options the experiment refuses.
figure_result run_figure(const figure& definition, const options& user, std::ostream& progress);

// Fills `instructions_per_op` from a callgrind count of `arguments` (the command after the
// program name, without --callgrind); returns the problem, empty when counted.
std::string add_instruction_counts(figure_result& result, const std::vector<std::string>& arguments);

// Metadata of the run: machine facts plus the figure's notes (pages obtained, probe results).
run_metadata metadata_of(const figure_result& result);

// Writes DIR/NAME.csv, .jsonl, the plot DIR/NAME.png (+ .gp) and, when the model ran,
// DIR/NAME-model.csv. Returns the plot's file name (empty when none) and appends problems
// (gnuplot missing) to `problems`.
std::string write_figure_files(const figure_result& result, const run_metadata& metadata,
                               const std::filesystem::path& directory, std::vector<std::string>& problems);

// The terminal output of a run: metadata, the rows in `format`, the model table.
void print_figure(std::ostream& out, const figure_result& result, const run_metadata& metadata, output_format format);

// `braid-bench run NAME [options]` (also `braid-bench roofline`): runs, prints, writes --out.
// Returns 1 when --callgrind was asked for and the counting run failed (the rows went out
// without instruction counts); refuses --callgrind up front where it cannot work.
int run_named(const std::string& name, const std::vector<std::string>& arguments);

}  // namespace braid::bench
