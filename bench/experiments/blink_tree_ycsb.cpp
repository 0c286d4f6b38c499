// blink-tree-ycsb: the B-link tree on tasks against the same tree on threads, YCSB fill phase
// and YCSB-C reads (Zipfian and uniform), 1 and 2 workers (MxTasking dissertation Fig. 3.4,
// Fig. 5.3 and the prefetch-distance sweep of §5.5.2).
//
// Techniques, all on one tree per worker count (the fill passes clear and refill it):
//   tasks-off            the task runtime with prefetching off
//   tasks-fixed-K        prefetch the object of the task K slots ahead
//   tasks-auto           automatic distance: each worker tunes it over measured windows
//   coro-on-tasks-auto   reads only: the coroutine lookup source run as tasks (the bridge)
//   threads-olc          plain threads, optimistic lock coupling: the naive baseline
//   coro-interleaved     reads only: the coroutine lookup source interleaved on threads
// Requests come in batches of 500 (tasks: fetched by one low-priority task per worker).
// --keys sets the record count (the run phase has as many operations); --threads the
// worker counts; --group the coroutine group size; --workload FILL RUN replaces the
// generated YCSB-C with files.
#include <string>
#include <vector>

#include "blink_tree_harness.hpp"
#include "figures.hpp"
#include "headline.hpp"

