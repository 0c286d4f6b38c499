// Shared by the B-link tree and task-runtime experiments: the YCSB input (files given with
// --workload FILL RUN, or generated in memory the same way `braid-bench workload` writes
// them), the passes that drive the tree (task form, thread form, coroutines), the rows, and
// the figure panels.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "blink_tree_driver.hpp"
#include "braid/index/blink_tree.hpp"
#include "braid/tasks/runtime.hpp"
#include "experiment.hpp"
#include "figures.hpp"
#include "measure.hpp"
#include "roofline.hpp"
#include "workload_files.hpp"

namespace braid::bench::blink_bench {

// A figure panel: `keys` records on `threads` workers, with the `extra` options; under --quick,
// `quick_keys` records and one repetition.
inline panel records_panel(const std::string& label, const std::string& keys, const std::string& quick_keys,
                           const std::string& threads, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> arguments = {"--keys", keys, "--threads", threads};
  std::vector<std::string> quick = {"--keys", quick_keys, "--threads", threads, "--repetitions", "1"};
  arguments.insert(arguments.end(), extra.begin(), extra.end());
  quick.insert(quick.end(), extra.begin(), extra.end());
  return {.label = label, .arguments = std::move(arguments), .quick_arguments = std::move(quick)};
}

inline std::vector<request> to_requests(const std::vector<workload_operation>& operations) {
  std::vector<request> requests;
  requests.reserve(operations.size());
  for (const workload_operation& operation : operations) {
    request_kind kind = request_kind::read;
    switch (operation.kind) {
      case workload_operation_kind::insert: kind = request_kind::insert; break;
      case workload_operation_kind::read: kind = request_kind::read; break;
      case workload_operation_kind::update: kind = request_kind::update; break;
      case workload_operation_kind::erase: kind = request_kind::erase; break;
      case workload_operation_kind::scan: kind = request_kind::scan; break;
    }
    requests.push_back({operation.key, operation.scan_length, kind});
  }
  return requests;
}

struct ycsb_input {
  std::vector<request> fill;
  std::vector<request> run;
  std::string description;
};

// Footprint of a tree filled by `records` random inserts: leaves ~70 % full (42 of 60), the
// levels above add ~2.5 %.
inline std::size_t tree_bytes_estimate(std::uint64_t records) {
  return static_cast<std::size_t>(static_cast<double>(records) / 42.0 * 1.025 * blink_tree::node_bytes) + (2u << 20);
}

// --workload FILL RUN when given (read whole and validated first), else YCSB generated in memory.
inline ycsb_input ycsb_input_for(run_context& context, ycsb_workload workload, const key_distribution& distribution,
                                 std::uint64_t records, std::uint64_t operations) {
  ycsb_input input;
  if (const workload_file_pair* files = context.workload()) {
    input.fill = to_requests(files->fill);
    input.run = to_requests(files->run);
    input.description = "files " + files->fill_path + " " + files->run_path;
    return input;
  }
  context.progress("generating YCSB-" + std::string(1, static_cast<char>(workload)));
  const generated_workload made = generate_ycsb(
      {.workload = workload, .records = records, .operations = operations, .requests = distribution, .seed = context.seed()});
  input.fill = to_requests(made.fill);
  input.run = to_requests(made.run);
  input.description = std::string("YCSB-") + static_cast<char>(workload) + " generated, " + distribution.describe() +
                      ", " + std::to_string(records) + " records, " + std::to_string(operations) + " operations";
  return input;
}

// Where a technique's checksum comes from: what lookups found and scans saw, plus counts.
inline std::uint64_t checksum_of(const run_totals& totals) {
  return totals.checksum + totals.found * 3 + totals.absent * 5 + totals.inserted * 7 + totals.updated * 11 +
         totals.erased * 13 + totals.scanned_entries * 17;
}

// The runtime's settings of a task technique.
struct task_setting {
  std::string name;
  tasks::prefetch_distance distance;
  lookup_form lookups = lookup_form::tasks;
};

inline std::vector<task_setting> distance_settings(const std::vector<unsigned>& fixed_distances, bool with_bridge) {
  std::vector<task_setting> settings = {{"tasks-off", tasks::prefetch_distance::off()}};
  for (unsigned distance : fixed_distances) {
    settings.push_back({"tasks-fixed-" + std::to_string(distance), tasks::prefetch_distance::fixed(distance)});
  }
  settings.push_back({"tasks-auto", tasks::prefetch_distance::automatic()});
  if (with_bridge) {
    settings.push_back({"coro-on-tasks-auto", tasks::prefetch_distance::automatic(), lookup_form::coroutine_bridge});
  }
  return settings;
}

// A row with the standard fields for one technique of one phase.
inline result_row tree_row(const measurement& measured, const std::string& phase, unsigned threads, std::size_t operations,
                           std::size_t tree_bytes) {
  result_row row;
  const double ns_per_op = measured.median_ns / static_cast<double>(operations);
  // The headline groups rows by residency: one line per phase, labelled by the tree's size
  // against the last-level cache (results.hpp).
  const std::string residency = residency_of(tree_bytes) + " " + phase;
  row.set("structure", "blink-tree")
      .set("residency", residency)
      .set("technique", measured.name)
      .set("phase", phase)
      .set("threads", static_cast<std::int64_t>(threads))
      .set("size_bytes", static_cast<std::int64_t>(tree_bytes))
      .set("ops", static_cast<std::int64_t>(operations))
      .set("checksum", std::to_string(measured.checksum))  // what the pass computed: proves which input ran
      .set("ns_per_op", ns_per_op)
      .set("mops", 1e3 / ns_per_op)
      .set("cycles_per_op", measured.median_cycles / static_cast<double>(operations));
  return row;
}

inline void set_speedups(result_row& row, const std::vector<measurement>& measured, const measurement& each,
                         const char* naive, const char* prefetch_off) {
  for (const measurement& other : measured) {
    if (other.name == naive) row.set("speedup_vs_naive", other.median_ns / each.median_ns);
    if (other.name == prefetch_off) row.set("speedup_vs_prefetch_off", other.median_ns / each.median_ns);
  }
}

// Notes every experiment of this family records.
inline void note_runtime(run_context& context, const blink_tree& tree, const std::string& workload) {
  context.note("workload", workload);
  context.note("tree_pages", tree.describe_pages());
  context.note("hardware_transactions", tasks::hardware_transactions_supported() ? "yes (RTM)" : "not supported on this CPU");
}

}  // namespace braid::bench::blink_bench
