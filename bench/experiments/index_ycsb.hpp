// Shared by masstree-ycsb and bw-tree-ycsb: a YCSB-style read/update stream over 8-byte keys
// and values (YCSB-B: 95 % reads, 5 % updates, scrambled Zipfian; or the same mix uniform),
// the checksum every technique's pass must reproduce, and the rows.
//
// Records: key i of the load phase is YCSB's hashed insert order, ycsb_fnv_hash64(i) (a
// 63-bit key; the top bit of an operation word marks an update). Operations draw a record
// index from the distribution; 5 % of them (independent draws) are updates.
//
// Why checksums agree across techniques although updates run between reads: every write, in
// the load phase and in the run, stores value_of(key), a function of the key alone. An update
// is real work for the index (Masstree rewrites the value in place, the Bw-tree installs a
// delta and consolidates), but whatever order interleaving or a second thread puts reads and
// updates in, a read of key k returns value_of(k). Each operation adds its own share to the
// pass checksum (a read: a mix of the value it returned; an update: a constant), the shares
// are summed (order-free, so chunks on several threads add up to the same total), and the
// total is compared with the one computed from the stream alone: every read of every
// technique returned exactly the value stored for its key.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "braid/core/thread_runner.hpp"
#include "experiment.hpp"
#include "figures.hpp"
#include "headline.hpp"
#include "lookup_bench.hpp"
#include "lookup_results.hpp"
#include "measure.hpp"
#include "roofline.hpp"
#include "threads.hpp"
#include "workloads.hpp"

