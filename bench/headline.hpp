// The headline: what `braid-bench headline` (and `make bench`) runs and prints.
//
// Each structure's experiment file declares its headline entry: a budgeted configuration of
// one of its figures (DRAM-resident and cache-resident panels, a few group sizes) and how its
// rows become lines of the headline tables. For an index that is a few lines:
//
//   const headline_registration hash_headline{hash_figure, headline_entry{   // its figure's registration
//       .name = "chained hash table",
//       .panels = {{.label = "10M keys uniform",   // labels as in the figure, so its paper numbers apply
//                   .arguments = {"--size", "1GiB", "--group", "8,16,32"},
//                   .quick_arguments = {"--size", "4MiB", "--group", "8", "--keys", "2000"}},
//                  {.label = "0.5 MiB uniform", .arguments = {...}, .quick_arguments = {...}}},
//       .budget_seconds = 60,
//       .summarize = compare_with_naive_and_peers({.peers = {"std-unordered-map", "absl-flat-hash-map"}}),
//   }};
//
// The structures table has one line per structure and residency: the best technique (highest
// throughput, any group) against the best naive row and the best peer, with speedups and
// roofline fractions. The machine table holds the measured limits and the cost of the
// machinery. The whole headline is budgeted to 10 minutes on 2 cores; `headline` prints each
// part's budget next to the time it took.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "figures.hpp"
#include "results.hpp"

namespace braid::bench {

// Turns an entry's rows into lines of a headline table; `name` is the entry's name.
using headline_summary = std::function<std::vector<result_row>(const std::vector<result_row>& rows, const std::string& name)>;

enum class headline_table { structures, machine };

struct headline_entry {
  std::string name;             // "chained hash table"
  std::string figure;           // the figure preset it runs (experiment, axes, paper numbers)
  std::vector<panel> panels;    // the budgeted configuration; empty: the figure's own panels
  double budget_seconds = 60;   // expected time of the full configuration on 2 cores
  headline_summary summarize;
  headline_table table = headline_table::structures;
  int order = 100;              // position in the headline; the roofline goes first (0)
};

// Registers an entry at static-initialization time: of the figure preset registered by `of`
// (which sets `figure`), or of the one `figure` names.
struct headline_registration {
  headline_registration(const figure_registration& of, headline_entry entry);
  explicit headline_registration(headline_entry entry);
};

// Entries in headline order (then by name).
const std::vector<headline_entry>& headline_entries();

// What the headline says of a part that ran `seconds` against its `allowance` (its budget plus
// what earlier parts left, negative when they overran by more than its budget).
std::string over_allowance_message(const headline_entry& entry, double seconds, double allowance);

// The headline's total budget: 10 minutes on 2 cores.
constexpr double headline_budget_seconds = 600;

// Which rows of an entry are the baseline and the peers, and what splits its lines.
struct headline_comparison {
  std::vector<std::string> baselines = {"naive"};  // plain variants; the fastest one is "naive"
  std::vector<std::string> peers;                  // what a user would use instead
  // Fields whose values give an entry several lines per residency (e.g. {"structure"} for an
  // experiment that measures int and string keys); the values are appended to the name.
  std::vector<std::string> split_by;
  // What the peer comparison means, in the `peer_compares` column of every line with a peer:
  // by default the same keys and operations on the container a user would pick instead. A
  // line whose structure is a paper's set-up rather than a like-for-like one says so here,
  // keyed by its split value (e.g. the 100k-bucket chained table, whose long chains no user
  // would choose: its peer is the user's alternative, not the same structure).
  std::string peer_compares = "same keys, user's container";
  std::map<std::string, std::string> peer_compares_for;
};

// Per line (the split_by values, then residency: the `residency` field; rows without one form
// their own line): the fastest row of any technique that is neither a baseline nor a peer, the
// fastest baseline row and the fastest peer row, by `mops`. Columns: structure, residency,
// size, best, group, best_mops, naive_mops, peer, peer_mops, speedup_vs_naive,
// speedup_vs_peer, coro_vs_amac (the fastest `coro` row over the fastest `amac` row, at any
// group size each: the write-once coroutine against the hand-written state machine),
// peer_compares, roofline_fraction (of the best), naive_roofline_fraction.
headline_summary compare_with_naive_and_peers(headline_comparison comparison);
headline_summary compare_with_naive_and_peers(std::string baseline, std::vector<std::string> peers);

// Column order of the two tables.
const std::vector<std::string>& structure_columns();
const std::vector<std::string>& machine_columns();

// One line of the machine table: a statistic of one field over some rows, with its unit.
struct machine_fact {
  std::string what;                    // "dependent-load latency"
  row_filter where;                    // {{"chains", "1"}}
  std::string field;                   // "ns_per_load"
  std::string unit;                    // "ns"
  statistic computed = statistic::maximum;
  std::string best_by = "mops";        // at_best only
};

// Lines `what`, `value`, `unit`, `source` (the entry's name); facts without a matching row are
// left out.
headline_summary report_facts(std::vector<machine_fact> facts);

}  // namespace braid::bench
