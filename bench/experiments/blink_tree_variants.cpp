// The B-link tree's design choices, one experiment each (MxTasking dissertation Ch. 5):
//
//   blink-tree-prefetch-parts  which part of a node the task form prefetches (Fig. 5.2):
//                              none, the header line, header + half the keys, all keys, the
//                              whole node, each non-temporal (NTA) or temporal (T0), for
//                              YCSB-C lookups; and what an insert prefetches for the fill
//   blink-tree-reclamation     epoch-based reclamation off, per task, per buffer refill (Fig. 5.4)
//   blink-tree-sync            the primitives the runtime offers: chosen by the annotation
//                              matrix, or one forced on every node; against the thread form
//                              (optimistic lock coupling), for the fill, YCSB-C and YCSB-A
//                              (Fig. 5.5-5.8)
//
// All run on the task runtime at the dissertation's static distance 2 (the prefetch-parts and
// reclamation trees) or its default settings, with requests in batches of 500, techniques
// interleaved within each repetition. --keys sets the record count (the run phases have as
// many operations), --threads the worker counts, --dist the request distribution.
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "blink_tree_harness.hpp"
#include "figures.hpp"
#include "results.hpp"

namespace braid::bench {
namespace {

using namespace blink_bench;
using tasks::prefetch_descriptor;
using tasks::prefetch_temporality;
using node_part = blink_tree_node_part;

// What every experiment of this file starts from: sizes, workers, the YCSB-C input.
struct variant_setup {
  std::uint64_t records;
  unsigned repetitions;
  std::vector<unsigned> worker_counts;
  key_distribution distribution;
};

variant_setup setup_for(run_context& context, std::uint64_t full_records, std::uint64_t quick_records,
                        std::size_t trees) {
  const bool quick = context.quick();
  variant_setup setup{
      .records = context.keys_or(quick ? quick_records : full_records),
      .repetitions = context.repetitions_or(quick ? 2 : 3),
      .worker_counts = context.threads_or({1, 2}),
      .distribution = context.distribution_or({.shape = key_distribution::kind::zipf}),
  };
  context.require_memory(
      trees * tree_bytes_estimate(setup.records) + 4 * setup.records * sizeof(request) + (std::size_t{64} << 20),
      "the trees and their requests");
  return setup;
}

// Measures the passes, checks their checksums and emits one row per technique.
void measure_and_emit(run_context& context, unsigned repetitions, std::vector<technique_run>& passes,
                      const std::string& experiment,
                      const std::string& phase, unsigned workers, std::size_t operations,
                      const std::function<std::size_t()>& tree_bytes,
                      const char* naive, const char* prefetch_off,
                      const std::function<void(result_row&, const std::string&)>& decorate = {}) {
  if (passes.empty()) return;  // (tree_bytes is asked after the passes: a fill grows the tree)
  context.progress(std::to_string(workers) + " workers: " + phase);
  const std::vector<measurement> measured = measure_interleaved(passes, repetitions, &context);
  require_same_checksums(measured, experiment + " " + phase);
  for (const measurement& each : measured) {
    result_row row = tree_row(each, phase, workers, operations, tree_bytes());
    set_speedups(row, measured, each, naive, prefetch_off);
    if (decorate) decorate(row, each.name);
    context.emit(std::move(row));
  }
}

void require_consistent(const blink_tree& tree, const std::string& what) {
  const blink_tree::consistency_report report = tree.check(false);
  if (!report.ok) throw std::logic_error(what + ": the filled tree is inconsistent: " + report.describe());
}

// ---- blink-tree-prefetch-parts ------------------------------------------------------------

struct part_choice {
  std::string name;
  node_part part;
  prefetch_temporality temporality;
};

std::vector<part_choice> lookup_part_choices() {
  std::vector<part_choice> choices = {{"none", node_part::none, prefetch_temporality::non_temporal}};
  for (node_part part : {node_part::header, node_part::half_keys, node_part::all_keys, node_part::whole_node}) {
    choices.push_back({std::string(to_string(part)) + "-nta", part, prefetch_temporality::non_temporal});
    choices.push_back({std::string(to_string(part)) + "-t0", part, prefetch_temporality::temporal});
  }
  return choices;
}

struct insert_choice {
  std::string name;
  prefetch_descriptor traversal;
  prefetch_descriptor insert;
};

std::vector<insert_choice> insert_choices(const blink_tree_options& defaults) {
  constexpr std::size_t node_bytes = blink_tree::node_bytes;
  return {
      {"insert-none", {}, {}},
      {"insert-header-write", defaults.traversal_prefetch,
       blink_tree_prefetch(node_part::header, prefetch_temporality::write)},
      {"insert-half-node-write", defaults.traversal_prefetch, defaults.insert_prefetch},
      {"insert-whole-node-write", defaults.traversal_prefetch,
       prefetch_descriptor::bytes(node_bytes, prefetch_temporality::write)},
      {"insert-half-node-t0", defaults.traversal_prefetch,
       prefetch_descriptor::bytes(node_bytes / 2, prefetch_temporality::temporal)},
  };
}

void run_blink_tree_prefetch_parts(run_context& context) {
  const variant_setup setup = setup_for(context, 20'000'000, 100'000, 1);
  const ycsb_input input = ycsb_input_for(context, ycsb_workload::c, setup.distribution, setup.records, setup.records);
  for (unsigned workers : setup.worker_counts) {
    tasks::runtime runtime({.workers = workers, .distance = tasks::prefetch_distance::fixed(2)});
    blink_tree tree(runtime);
    tree.reserve(tree_bytes_estimate(input.fill.size()) / blink_tree::node_bytes * 6 / 5);
    const blink_tree_options defaults = tree.options();

    std::vector<technique_run> fills;
    for (const insert_choice& choice : insert_choices(defaults)) {
      if (!context.selected(choice.name)) continue;
      fills.push_back({choice.name, [&, choice] {
                         tree.clear();
                         tree.set_prefetch(choice.traversal, choice.insert, defaults.value_step);
                         return checksum_of(run_on_runtime(tree, runtime, input.fill));
                       }});
    }
    measure_and_emit(context, setup.repetitions, fills, "blink-tree-prefetch-parts", "fill", workers,
                     input.fill.size(), [&] { return tree.memory_bytes(); }, "insert-none", "insert-none");
    if (fills.empty()) {
      tree.clear();
      run_on_runtime(tree, runtime, input.fill);
    }
    require_consistent(tree, "blink-tree-prefetch-parts");

    const std::string phase = "read-" + setup.distribution.describe();
    std::vector<technique_run> reads;
    for (const part_choice& choice : lookup_part_choices()) {
      if (!context.selected(choice.name)) continue;
      reads.push_back({choice.name, [&, choice] {
                         // Without any prefetch the value is read in the leaf's own task.
                         const bool value_step = choice.part != node_part::none;
                         tree.set_prefetch(blink_tree_prefetch(choice.part, choice.temporality),
                                           defaults.insert_prefetch, value_step);
                         return checksum_of(run_on_runtime(tree, runtime, input.run));
                       }});
    }
    std::vector<part_choice> choices = lookup_part_choices();
    measure_and_emit(context, setup.repetitions, reads, "blink-tree-prefetch-parts", phase, workers, input.run.size(),
                     [&] { return tree.memory_bytes(); }, "none", "none", [&](result_row& row, const std::string& name) {
                       for (const part_choice& choice : choices) {
                         if (choice.name != name) continue;
                         row.set("node_part", to_string(choice.part))
                             .set("prefetch_lines",
                                  static_cast<std::int64_t>(
                                      blink_tree_prefetch(choice.part, choice.temporality).line_count()));
                       }
                     });
    tree.set_prefetch(defaults.traversal_prefetch, defaults.insert_prefetch, defaults.value_step);
    note_runtime(context, tree, input.description);
  }
}

const registration blink_tree_prefetch_parts{experiment{
    .name = "blink-tree-prefetch-parts",
    .reproduces = "MxTasks Fig. 5.2 (which node parts to prefetch)",
    .summary = "B-link tree on tasks: prefetch none / header / half / all keys / whole node, NTA vs T0; insert hints",
    .techniques = {"none", "header-nta", "header-t0", "half-keys-nta", "half-keys-t0", "all-keys-nta", "all-keys-t0",
                   "whole-node-nta", "whole-node-t0", "insert-none", "insert-header-write", "insert-half-node-write",
                   "insert-whole-node-write", "insert-half-node-t0"},
    .accepted = accepts_keys | accepts_threads | accepts_technique | accepts_dist | accepts_workload,
    .run = run_blink_tree_prefetch_parts,
}};

// ---- blink-tree-reclamation ---------------------------------------------------------------

void run_blink_tree_reclamation(run_context& context) {
  const variant_setup setup = setup_for(context, 20'000'000, 100'000, 1);
  const ycsb_input input = ycsb_input_for(context, ycsb_workload::c, setup.distribution, setup.records, setup.records);
  const std::vector<tasks::reclamation> modes = {tasks::reclamation::none, tasks::reclamation::per_task,
                                                 tasks::reclamation::per_refill};
  for (unsigned workers : setup.worker_counts) {
    tasks::runtime runtime({.workers = workers, .distance = tasks::prefetch_distance::fixed(2)});
    blink_tree tree(runtime);
    tree.reserve(tree_bytes_estimate(input.fill.size()) / blink_tree::node_bytes * 6 / 5);

    std::vector<technique_run> fills;
    std::vector<technique_run> reads;
    for (tasks::reclamation mode : modes) {
      const std::string name = tasks::to_string(mode);
      if (!context.selected(name)) continue;
      fills.push_back({name, [&, mode] {
                         tree.clear();
                         runtime.set_reclamation(mode);
                         return checksum_of(run_on_runtime(tree, runtime, input.fill));
                       }});
      reads.push_back({name, [&, mode] {
                         runtime.set_reclamation(mode);
                         return checksum_of(run_on_runtime(tree, runtime, input.run));
                       }});
    }
    measure_and_emit(context, setup.repetitions, fills, "blink-tree-reclamation", "fill", workers, input.fill.size(),
                     [&] { return tree.memory_bytes(); }, "none", "none");
    if (fills.empty()) {
      tree.clear();
      run_on_runtime(tree, runtime, input.fill);
    }
    require_consistent(tree, "blink-tree-reclamation");
    measure_and_emit(context, setup.repetitions, reads, "blink-tree-reclamation", "read-" + setup.distribution.describe(), workers,
                     input.run.size(), [&] { return tree.memory_bytes(); }, "none", "none");
    runtime.set_reclamation(tasks::reclamation::per_refill);
    note_runtime(context, tree, input.description);
  }
  context.note("reclamation_scope",
               "the B-link tree never frees a node while it lives: the modes differ by their epoch bookkeeping only");
}

const registration blink_tree_reclamation{experiment{
    .name = "blink-tree-reclamation",
    .reproduces = "MxTasks Fig. 5.4 (epoch-based reclamation: none, per task, batched)",
    .summary = "B-link tree on tasks: cost of epoch bookkeeping none / per task / per buffer refill, fill and YCSB-C",
    .techniques = {"none", "per-task", "per-refill"},
    .accepted = accepts_keys | accepts_threads | accepts_technique | accepts_dist | accepts_workload,
    .run = run_blink_tree_reclamation,
}};

// ---- blink-tree-sync ----------------------------------------------------------------------

struct sync_choice {
  std::string name;
  std::optional<tasks::primitive> protocol;  // unset: the annotations choose
};

std::vector<sync_choice> sync_choices() {
  using tasks::primitive;
  std::vector<sync_choice> choices = {{"annotations", std::nullopt}};
  for (primitive protocol : {primitive::olfit, primitive::schedule_writer, primitive::schedule_all,
                             primitive::reader_writer_latch, primitive::exclusive_latch, primitive::transactional}) {
    // Without RTM the transactional primitive is its fallback: measured as that, not twice.
    if (protocol == primitive::transactional && !tasks::hardware_transactions_supported()) continue;
    choices.push_back({tasks::to_string(protocol), protocol});
  }
  return choices;
}

// YCSB-A's reads may see either side of a concurrent update of their key: the techniques
// agree on what was done, not on which value a read saw.
std::uint64_t counts_checksum(const run_totals& totals) {
  return totals.found * 3 + totals.absent * 5 + totals.inserted * 7 + totals.updated * 11 + totals.erased * 13;
}

// What the transactional primitive did in one phase (every technique and repetition of it),
// from the runtime's counters: commits, aborted attempts by cause, runs under the latch.
void note_hardware_transactions(run_context& context, const tasks::runtime& runtime, const std::string& phase) {
  const tasks::worker_statistics counts = runtime.statistics().tasks;
  const std::uint64_t runs = counts.htm_commits + counts.htm_fallback_runs;
  if (runs == 0) return;
  const auto share = [&](std::uint64_t part) {
    return to_text(field_value{100.0 * static_cast<double>(part) / static_cast<double>(runs)}) + " %";
  };
  context.note("htm_" + phase,
               std::to_string(runs) + " task runs: " + share(counts.htm_commits) + " committed, " +
                   share(counts.htm_fallback_runs) + " under the fallback latch; aborted attempts per run: " +
                   share(counts.htm_aborts()) + " (conflict " + share(counts.htm_conflict_aborts) + ", capacity " +
                   share(counts.htm_capacity_aborts) + ", latch held " + share(counts.htm_latch_aborts) + ", other " +
                   share(counts.htm_other_aborts) + ")");
}

void run_blink_tree_sync(run_context& context) {
  const std::vector<sync_choice> choices = sync_choices();
  const variant_setup setup = setup_for(context, 5'000'000, 20'000, choices.size() + 1);
  const ycsb_input read_input = ycsb_input_for(context, ycsb_workload::c, setup.distribution, setup.records, setup.records);
  std::vector<request> update_run;
  if (!context.given().workload_files) {
    update_run = ycsb_input_for(context, ycsb_workload::a, setup.distribution, setup.records, setup.records).run;
  }
  const std::vector<request>& fill = read_input.fill;

  for (unsigned workers : setup.worker_counts) {
    tasks::runtime runtime({.workers = workers, .distance = tasks::prefetch_distance::fixed(2)});
    thread_runner threads(workers);
    // One tree per primitive (a tree's primitives are fixed when its nodes are made), and one
    // for the thread form.
    struct tree_under_test {
      std::string name;
      std::unique_ptr<blink_tree> tree;
      bool thread_form;
    };
    std::vector<tree_under_test> trees;
    for (const sync_choice& choice : choices) {
      if (!context.selected(choice.name)) continue;
      blink_tree_options options;
      options.inner_protocol = choice.protocol;
      options.leaf_protocol = choice.protocol;
      trees.push_back({choice.name, std::make_unique<blink_tree>(runtime, options), false});
    }
    if (context.selected("threads-olc")) trees.push_back({"threads-olc", std::make_unique<blink_tree>(runtime), true});
    for (tree_under_test& each : trees) each.tree->reserve(tree_bytes_estimate(fill.size()) / blink_tree::node_bytes * 6 / 5);

    auto passes_for = [&](const std::vector<request>& requests, bool clear_first, bool values_comparable) {
      std::vector<technique_run> passes;
      for (tree_under_test& each : trees) {
        passes.push_back({each.name, [&, clear_first, values_comparable] {
                            if (clear_first) each.tree->clear();
                            const run_totals totals =
                                each.thread_form ? run_on_threads(*each.tree, threads, requests)
                                                 : run_on_runtime(*each.tree, runtime, requests);
                            return values_comparable ? checksum_of(totals) : counts_checksum(totals);
                          }});
      }
      return passes;
    };
    auto tree_bytes = [&] { return trees.empty() ? std::size_t{0} : trees.front().tree->memory_bytes(); };
    const auto measure_phase = [&](const std::vector<request>& requests, bool clear_first, bool values_comparable,
                                   const std::string& phase) {
      std::vector<technique_run> passes = passes_for(requests, clear_first, values_comparable);
      runtime.reset_statistics();
      measure_and_emit(context, setup.repetitions, passes, "blink-tree-sync", phase, workers, requests.size(), tree_bytes,
                       "threads-olc", "");
      note_hardware_transactions(context, runtime, phase + "_" + std::to_string(workers) + "_workers");
    };
    measure_phase(fill, true, true, "fill");
    for (const tree_under_test& each : trees) require_consistent(*each.tree, "blink-tree-sync " + each.name);
    measure_phase(read_input.run, false, true, "read-" + setup.distribution.describe());
    if (!update_run.empty()) measure_phase(update_run, false, false, "ycsb-a-" + setup.distribution.describe());
    if (!trees.empty()) note_runtime(context, *trees.front().tree, read_input.description);
  }
  context.note("records_per_tree", std::to_string(setup.records) + " (one tree per primitive, all resident at once)");
}

const registration blink_tree_sync{experiment{
    .name = "blink-tree-sync",
    .reproduces = "MxTasks Fig. 5.5-5.8 (synchronization primitives; annotations vs forced; vs threads)",
    .summary = "B-link tree on tasks under each primitive (annotation-chosen or forced) vs the thread form, fill, YCSB-C, YCSB-A",
    .techniques = {"annotations", "olfit", "schedule-writer", "schedule-all", "rw-latch", "spinlock", "htm",
                   "threads-olc"},
    .accepted = accepts_keys | accepts_threads | accepts_technique | accepts_dist,
    .run = run_blink_tree_sync,
}};


// ---- figure presets -------------------------------------------------------------------------

const char* const zipf_reads = "read-zipf:0.99";

const figure_registration prefetch_parts_figure{blink_tree_prefetch_parts, figure{
    .name = "mxtasks-fig5-2-prefetch-parts",
    .reproduces = "MxTasks Fig. 5.2 (which node parts to prefetch for lookups; insert hints)",
    .summary = "YCSB-C lookups and the fill with each prefetched node part, NTA and T0, 1 worker",
    .panels = {records_panel("20M records, 1 worker", "20000000", "100000", "1")},
    .axes = {.x = "prefetch_lines", .y = "cycles_per_op", .series = {"threads"}},
    .paper = {paper_ratio("MxTasks Fig. 5.2 (B-link tree lookups, header only vs no prefetching)",
                          "prefetching the header alone cuts traversal cycles by 39 %",
                          {{"technique", "header-nta"}, {"phase", zipf_reads}}, {{"technique", "none"}, {"phase", zipf_reads}},
                          "cycles_per_op", statistic::maximum, 0.61, shape_rule::same_side_of(1),
                          "the paper counts traversal-task cycles; ours are whole lookups including the runtime"),
              paper_ratio("MxTasks Fig. 5.2 (no prefetching 2400 cycles, whole node 540 cycles per lookup)",
                          "prefetching the whole node cuts the lookup's own cycles to 540 of 2400 (0.225x)",
                          {{"technique", "whole-node-nta"}, {"phase", zipf_reads}}, {{"technique", "none"}, {"phase", zipf_reads}},
                          "cycles_per_op", statistic::maximum, 0.225, shape_rule::same_side_of(1),
                          "the paper adds that the prefetch overhead makes the whole node slower overall; ours are totals")},
}};

const figure_registration reclamation_figure{blink_tree_reclamation, figure{
    .name = "mxtasks-fig5-4-reclamation",
    .reproduces = "MxTasks Fig. 5.4 (epoch-based reclamation: none, per task, batched)",
    .summary = "fill and YCSB-C throughput with epoch bookkeeping off, per task and per buffer refill",
    .panels = {records_panel("20M records", "20000000", "100000", "1,2")},
    .axes = {.x = "threads", .y = "mops", .series = {"technique", "phase"}},
    .paper = {paper_ratio("MxTasks Fig. 5.4 (YCSB, batched epochs vs none)", "little to no impact",
                          {{"technique", "per-refill"}, {"phase", zipf_reads}}, {{"technique", "none"}, {"phase", zipf_reads}},
                          "mops", statistic::maximum, 1.0, shape_rule::within_factor(1.05), "2 x 24 cores in the paper")},
}};

const figure_registration sync_figure{blink_tree_sync, figure{
    .name = "mxtasks-fig5-8-sync",
    .reproduces = "MxTasks Fig. 5.5-5.8 (synchronization primitives: chosen vs forced, vs threads)",
    .summary = "fill, YCSB-C and YCSB-A under every primitive the runtime offers and on threads (OLC)",
    // Serialization by scheduling costs tens of microseconds per operation once two workers
    // hand every node's tasks to its owner (Fig. 5.5's bottleneck): those two primitives get a
    // panel of their own with fewer records.
    .panels = {records_panel("5M records per tree, 1 worker", "5000000", "20000", "1"),
               records_panel("5M records per tree, 2 workers", "5000000", "20000", "2",
                             {"--technique", "annotations,olfit,rw-latch,spinlock,htm,threads-olc"}),
               records_panel("200k records per tree, 2 workers, scheduled", "200000", "10000", "2",
                             {"--technique", "annotations,schedule-writer,schedule-all,threads-olc"})},
    .axes = {.x = "threads", .y = "mops", .series = {"technique", "phase"}},
    .paper = {paper_claim("MxTasks Fig. 5.8a (insert-only, optimistic tasks vs the thread-based tree)",
                          "8.5 % more than its thread-based implementation and BtreeOLC",
                          {{"technique", "annotations"}, {"phase", "fill"}}, statistic::maximum, 1.085, 1.085,
                          shape_rule::same_side_of(1), "48 logical cores on two sockets in the paper"),
              paper_claim("MxTasks Fig. 5.8b (YCSB-A, optimistic tasks vs the thread-based tree)",
                          "15 % more operations than the thread-based variant on average",
                          {{"technique", "annotations"}, {"phase", "ycsb-a-zipf:0.99"}}, statistic::maximum, 1.15, 1.15,
                          shape_rule::same_side_of(1), "average over 1-48 cores in the paper"),
              paper_claim("MxTasks Fig. 5.8c (YCSB-C at 48 cores: 75 M vs roughly 57 M lookups/s)",
                          "75 million lookups per second; thread-based B-link tree roughly 57 million",
                          {{"technique", "annotations"}, {"phase", zipf_reads}}, statistic::maximum, 75.0 / 57.0,
                          75.0 / 57.0, shape_rule::same_side_of(1), "48 logical cores in the paper")},
}};

}  // namespace
}  // namespace braid::bench
