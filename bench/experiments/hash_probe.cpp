// hash-probe: probing the chained hash table of "Killer Nanoseconds" (§3.1) with every
// technique in one run — naive, GP, AMAC, coroutine, fiber — beside std::unordered_map and
// absl::flat_hash_map over the same keys.
//
// Data: N build keys drawn with replacement from [0, N) with the chosen distribution (the
// paper's Table 2 setup: duplicates are dropped, so ~63% of N are stored under uniform keys);
// probe keys drawn from the same distribution over [0, N), so ~63% of uniform probes hit.
// --size is the table's footprint: N = size / (64 B x (1 - 1/e)), one 64-byte node per
// distinct key (10 M build keys = 404 MB, the paper's "large" set of 390 MB; 131,072 keys, its
// "0.5 MB" small set, = 5.3 MB). Two bucket policies, one table each:
//   chained-hash-100k-buckets    the paper's 100,000 buckets: chains of N x 0.63 / 100,000
//   chained-hash-bucket-per-key  one bucket per distinct key: chains of 1-2
// Rows: one per (size, policy, threads, technique, group); `hit_rate`, `average_chain`,
// `build_keys`, and `roofline_fraction` (nodes visited per probe over the memory's best line
// rate) when the table is DRAM-resident.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "braid/core/radix_sort.hpp"
#include "braid/index/chained_hash_table.hpp"
#include "figures.hpp"
#include "headline.hpp"
#include "lookup_bench.hpp"
#include "workloads.hpp"