namespace braid::bench::index_ycsb {

inline constexpr std::uint64_t update_bit = std::uint64_t{1} << 63;
inline constexpr unsigned update_percent = 5;

[[nodiscard]] inline bool is_update(std::uint64_t operation) noexcept { return (operation & update_bit) != 0; }
[[nodiscard]] inline std::uint64_t key_of(std::uint64_t operation) noexcept { return operation & ~update_bit; }

// An operation's share of a pass checksum: a read's, the mix of what it returned (no position:
// the shares of a pass's chunks add up in any order).
[[nodiscard]] inline std::uint64_t read_share(const std::optional<std::uint64_t>& result) noexcept {
  return mix_of(result);
}
inline constexpr std::uint64_t update_share = 0xC2B2AE3D27D4EB4Full;
// The share of an operation that answered `result` (nothing, for an update).
[[nodiscard]] inline std::uint64_t share_of(std::uint64_t operation, const std::optional<std::uint64_t>& result) noexcept {
  return is_update(operation) ? update_share : read_share(result);
}

// The positions of the reads among the first operations of a stream, at most `sample` of them:
// the gets a structure's lines per get are counted on.
[[nodiscard]] inline std::vector<std::uint64_t> sampled_reads(std::span<const std::uint64_t> operations,
                                                              std::size_t sample) {
  std::vector<std::uint64_t> reads;
  for (std::size_t i = 0; i < operations.size() && reads.size() < sample; ++i) {
    if (!is_update(operations[i])) reads.push_back(i);
  }
  return reads;
}

struct workload {
  std::vector<std::uint64_t> records;     // keys, in insert order
  std::vector<std::uint64_t> operations;  // key, | update_bit for an update
  std::size_t updates = 0;
  std::string description;
};

inline workload make_workload(std::size_t records, std::size_t operations, const key_distribution& distribution,
                              std::uint64_t seed) {
  workload made;
  made.records.resize(records);
  for (std::size_t i = 0; i < records; ++i) made.records[i] = ycsb_fnv_hash64(i);
  const std::vector<std::uint64_t> indices = draw_indices(operations, records, distribution, seed + 1);
  random_source mix(seed + 2);
  made.operations.resize(operations);
  for (std::size_t i = 0; i < operations; ++i) {
    const bool update = mix.below(100) < update_percent;
    made.operations[i] = made.records[indices[i]] | (update ? update_bit : 0);
    made.updates += update ? 1 : 0;
  }
  made.description = std::to_string(100 - update_percent) + "% reads, " + std::to_string(update_percent) +
                     "% updates, " + distribution.describe() + ", " + std::to_string(records) + " records, " +
                     std::to_string(operations) + " operations";
  return made;
}

// The checksum of a correct pass: every read finds its key with value_of(key).
[[nodiscard]] inline std::uint64_t expected_checksum(std::span<const std::uint64_t> operations) noexcept {
  std::uint64_t sum = 0;
  for (std::uint64_t operation : operations) {
    sum += is_update(operation) ? update_share : read_share(value_of(key_of(operation)));
  }
  return sum;
}

// Loads every record (insert phase), split across `threads` workers.
template <class Put>
void load(run_context& context, unsigned threads, std::span<const std::uint64_t> records, Put put) {
  thread_runner runner(threads);
  context.progress("loading " + std::to_string(records.size()) + " records");
  runner.run([&](unsigned worker) {
    const chunk mine = chunk_of(records.size(), runner.size(), worker);
    for (std::size_t i = mine.begin; i < mine.end; ++i) put(records[i]);
  });
}

// The share of a get's lines that come from DRAM, for a tree of `height` levels occupying
// `tree_bytes`: a geometric model of the levels (the leaves hold (1 - 1/fanout) of the bytes,
// each level above 1/fanout of the one below); a level larger than the last-level cache
// misses, a smaller one is taken as cached. An estimate for the roofline fraction, which
// the upper levels' cache hits would otherwise inflate above 1.
inline double dram_share_of_lines(std::size_t tree_bytes, double fanout, std::size_t height) {
  if (height == 0) return 0;
  const double cache = static_cast<double>(lookup_bench::last_level_cache_bytes());
  double level_bytes = static_cast<double>(tree_bytes) * (1 - 1 / fanout);
  std::size_t missing_levels = 0;
  for (std::size_t level = 0; level < height && level_bytes > cache; ++level, level_bytes /= fanout) ++missing_levels;
  return static_cast<double>(missing_levels) / static_cast<double>(height);
}

// One timed pass: a technique at a group size (0: one operation at a time).
struct pass {
  std::string technique;
  std::size_t group = 0;
  [[nodiscard]] std::string label() const { return group == 0 ? technique : technique + "@" + std::to_string(group); }
};

// What every row of one (structure, distribution, threads) measurement shares.
struct run_facts {
  std::string structure;
  std::string distribution;
  std::string pages;
  unsigned threads = 1;
  std::size_t size_bytes = 0;
  std::size_t records = 0;
  std::size_t operations = 0;
  double lines_per_op = 0;       // cache lines a get fetches (suspensions x lines per fetch)
  double dram_lines_per_op = 0;  // of those, the ones below the levels the last-level cache holds
  std::vector<std::pair<std::string, field_value>> extra;
};

// Measures the passes interleaved, checks each checksum against the stream's, emits a row per
// pass. speedup_vs_naive is against the `naive` pass of the same measurement; a
// `reference` technique (its fastest group) gives speedup_vs_<reference>.
inline void measure_and_emit(run_context& context, const run_facts& facts, const std::vector<pass>& passes,
                             const std::vector<technique_run>& runs, std::uint64_t expected, unsigned repetitions,
                             const std::string& reference = {}) {
  const std::vector<measurement> measured = measure_interleaved(runs, repetitions, &context);
  for (const measurement& each : measured) {
    if (each.checksum != expected) {
      throw std::logic_error(facts.structure + ": " + each.name + " returned wrong values (checksum " +
                             std::to_string(each.checksum) + ", expected " + std::to_string(expected) + ")");
    }
  }
  double naive_ns = 0;
  double reference_ns = 0;
  for (std::size_t i = 0; i < passes.size(); ++i) {
    if (passes[i].technique == "naive") naive_ns = measured[i].median_ns;
    if (passes[i].technique == reference && (reference_ns == 0 || measured[i].median_ns < reference_ns)) {
      reference_ns = measured[i].median_ns;
    }
  }
  const bool dram = lookup_bench::dram_resident(facts.size_bytes);
  const memory_profile* profile = dram ? &measured_memory_profile(context) : nullptr;
  const double operations = static_cast<double>(facts.operations);
  for (std::size_t i = 0; i < passes.size(); ++i) {
    const double ns_per_op = measured[i].median_ns / operations;
    result_row row;
    row.set("structure", facts.structure)
        .set("technique", passes[i].technique)
        .set("pass", passes[i].label())
        .set("group", static_cast<std::int64_t>(passes[i].group))
        .set("threads", static_cast<std::int64_t>(facts.threads))
        .set("size_bytes", static_cast<std::int64_t>(facts.size_bytes))
        .set("records", static_cast<std::int64_t>(facts.records))
        .set("ops", static_cast<std::int64_t>(facts.operations))
        .set("ns_per_op", ns_per_op)
        .set("mops", 1e3 / ns_per_op)
        .set("cycles_per_op", measured[i].median_cycles / operations)
        .set("distribution", facts.distribution)
        .set("pages", facts.pages)
        .set("lines_per_op", facts.lines_per_op);
    if (naive_ns > 0) row.set("speedup_vs_naive", naive_ns / measured[i].median_ns);
    if (reference_ns > 0) row.set("speedup_vs_" + reference, reference_ns / measured[i].median_ns);
    // Per thread: each worker's DRAM line rate against the one-core peak of the memory probe.
    if (profile != nullptr && facts.dram_lines_per_op > 0) {
      row.set("dram_lines_per_op", facts.dram_lines_per_op)
          .set("roofline_fraction", roofline_fraction(facts.dram_lines_per_op, ns_per_op * facts.threads, *profile));
    }
    for (const auto& [name, value] : facts.extra) row.set(name, value);
    context.emit(std::move(row));
  }
}

// A run's parameters: the options, else the experiment's defaults (records 20 M, 2 M
// operations per pass, 1 and 2 threads; --quick: 100 k records, 50 k operations). --size
// sets the record count instead of --keys: as many records as fill that size at the
// structure's typical footprint per record (`--size dram` sizes the tree from the LLC).
struct run_settings {
  std::size_t records = 0;
  std::size_t operations = 0;
  std::vector<unsigned> thread_list;
  unsigned most_threads = 1;
  std::vector<std::size_t> groups;
  unsigned repetitions = 3;
  page_size pages = page_size::huge_2m;
};

struct record_footprint {
  std::size_t typical = 0;  // bytes per record of a tree filled by random inserts
  std::size_t most = 0;     // with headroom: what the memory check reserves
};

inline run_settings settings_of(const run_context& context, std::vector<std::size_t> full_groups,
                                std::vector<std::size_t> quick_groups, record_footprint footprint,
                                const std::string& what) {
  const bool quick = context.quick();
  run_settings settings;
  settings.records = context.keys_or(quick ? 100'000 : 20'000'000);
  if (const std::vector<std::size_t>& sizes = context.given().sizes_bytes; !sizes.empty()) {
    if (context.given().keys) throw usage_error("--size and --keys both set the record count: give one");
    if (sizes.size() > 1) throw usage_error("--size: " + context.definition().name + " takes one size");
    settings.records = std::max<std::size_t>(1, sizes.front() / footprint.typical);
  }
  settings.operations = quick ? 50'000 : 2'000'000;
  settings.thread_list = thread_counts(context, {1, 2});
  for (unsigned threads : settings.thread_list) settings.most_threads = std::max(settings.most_threads, threads);
  settings.groups = context.groups_or(quick ? std::move(quick_groups) : std::move(full_groups));
  settings.repetitions = context.repetitions_or(quick ? 2 : 3);
  settings.pages = context.pages_or(page_size::huge_2m);
  context.require_memory(settings.records * (footprint.most + sizeof(std::uint64_t)) + settings.operations * 24, what);
  return settings;
}

// One pass over operations [begin, end): returns their checksum shares' sum.
using chunk_function = std::function<std::uint64_t(std::size_t, std::size_t)>;

// For every thread count: the `naive` pass and every selected (technique, group) pass, each a
// chunk function from chunk_pass(technique, group) (group 0 for naive), measured interleaved.
template <class ChunkPass>
void measure_thread_counts(run_context& context, const run_settings& settings, run_facts facts,
                           const std::vector<std::string>& interleaved_techniques, ChunkPass chunk_pass,
                           std::uint64_t expected, const std::string& reference) {
  for (unsigned threads : settings.thread_list) {
    worker_team team(threads);
    std::vector<pass> labels;
    std::vector<technique_run> runs;
    if (context.selected("naive")) labels.push_back({"naive", 0});
    for (std::size_t group : settings.groups) {
      for (const std::string& technique : interleaved_techniques) {
        if (context.selected(technique)) labels.push_back({technique, group});
      }
    }
    if (labels.empty()) return;
    for (const pass& label : labels) {
      runs.push_back(team.technique(label.label(), settings.operations, chunk_pass(label.technique, label.group)));
    }
    facts.threads = threads;
    context.progress(facts.distribution + ", " + std::to_string(threads) + " threads: " + std::to_string(runs.size()) +
                     " passes");
    measure_and_emit(context, facts, labels, runs, expected, settings.repetitions, reference);
  }
}

// The run's stream for `distribution`, described in the run's metadata.
inline workload generate_workload(run_context& context, const run_settings& settings,
                                  const key_distribution& distribution) {
  context.progress("generating " + distribution.describe() + " operations");
  workload stream = make_workload(settings.records, settings.operations, distribution, context.seed());
  context.note("workload " + distribution.describe(), stream.description);
  return stream;
}

// What the rows of `structure` (`size_bytes` once loaded) share under a run's settings.
inline run_facts facts_of(std::string structure, const run_settings& settings, const key_distribution& distribution,
                          std::size_t size_bytes) {
  return {.structure = std::move(structure),
          .distribution = distribution.describe(),
          .pages = to_string(settings.pages),
          .size_bytes = size_bytes,
          .records = settings.records,
          .operations = settings.operations};
}

// The options both experiments accept.
inline constexpr unsigned accepted_options =
    accepts_size | accepts_keys | accepts_group | accepts_threads | accepts_technique | accepts_dist | accepts_pages;

// A figure panel's arguments: `records`, the distribution, the groups and the threads.
inline std::vector<std::string> panel_arguments(const std::string& records, const std::string& distribution,
                                                const std::string& groups, const std::string& threads) {
  return {"--keys", records, "--dist", distribution, "--group", groups, "--threads", threads};
}
// The --quick form: 100,000 records, one thread.
inline std::vector<std::string> quick_arguments(const std::string& distribution, const std::string& groups) {
  return panel_arguments("100000", distribution, groups, "1");
}

// A figure panel: 20 M records of the distribution at the groups and threads; under --quick,
// 100,000 records at `quick_groups`, one thread.
inline panel figure_panel(const std::string& label, const std::string& distribution, const std::string& groups,
                          const std::string& threads, const std::string& quick_groups) {
  return {.label = label,
          .arguments = panel_arguments("20000000", distribution, groups, threads),
          .quick_arguments = quick_arguments(distribution, quick_groups)};
}

// The headline entry `name`: one panel, `label`, of a DRAM-sized index (one thread, two
// repetitions) in 50 seconds; the best technique against naive (there is no peer).
inline headline_entry headline_of(const std::string& name, const std::string& label, const std::string& distribution,
                                  const std::string& groups, const std::string& quick_groups) {
  return {.name = name,
          .panels = {{.label = label,
                      .arguments = {"--size", "dram", "--dist", distribution, "--group", groups, "--threads", "1",
                                    "--repetitions", "2"},
                      .quick_arguments = quick_arguments(distribution, quick_groups)}},
          .budget_seconds = 50,
          .summarize = compare_with_naive_and_peers("naive", {})};
}

// The distributions a run measures: --dist, else YCSB-B's Zipfian and uniform.
inline std::vector<key_distribution> distributions_of(const run_context& context) {
  if (context.given().distribution) return {*context.given().distribution};
  return {{.shape = key_distribution::kind::zipf}, {.shape = key_distribution::kind::uniform}};
}

}  // namespace braid::bench::index_ycsb