namespace braid::bench {
namespace {

using namespace blink_bench;

void run_blink_tree_ycsb(run_context& context) {
  const bool quick = context.quick();
  const std::uint64_t records = context.keys_or(quick ? 200'000 : 20'000'000);
  const unsigned repetitions = context.repetitions_or(quick ? 2 : 3);
  const std::vector<unsigned> worker_counts = context.threads_or({1, 2});
  const std::size_t group = context.groups_or({16}).front();
  const std::vector<unsigned> fixed_distances = quick ? std::vector<unsigned>{2, 4} : std::vector<unsigned>{1, 2, 3, 4, 6, 8};
  std::vector<key_distribution> distributions;
  if (context.given().distribution || context.given().workload_files) {
    distributions.push_back(context.distribution_or({.shape = key_distribution::kind::zipf}));
  } else {
    distributions = {{.shape = key_distribution::kind::zipf}, {.shape = key_distribution::kind::uniform}};
  }
  context.require_memory(tree_bytes_estimate(records) + 2 * records * 2 * sizeof(request), "the tree and its requests");

  std::vector<ycsb_input> inputs;
  for (const key_distribution& distribution : distributions) {
    inputs.push_back(ycsb_input_for(context, ycsb_workload::c, distribution, records, records));
  }
  const std::vector<request>& fill = inputs.front().fill;

  for (unsigned workers : worker_counts) {
    tasks::runtime runtime({.workers = workers});
    thread_runner threads(workers);
    blink_tree tree(runtime);
    tree.reserve(tree_bytes_estimate(fill.size()) / blink_tree::node_bytes * 6 / 5);

    // ---- fill phase: every pass clears the tree and inserts every record ----------------
    std::vector<technique_run> fills;
    for (const task_setting& setting : distance_settings({2, 4}, false)) {
      if (!context.selected(setting.name)) continue;
      fills.push_back({setting.name, [&, setting] {
                         tree.clear();
                         runtime.set_prefetch_distance(setting.distance);
                         return checksum_of(run_on_runtime(tree, runtime, fill));
                       }});
    }
    if (context.selected("threads-olc")) {
      fills.push_back({"threads-olc", [&] {
                         tree.clear();
                         return checksum_of(run_on_threads(tree, threads, fill));
                       }});
    }
    if (!fills.empty()) {
      context.progress(std::to_string(workers) + " workers: fill");
      const std::vector<measurement> measured = measure_interleaved(fills, repetitions, &context);
      require_same_checksums(measured, "blink-tree-ycsb fill");
      for (const measurement& each : measured) {
        result_row row = tree_row(each, "fill", workers, fill.size(), tree.memory_bytes());
        set_speedups(row, measured, each, "threads-olc", "tasks-off");
        context.emit(std::move(row));
      }
    } else {
      tree.clear();
      run_on_runtime(tree, runtime, fill);
    }
    const blink_tree::consistency_report report = tree.check(false);
    if (!report.ok) throw std::logic_error("blink-tree-ycsb: the filled tree is inconsistent: " + report.describe());
    context.note("tree", std::to_string(fill.size()) + " keys, height " + std::to_string(tree.height()) + ", " +
                             format_bytes(tree.memory_bytes()) + " in " + std::to_string(tree.node_count()) + " nodes");

    // ---- run phase: YCSB-C reads on the filled tree ------------------------------------------
    for (std::size_t input = 0; input < inputs.size(); ++input) {
      const std::vector<request>& reads = inputs[input].run;
      const std::string phase = "read-" + distributions[input].describe();
      std::vector<technique_run> passes;
      for (const task_setting& setting : distance_settings(fixed_distances, true)) {
        if (!context.selected(setting.name)) continue;
        passes.push_back({setting.name, [&, setting] {
                            runtime.set_prefetch_distance(setting.distance);
                            return checksum_of(run_on_runtime(tree, runtime, reads, {.lookups = setting.lookups}));
                          }});
      }
      if (context.selected("threads-olc")) {
        passes.push_back({"threads-olc", [&] { return checksum_of(run_on_threads(tree, threads, reads)); }});
      }
      if (context.selected("coro-interleaved")) {
        passes.push_back({"coro-interleaved", [&] {
                            return checksum_of(run_interleaved_on_threads(tree, threads, reads, 500, group));
                          }});
      }
      if (passes.empty()) continue;
      context.progress(std::to_string(workers) + " workers: " + phase);
      const std::vector<measurement> measured = measure_interleaved(passes, repetitions, &context);
      require_same_checksums(measured, "blink-tree-ycsb " + phase);
      for (const measurement& each : measured) {
        result_row row = tree_row(each, phase, workers, reads.size(), tree.memory_bytes());
        set_speedups(row, measured, each, "threads-olc", "tasks-off");
        if (each.name == "coro-interleaved") row.set("group", static_cast<std::int64_t>(group));
        context.emit(std::move(row));
      }
    }
    note_runtime(context, tree, inputs.front().description);
  }
}

const registration blink_tree_ycsb{experiment{
    .name = "blink-tree-ycsb",
    .reproduces = "MxTasks Fig. 3.4, 5.3 + §5.5.2 distance sweep (YCSB fill and C)",
    .summary = "B-link tree on tasks (prefetch off/fixed/auto, coroutine bridge) vs threads (OLC) and coroutines",
    .techniques = {"tasks-off", "tasks-fixed-1", "tasks-fixed-2", "tasks-fixed-3", "tasks-fixed-4", "tasks-fixed-6",
                   "tasks-fixed-8", "tasks-auto", "coro-on-tasks-auto", "threads-olc", "coro-interleaved"},
    .accepted = accepts_keys | accepts_threads | accepts_group | accepts_technique | accepts_dist | accepts_workload,
    .run = run_blink_tree_ycsb,
}};

const char* const zipf_reads = "read-zipf:0.99";
const char* const paper_machine = "2x Xeon Gold 6226, 1-48 cores, 100 M records in the paper";

const figure_registration ycsb_figure{blink_tree_ycsb, figure{
    .name = "mxtasks-fig5-3-ycsb",
    .reproduces = "MxTasks Fig. 3.4, 5.3, 5.8 and §5.5.5 (prefetching off/static/automatic, tasks vs threads, YCSB fill and C)",
    .summary = "B-link tree: fill and Zipfian/uniform YCSB-C throughput per technique and prefetch distance, 1 and 2 workers",
    .panels = {records_panel("20M records", "20000000", "100000", "1,2")},
    .axes = {.x = "threads", .y = "mops", .series = {"technique", "phase"}},
    .paper = {paper_claim("MxTasks Fig. 5.3c (YCSB-C, static distance 2 vs no prefetching)",
                          "prefetching raises lookup throughput by 40 % on average",
                          {{"technique", "tasks-fixed-2"}, {"phase", zipf_reads}}, statistic::maximum, 1.40, 1.40,
                          shape_rule::same_side_of(1), paper_machine, "speedup_vs_prefetch_off"),
              paper_claim("MxTasks Fig. 5.3a (YCSB insert-only, static distance 2 vs no prefetching)",
                          "prefetching raises insert throughput by 24 % on average",
                          {{"technique", "tasks-fixed-2"}, {"phase", "fill"}}, statistic::maximum, 1.24, 1.24,
                          shape_rule::same_side_of(1), paper_machine, "speedup_vs_prefetch_off"),
              paper_claim("MxTasks §5.5.5 / Fig. 5.8c (read-only, tasks vs the thread-based B-link tree)",
                          "up to 30 % more lookups than the thread-based tree",
                          {{"technique", "tasks-fixed-2"}, {"phase", zipf_reads}}, statistic::maximum, 1.30, 1.30,
                          shape_rule::same_side_of(1), paper_machine),
              paper_claim("MxTasks §5.5.5 / Fig. 5.8a (insert-only, tasks vs the thread-based B-link tree)",
                          "up to 8.5 % more inserts than the thread-based tree",
                          {{"technique", "tasks-fixed-2"}, {"phase", "fill"}}, statistic::maximum, 1.085, 1.085,
                          shape_rule::same_side_of(1), paper_machine),
              paper_ratio("MxTasks Fig. 3.4 (parallel inserts, dynamic vs static distance 2)",
                          "dynamic prefetching 4 % faster than static for inserts", {{"technique", "tasks-auto"}, {"phase", "fill"}},
                          {{"technique", "tasks-fixed-2"}, {"phase", "fill"}}, "mops", statistic::maximum, 1.04,
                          shape_rule::within_factor(1.1),
                          "the paper's dynamic distance adds monitoring; ours measures task cycles the same way")},
}};

// One worker, Zipfian YCSB-C on 4 M records (not the figure's 20 M: the fill of each technique
// is timed too, and the whole entry must fit its minute).
const headline_registration ycsb_headline{ycsb_figure, headline_entry{
    .name = "B-link tree on tasks (4M records, YCSB fill + C)",
    .panels = {{.label = "4M records, 1 worker",
                .arguments = {"--keys", "4000000", "--threads", "1", "--dist", "zipf", "--repetitions", "3", "--technique",
                              "tasks-off,tasks-fixed-2,tasks-auto,threads-olc"},
                .quick_arguments = {"--keys", "100000", "--threads", "1", "--dist", "zipf", "--repetitions", "1",
                                    "--technique", "tasks-off,tasks-fixed-2,tasks-auto,threads-olc"}}},
    .budget_seconds = 60,
    .summarize = compare_with_naive_and_peers("threads-olc", {}),
}};

}  // namespace
}  // namespace braid::bench
