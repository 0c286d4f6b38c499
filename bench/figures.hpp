// Figure presets: named runs of an experiment that reproduce a figure of the papers.
//
// A figure is an experiment plus the options that reproduce one of the seed papers' figures
// (its panels: one run of the experiment each, e.g. small/large x uniform/Zipf), the axes of
// its plot, the papers' numbers for it (stored as data, each with the rule that computes our
// counterpart from this run's rows) and, where the analytical model of the thesis applies,
// which techniques to predict. An experiment registers its figures in its own file:
//
//   const figure_registration fig6{binary_search, figure{   // binary_search: its registration
//       .name = "fig6-binary-search-groups",
//       .reproduces = "Killer Nanoseconds Fig. 6 (binary search, group-size sweep)",
//       .panels = {{.label = "0.5 MiB uniform",
//                   .arguments = {"--size", "512KiB", "--group", "1,2,4,8,12,16,20,30", "--dist", "uniform"},
//                   .quick_arguments = {"--size", "512KiB", "--group", "1,8", "--keys", "2000"}}, ...},
//       .axes = {.x = "group", .y = "mops"},
//       .paper = {{.source = "Killer Nanoseconds Fig. 6a (Clang, 1 thread)",
//                  .claim = "naive up to 1.8x faster than Coro",
//                  .where = {{"panel", "0.5 MiB uniform"}, {"technique", "coro"}},
//                  .computed = statistic::minimum, .paper_low = 1 / 1.8, .paper_high = 1 / 1.8,
//                  .shape = shape_rule::same_side_of(1)}}}};
//
// `braid-bench run NAME` runs every panel (user options override the preset's in each panel;
// --quick uses the panels' quick arguments), tags each row with its `panel`, and with --out
// writes the CSV/JSON lines, the PNG plot and a Markdown section with ours beside the papers'.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "results.hpp"

namespace braid::bench {

// One run of the experiment within a figure.
struct panel {
  std::string label;                          // "0.5 MiB uniform"; rows carry it as `panel`
  std::vector<std::string> arguments;         // experiment options, as on the command line
  std::vector<std::string> quick_arguments;   // replace `arguments` under --quick (seconds, not minutes)
};

// The plot of a figure: y against x, one line per series, one panel per plot of a multiplot.
struct plot_axes {
  std::string x = "group";                    // a row field; empty: pick the swept one
  std::string y = "mops";
  std::string y2;                             // optional second y axis (right side)
  std::vector<std::string> series = {"technique"};  // fields whose values name a line
  bool log_x = false;
  bool log_y = false;
  std::string x_label;                        // empty: the field name
  std::string y_label;
  std::string y2_label;
};

// Rows a paper number refers to: every listed field equals the value (numbers compare by
// their printed text, so {"group", "1"} matches the integer 1).
using row_filter = std::vector<std::pair<std::string, std::string>>;
bool matches(const result_row& row, const row_filter& filter);

// How our counterpart of a paper number is computed from the matching rows.
enum class statistic {
  maximum,   // largest value of `field` ("up to 8.4x")
  minimum,   // smallest value of `field` ("naive up to 1.8x faster": the smallest speedup)
  range,     // smallest..largest ("2.0-2.4x above the LLC")
  at_best,   // `field` of the row with the largest `best_by` (the optimal group size)
};

// When ours "agrees in shape" with the paper.
struct shape_rule {
  enum class kind { none, same_side_of, within_factor } test = kind::none;
  double threshold = 1;  // same_side_of: both above or both below (1 for speedups: win or loss)
  double factor = 2;     // within_factor: ours within [paper_low / factor, paper_high * factor]
  static shape_rule same_side_of(double threshold) { return {kind::same_side_of, threshold, 2}; }
  static shape_rule within_factor(double factor) { return {kind::within_factor, 1, factor}; }
};

// One number of a paper, stored beside the figure preset that reproduces it.
struct paper_number {
  std::string source;       // "Killer Nanoseconds Fig. 1c (Clang, 10M keys uniform, 1 thread)"
  std::string claim;        // the paper's own words: "naive slower by up to 8.4x than AMAC"
  row_filter where;         // our rows
  std::string field = "speedup_vs_naive";
  statistic computed = statistic::maximum;
  std::string best_by = "mops";   // at_best only
  row_filter relative_to;   // when set, ours = statistic(where) / statistic(relative_to)
  double paper_low = 0;     // the paper's value, or its range
  double paper_high = 0;
  shape_rule shape;
  std::string caveat;       // what differs in the conditions ("28 threads in the paper")
  // Compare with the rows of the analytical model (predicted_group, predicted_speedup_max,
  // measured_best_group ...; model_request below) instead of the measured rows: for the
  // papers' own model estimates.
  bool of_model = false;
};

// A paper number whose ours is `computed` of `field` over the rows matching `where`, with the
// paper's value (or range) low..high: the common case, without a ratio or the model's rows.
paper_number paper_claim(std::string source, std::string claim, row_filter where, statistic computed, double low,
                         double high, shape_rule shape, std::string caveat, std::string field = "speedup_vs_naive");
// A paper number that is a ratio of ours: `computed` of `field` over the rows matching `where`,
// divided by the same over the rows matching `relative_to`, against the paper's single value.
paper_number paper_ratio(std::string source, std::string claim, row_filter where, row_filter relative_to,
                         std::string field, statistic computed, double paper, shape_rule shape, std::string caveat);

// The statistic of `field` over the rows matching `where` (at_best: `field` of the matching row
// with the largest `best_by`); nullopt when no matching row has the fields. A range's ends are
// low and high; the other statistics give low == high.
struct extent {
  double low;
  double high;
};
std::optional<extent> statistic_of(const std::vector<result_row>& rows, const row_filter& where, const std::string& field,
                                   statistic computed, const std::string& best_by = "mops");

// Our counterpart of a paper number, from one run's rows.
struct comparison {
  bool measured = false;            // some rows matched
  double ours_low = 0;
  double ours_high = 0;
  std::optional<bool> same_shape;   // unset when the rule is `none` or nothing was measured
  [[nodiscard]] std::string ours_text() const;
  [[nodiscard]] std::string verdict() const;  // "agrees in shape", "differs in shape", "not measured", "-"
};
comparison compare(const paper_number& number, const std::vector<result_row>& rows);
std::string paper_text(const paper_number& number);
std::string format_number(double value);

// The thesis's analytical model (§3.1) is evaluated for these techniques of a group sweep:
// per configuration, from the baseline's row (with the experiment's `compute_ns_per_op` and
// `misses_per_op`, optionally `suspensions_per_op`) and the technique's group-1 row.
struct model_request {
  std::vector<std::string> techniques;  // empty: the model is not evaluated
  std::string baseline = "naive";
};

struct figure {
  std::string name;          // "fig1-2-hash-groups"
  std::string experiment;    // "hash-probe"
  std::string reproduces;    // "Killer Nanoseconds Fig. 1-2 (hash probe, group-size sweep)"
  std::string summary;       // one line for `list`
  std::vector<panel> panels; // at least one
  plot_axes axes;
  std::vector<paper_number> paper;
  model_request model;
};

struct registration;

// Registers a figure preset at static-initialization time: of the experiment registered by
// `of` (which sets `experiment`), or of the one `experiment` names.
struct figure_registration {
  figure_registration(const registration& of, figure definition);
  explicit figure_registration(figure definition);
  std::string name;
};

const std::vector<figure>& figures();
const figure* find_figure(const std::string& name);

}  // namespace braid::bench