namespace braid::bench {
namespace {

using table_type = chained_hash_table<std::uint32_t, std::uint64_t>;
using result = table_type::result_type;

constexpr double distinct_share_of_uniform_draws = 1.0 - 1.0 / 2.718281828459045;

std::vector<std::uint32_t> as_keys(const std::vector<std::uint64_t>& indices) {
  return std::vector<std::uint32_t>(indices.begin(), indices.end());
}

std::size_t count_distinct(std::vector<std::uint32_t> keys) {
  radix_sort(std::span(keys));
  return static_cast<std::size_t>(std::unique(keys.begin(), keys.end()) - keys.begin());
}

using hash_peers = lookup_bench::hash_map_peers<std::uint32_t>;

void measure_policy(run_context& context, const table_type& table, const std::string& structure,
                    std::span<const std::uint32_t> probes, const hash_peers& peers, std::size_t build_keys,
                    const std::vector<std::size_t>& groups, unsigned threads, unsigned repetitions) {
  const auto runner = lookup_bench::runner_for(threads);
  lookup_bench::lookup_passes<result> passes(probes.size(), runner.get());
  lookup_bench::add_index_techniques(passes, context, table, probes, groups);
  peers.add_passes(passes, probes);
  if (passes.labels().empty()) return;

  std::vector<result> reference(probes.size());
  table.multi_find(probes, std::span<result>(reference), technique::naive, 1);
  passes.verify(reference, result{~std::uint64_t{0}});

  lookup_bench::row_context facts{.structure = structure,
                                  .size_bytes = table.memory_bytes(),
                                  .threads = threads,
                                  .distribution = context.distribution_or({}).describe(),
                                  .pages = table.describe_pages(),
                                  .hit_rate = lookup_bench::hit_rate_of(reference)};
  if (lookup_bench::dram_resident(table.memory_bytes())) {
    double nodes = 0;
    for (std::uint32_t key : probes) nodes += static_cast<double>(table.nodes_visited(key));
    const bool bucket_array_misses = table.bucket_count() * sizeof(void*) > lookup_bench::last_level_cache_bytes();
    facts.dram_lines_per_op = (nodes / static_cast<double>(probes.size()) + (bucket_array_misses ? 1.0 : 0.0)) *
                              lookup_bench::uniform_miss_share(table.memory_bytes());
  }
  context.progress(structure + ": measuring " + std::to_string(passes.labels().size()) + " passes");
  const auto measured = passes.measure(repetitions, context);
  lookup_bench::emit_rows(context, passes, measured, facts, [&](result_row& row, const lookup_bench::pass_label&) {
    row.set("buckets", static_cast<std::int64_t>(table.bucket_count()))
        .set("build_keys", static_cast<std::int64_t>(build_keys))
        .set("stored_keys", static_cast<std::int64_t>(table.size()))
        .set("average_chain", table.average_chain_length())
        .set("node_bytes", static_cast<std::int64_t>(sizeof(table_type::node)));
  });
}

void run_hash_probe(run_context& context) {
  const bool quick = context.quick();
  const auto sizes = context.sizes_or({quick ? std::size_t{8} << 20 : dram_resident_bytes()});
  const auto groups =
      context.groups_or(quick ? std::vector<std::size_t>{8, 16} : std::vector<std::size_t>{4, 8, 16, 24, 32});
  const auto thread_counts = context.threads_or({1});
  const key_distribution distribution = context.distribution_or({});
  // Builds follow the distribution (the paper builds and probes with the same one); a
  // sorted probe stream is drawn uniformly, then sorted.
  key_distribution build_distribution = distribution;
  if (build_distribution.shape == key_distribution::kind::sorted)
    build_distribution.shape = key_distribution::kind::uniform;
  const page_size pages = context.pages_or(page_size::huge_2m);
  const unsigned repetitions = context.repetitions_or(quick ? 3 : 5);
  // Lookups per pass: long chains cost ~100 misses per probe, short ones ~2.
  const std::size_t long_chain_probes = context.keys_or(quick ? 2'000 : 10'000);
  const std::size_t short_chain_probes = context.keys_or(quick ? 100'000 : 1'000'000);

  for (std::size_t size : sizes) {
    const auto build_keys = std::max<std::size_t>(
        1, static_cast<std::size_t>(static_cast<double>(size) /
                                    (sizeof(table_type::node) * distinct_share_of_uniform_draws)));
    // Both tables and both peers, the key arrays and the build's sort buffer, at worst.
    context.require_memory(static_cast<std::size_t>(static_cast<double>(build_keys) * 230.0),
                           "hash-probe at this size");
    context.progress("drawing " + std::to_string(build_keys) + " build keys");
    const std::vector<std::uint32_t> build =
        as_keys(draw_indices(build_keys, build_keys, build_distribution, context.seed()));
    const std::vector<std::uint32_t> probes = as_keys(
        draw_indices(std::max(long_chain_probes, short_chain_probes), build_keys, distribution, context.seed() + 1));

    hash_peers peers(context);
    peers.build(context, build.size(), [&build](std::size_t i) { return build[i]; });
    for (bool bucket_per_key : {false, true}) {
      const std::string structure = bucket_per_key ? "chained-hash-bucket-per-key" : "chained-hash-100k-buckets";
      context.progress("building " + structure);
      table_type table = bucket_per_key ? table_type::with_buckets_for(count_distinct(build), pages)
                                        : table_type(table_type::paper_bucket_count, build_keys, pages);
      table.insert_all(std::span<const std::uint32_t>(build), [&](std::size_t i) { return value_of(build[i]); });
      context.note(structure + " pages", table.describe_pages());
      const std::size_t probe_count = bucket_per_key ? short_chain_probes : long_chain_probes;
      for (unsigned threads : thread_counts) {
        measure_policy(context, table, structure, std::span<const std::uint32_t>(probes).first(probe_count), peers,
                       build_keys, groups, threads, repetitions);
      }
    }
  }
}

const registration hash_probe{experiment{
    .name = "hash-probe",
    .reproduces = "Killer Nanoseconds Fig. 1-2 (group sweep), Fig. 4 (size sweep), Table 3 hash row",
    .summary = "chained hash table probe (100k buckets and bucket per key): naive, gp, amac, coro, fiber, "
               "std::unordered_map, absl::flat_hash_map",
    .techniques = lookup_bench::index_technique_names(table_type::default_prefetch_hint, {},
                                                      lookup_bench::hash_map_peer_names),
    .accepted = lookup_bench::accepted_options,
    .run = run_hash_probe,
}};

// --size bytes that make `keys` build keys (the inverse of run_hash_probe's key count; the byte
// over the exact product keeps the count from rounding down).
std::string size_for_build_keys(std::size_t keys) {
  const double bytes = static_cast<double>(keys) * sizeof(table_type::node) * distinct_share_of_uniform_draws;
  return std::to_string(static_cast<std::size_t>(std::ceil(bytes)) + 1);
}

// The paper's small set: 131,072 build keys (its "0.5 MB" of raw keys; 5.3 MB of nodes).
const std::string small_set = size_for_build_keys(131'072);
constexpr const char* paper_table = "chained-hash-100k-buckets";
constexpr const char* compiler_caveat = "paper: Clang 6 on a Broadwell Xeon (10 line-fill buffers); ours: this machine";

// "naive up to X faster than T": the smallest speedup of T over naive in the panel.
paper_number naive_faster_than(const std::string& panel, const std::string& technique, double times,
                               const std::string& source, const std::string& claim) {
  return paper_claim(source, claim, {{"panel", panel}, {"structure", paper_table}, {"technique", technique}},
                     statistic::minimum, 1 / times, 1 / times, shape_rule::same_side_of(1), compiler_caveat);
}

// "naive slower by up to X than T": the largest speedup of T over naive in the panel.
paper_number naive_slower_than(const std::string& panel, const std::string& technique, double times,
                               const std::string& source, const std::string& claim, const std::string& caveat) {
  return paper_claim(source, claim, {{"panel", panel}, {"structure", paper_table}, {"technique", technique}},
                     statistic::maximum, times, times, shape_rule::same_side_of(1), caveat);
}

// The group size at which T is fastest in the panel.
paper_number best_group(const std::string& panel, const std::string& technique, double group,
                        const std::string& source, const std::string& claim) {
  return paper_claim(source, claim, {{"panel", panel}, {"structure", paper_table}, {"technique", technique}},
                     statistic::at_best, group, group, shape_rule::within_factor(2), compiler_caveat, "group");
}

std::vector<std::string> group_sweep_arguments(const std::string& size, const std::string& distribution) {
  return {"--size", size, "--group", "1,2,3,4,6,8,12,16,20,24,30,40,50", "--dist", distribution};
}

std::vector<std::string> quick_arguments(const std::string& size, const std::string& distribution) {
  return {"--size", size, "--group", "1,8", "--keys", "2000", "--repetitions", "2", "--dist", distribution};
}

const std::string large_caveat =
    "paper: 10M build keys (390 MB, chains of ~63 in 100,000 buckets); ours: 1 GiB (26M build keys, chains of ~164), "
    "the project's DRAM-resident size; " + std::string(compiler_caveat);

const figure_registration groups_figure{hash_probe, figure{
    .name = "fig1-2-hash-groups",
    .reproduces = "Killer Nanoseconds Fig. 1-2 (hash probe, group-size sweep, small and large, uniform and Zipf)",
    .summary = "probe throughput against group size, 1 thread, both bucket policies with the peers",
    .panels = {{.label = "small uniform", .arguments = group_sweep_arguments(small_set, "uniform"),
                .quick_arguments = quick_arguments(small_set, "uniform")},
               {.label = "small zipf", .arguments = group_sweep_arguments(small_set, "zipf:0.99"),
                .quick_arguments = quick_arguments(small_set, "zipf:0.99")},
               {.label = "large uniform", .arguments = group_sweep_arguments("dram", "uniform"),
                .quick_arguments = quick_arguments("16MiB", "uniform")},
               {.label = "large zipf", .arguments = group_sweep_arguments("dram", "zipf:0.99"),
                .quick_arguments = quick_arguments("16MiB", "zipf:0.99")}},
    .axes = {.x = "group", .y = "mops", .series = {"structure", "technique"}, .log_y = true,
             .y_label = "million probes per second"},
    .paper = {naive_faster_than("small uniform", "gp", 2.7, "Killer Nanoseconds Fig. 1a (Clang, 0.5 MB, 1 thread)",
                                "naive up to 2.7x faster than GP"),
              naive_faster_than("small uniform", "amac", 2.9, "Killer Nanoseconds Fig. 1a (Clang, 0.5 MB, 1 thread)",
                                "naive up to 2.9x faster than AMAC"),
              naive_faster_than("small uniform", "coro", 5.1, "Killer Nanoseconds Fig. 1a (Clang, 0.5 MB, 1 thread)",
                                "naive up to 5.1x faster than Coro"),
              best_group("small uniform", "gp", 12, "Killer Nanoseconds Fig. 1a", "optimal group around 12 for GP"),
              best_group("small uniform", "amac", 3, "Killer Nanoseconds Fig. 1a", "optimal group around 3 for AMAC"),
              best_group("small uniform", "coro", 3, "Killer Nanoseconds Fig. 1a", "optimal group around 3 for Coro"),
              naive_slower_than("large uniform", "gp", 7.5, "Killer Nanoseconds Fig. 1c (Clang, 10M keys, 1 thread)",
                                "naive slower by up to 7.5x than GP", large_caveat),
              naive_slower_than("large uniform", "amac", 8.4, "Killer Nanoseconds Fig. 1c (Clang, 10M keys, 1 thread)",
                                "naive slower by up to 8.4x than AMAC", large_caveat),
              naive_slower_than("large uniform", "coro", 8.2, "Killer Nanoseconds Fig. 1c (Clang, 10M keys, 1 thread)",
                                "naive slower by up to 8.2x than Coro", large_caveat),
              naive_slower_than("large zipf", "amac", 8.4, "Killer Nanoseconds Fig. 1d and Table 3 (Clang)",
                                "Zipf 'yields similar results'; Table 3: up to 8.4x (AMAC)",
                                "paper: 10M Zipf keys (120 MB stored); ours: 1 GiB; " + std::string(compiler_caveat))},
}};

// Fig. 4's sizes: the paper's 1M, 5M, 10M and 50M build keys.
std::vector<std::string> size_sweep_arguments(const std::string& distribution) {
  return {"--size",
          size_for_build_keys(1'000'000) + "," + size_for_build_keys(5'000'000) + "," +
              size_for_build_keys(10'000'000) + "," + size_for_build_keys(50'000'000),
          "--group", "30", "--threads", "2", "--dist", distribution};
}

std::vector<std::string> size_sweep_quick(const std::string& distribution) {
  return {"--size", size_for_build_keys(100'000) + "," + size_for_build_keys(200'000), "--group", "30", "--keys", "2000",
          "--repetitions", "2", "--dist", distribution};
}

paper_number at_one_million_keys(const std::string& technique, double paper, shape_rule shape, const std::string& claim) {
  return paper_claim("Killer Nanoseconds Fig. 4a (Clang, 28 threads, G = 30)", claim,
                     {{"panel", "uniform"}, {"structure", paper_table}, {"technique", technique}, {"build_keys", "1000000"}},
                     statistic::maximum, paper, paper, shape,
                     "paper: 28 threads on 14 cores; ours: 2 threads (every core here), so more of the table's misses "
                     "stay in the last-level cache per thread");
}

const figure_registration sizes_figure{hash_probe, figure{
    .name = "fig4-hash-sizes",
    .reproduces = "Killer Nanoseconds Fig. 4 (hash probe, input-size sweep, G = 30, every core)",
    .summary = "total probe throughput against build keys (1M to 50M), uniform and Zipf",
    .panels = {{.label = "uniform", .arguments = size_sweep_arguments("uniform"), .quick_arguments = size_sweep_quick("uniform")},
               {.label = "zipf", .arguments = size_sweep_arguments("zipf:0.99"), .quick_arguments = size_sweep_quick("zipf:0.99")}},
    .axes = {.x = "build_keys", .y = "mops", .series = {"structure", "technique"}, .log_x = true, .log_y = true,
             .x_label = "build keys", .y_label = "million probes per second (all threads)"},
    .paper = {at_one_million_keys("amac", 1.5, shape_rule::same_side_of(1), "at 1M keys AMAC about 1.5x faster than naive"),
              at_one_million_keys("gp", 1.3, shape_rule::same_side_of(1), "at 1M keys GP about 1.3x faster than naive"),
              at_one_million_keys("coro", 1.0, shape_rule::within_factor(1.25),
                                  "at 1M keys Coro about as fast as naive (mostly L3 hits)")},
}};

const headline_registration hash_headline{groups_figure, headline_entry{
    .name = "chained hash table",
    .panels = {{.label = "large uniform", .arguments = {"--size", "dram", "--group", "16,32"},
                .quick_arguments = quick_arguments("16MiB", "uniform")},
               {.label = "small uniform", .arguments = {"--size", small_set, "--group", "4,8,16"},
                .quick_arguments = quick_arguments(small_set, "uniform")}},
    .budget_seconds = 45,
    .summarize = compare_with_naive_and_peers(
        {.peers = lookup_bench::hash_map_peer_names,
         .split_by = {"structure"},
         .peer_compares_for = {{"chained-hash-100k-buckets", "paper's long chains vs user's map"}}}),
}};

}  // namespace
}  // namespace braid::bench
