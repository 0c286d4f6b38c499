// linear-probe: probing Cimple's open-addressing hash-join table (§7.3, §8.2) with every
// technique in one run, at 0 %, 50 % and 100 % hits, beside std::unordered_map and
// absl::flat_hash_map over the same keys.
//
// Data: --size is the slot array's footprint, rounded down to a power of two (16-byte slots:
// 1 GiB = 2^26 slots), filled to 50 % with distinct pseudo-random 64-bit keys (a bijective
// mix of 1..n, so keys never repeat). A lookup hits with the row's hit rate: a stored key
// picked with the chosen distribution, or else a key that was never stored.
// --set variant= picks Cimple §8.2's table: mask (default; the home slot is the hash masked to a
// power-of-two capacity), prime (the hash modulo a prime capacity: an integer division per
// probe) or serializing (the mask table with LFENCE after every lookup, in every technique).
// Rows: one per (size, hit rate, threads, technique, group), with the `variant` and the table's
// `capacity` (prime for the prime variant); `roofline_fraction` counts the lines a plain probe
// reads (1 + line crossings) when the table is DRAM-resident. Techniques: naive, gp, amac,
// coro, fiber and the generated imlp-dynamic / imlp-static / imlp-hybrid at every group (the
// imlp layout / dispatch ablations when named), and the peers.
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "braid/index/linear_probing_table.hpp"
#include "figures.hpp"
#include "headline.hpp"
#include "lookup_bench.hpp"
#include "workloads.hpp"

namespace braid::bench {
namespace {

using table_type = linear_probing_table<std::uint64_t>;
using prime_table = linear_probing_table<std::uint64_t, slot_placement::prime_modulo>;
using serializing_table =
    linear_probing_table<std::uint64_t, slot_placement::power_of_two_mask, lookup_completion::serializing>;
using result = table_type::result_type;

// A bijection of 64-bit integers (splitmix64's finalizer): distinct inputs, distinct keys.
std::uint64_t key_number(std::uint64_t i) {
  std::uint64_t z = i + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// What one run measures, whichever table variant it builds.
struct probe_run {
  std::string variant;
  std::vector<std::size_t> groups;
  std::vector<unsigned> thread_counts;
  key_distribution distribution;
  page_size pages;
  unsigned repetitions;
  std::size_t lookups;
};

// Builds a table of `Table` at about `size` bytes, half full, and measures every selected pass
// at 0, 50 and 100 % hits.
template <class Table>
void measure_table(run_context& context, const probe_run& run, std::size_t size) {
  const std::size_t capacity = std::bit_floor(std::max<std::size_t>(size / sizeof(typename Table::slot), 16));
  const std::size_t stored = capacity / 2;
  lookup_bench::hash_map_peers<std::uint64_t> peers(context);
  // The table (a prime one a little larger), the peers (about 40 and 34 bytes a key) and the probe keys.
  context.require_memory(capacity * sizeof(typename Table::slot) * 9 / 8 + (peers.any() ? stored * 80 : 0) +
                             run.lookups * 40,
                         "linear-probe at this size");
  context.progress("building a " + run.variant + " table for " + std::to_string(stored) + " keys");
  Table table(stored, run.pages);
  for (std::uint64_t i = 1; i <= stored; ++i) table.insert(key_number(i), value_of(key_number(i)));
  context.note("linear-probe pages", table.describe_pages());
  peers.build(context, stored, [](std::size_t i) { return key_number(i + 1); });  // keys 1..stored

  const std::vector<std::uint64_t> picks = draw_indices(run.lookups, stored, run.distribution, context.seed());
  for (double hit_rate : {0.0, 0.5, 1.0}) {
    random_source coin(context.seed() + 17);
    std::vector<std::uint64_t> probes(run.lookups);
    for (std::size_t i = 0; i < run.lookups; ++i) {
      const bool hit = static_cast<double>(coin.below(1'000'000)) < hit_rate * 1e6;
      probes[i] = key_number(1 + picks[i] + (hit ? 0 : stored));  // 1..stored are stored
    }
    const std::span<const std::uint64_t> keys(probes);
    std::vector<result> reference(run.lookups);
    table.multi_find(keys, std::span<result>(reference), technique::naive, 1);
    lookup_bench::row_context facts{.structure = "linear-probing-table",
                                    .size_bytes = table.memory_bytes(),
                                    .distribution = run.distribution.describe(),
                                    .pages = table.describe_pages(),
                                    .hit_rate = lookup_bench::hit_rate_of(reference)};
    if (lookup_bench::dram_resident(table.memory_bytes())) {
      double lines = 0;
      for (std::uint64_t key : probes) lines += static_cast<double>(table.lines_visited(key));
      facts.dram_lines_per_op =
          lines / static_cast<double>(run.lookups) * lookup_bench::uniform_miss_share(table.memory_bytes());
    }
    for (unsigned threads : run.thread_counts) {
      const auto runner = lookup_bench::runner_for(threads);
      lookup_bench::lookup_passes<result> passes(run.lookups, runner.get());
      lookup_bench::add_index_techniques(passes, context, table, keys, run.groups);
      peers.add_passes(passes, keys);
      if (passes.labels().empty()) continue;
      passes.verify(reference, result{~std::uint64_t{0}});
      context.progress(run.variant + ", hit rate " + std::to_string(hit_rate) + ": measuring " +
                       std::to_string(passes.labels().size()) + " passes");
      const auto measured = passes.measure(run.repetitions, context);
      facts.threads = threads;
      lookup_bench::emit_rows(context, passes, measured, facts, [&](result_row& row, const lookup_bench::pass_label&) {
        row.set("load_factor", table.load_factor())
            .set("target_hit_rate", hit_rate)
            .set("variant", run.variant)
            .set("capacity", static_cast<std::int64_t>(table.capacity()));
      });
    }
  }
}

void run_linear_probe(run_context& context) {
  const bool quick = context.quick();
  const auto sizes = context.sizes_or({quick ? std::size_t{8} << 20 : dram_resident_bytes()});
  const probe_run run{
      .variant = context.setting("variant").value_or("mask"),
      .groups = context.groups_or(quick ? std::vector<std::size_t>{8, 16} : std::vector<std::size_t>{4, 8, 16, 32}),
      .thread_counts = context.threads_or({1}),
      .distribution = context.distribution_or({}),
      .pages = context.pages_or(page_size::huge_2m),
      .repetitions = context.repetitions_or(quick ? 3 : 5),
      .lookups = context.keys_or(quick ? 100'000 : 500'000)};
  if (run.variant != "mask" && run.variant != "prime" && run.variant != "serializing") {
    throw usage_error("--set variant=" + run.variant + ": expected mask, prime or serializing");
  }
  for (std::size_t size : sizes) {
    if (run.variant == "prime") {
      measure_table<prime_table>(context, run, size);
    } else if (run.variant == "serializing") {
      measure_table<serializing_table>(context, run, size);
    } else {
      measure_table<table_type>(context, run, size);
    }
  }
}

const registration linear_probe{experiment{
    .name = "linear-probe",
    .reproduces = "Cimple Fig. 1 hash-table bars and the 0 / 50 / 100 % hit-rate experiment (§8.2)",
    .summary = "open-addressing linear-probing table (Murmur3, 50% load) at 0/50/100% hits: naive, gp, amac, "
               "coro, fiber, imlp, std::unordered_map, absl::flat_hash_map; mask, prime or serializing table",
    .techniques = lookup_bench::index_technique_names_of<table_type>({}, lookup_bench::hash_map_peer_names),
    .accepted = lookup_bench::accepted_options,
    .settings = {{"variant", "mask | prime | serializing",
                  "the table: home slot by a power-of-two mask, by a prime modulo, or the mask table with a "
                  "serializing instruction after every lookup (default mask)"}},
    .run = run_linear_probe,
}};

// Cimple's hash-join probe at 0, 50 and 100 % hits: its single-thread speedup per hit rate.
paper_number cimple_hit_rate(double hit_rate, double speedup) {
  return paper_claim("Cimple (PACT'18) §8.2, HT",
                     "single-thread speedup " + format_number(speedup) + "x at " + format_number(hit_rate * 100) + "% hits",
                     {{"technique", "coro"}, {"target_hit_rate", format_number(hit_rate)}, {"residency", "dram"}},
                     statistic::maximum, speedup, speedup, shape_rule::same_side_of(1),
                     "Cimple: 16 GB table, Haswell, generated coroutines at width 48 against a well-engineered plain "
                     "probe; ours: 1 GiB, braid's coro at the best group");
}

std::vector<std::string> quick_arguments(const std::string& size) {
  return {"--size", size, "--group", "8", "--keys", "5000", "--repetitions", "2"};
}

const figure_registration hit_rate_figure{linear_probe, figure{
    .name = "cimple-hash-hit-rates",
    .reproduces = "Cimple (PACT'18) §8.2 hash-table probe at 0 / 50 / 100 % hits",
    .summary = "probe throughput against group size (Cimple's width), per hit rate, with the peers",
    .panels = {{.label = "DRAM", .arguments = {"--size", "dram", "--group", "4,8,16,32,48"},
                .quick_arguments = quick_arguments("16MiB")}},
    .axes = {.x = "group", .y = "mops", .series = {"target_hit_rate", "technique"}, .log_x = true,
             .y_label = "million probes per second"},
    .paper = {cimple_hit_rate(0, 1.2), cimple_hit_rate(0.5, 1.3), cimple_hit_rate(1, 1.2)},
}};

// Cimple's weaker tables (§8.2, B6), where its generated probe gains most over the plain loop.
paper_number cimple_variant(const std::string& variant, const std::string& what, double speedup) {
  return paper_claim("Cimple (PACT'18) §8.2, HT variants", what + ": Cimple " + format_number(speedup) + "x faster",
                     {{"technique", "imlp-dynamic"}, {"variant", variant}, {"residency", "dram"}}, statistic::maximum,
                     speedup, speedup, shape_rule::same_side_of(1),
                     "Cimple: 16 GB table, Haswell, generated coroutines against the plain probe of the same table; "
                     "ours: 1 GiB, the generated dynamic probe at the best group and hit rate");
}

panel variant_panel(const std::string& variant) {
  std::vector<std::string> quick = quick_arguments("16MiB");
  quick.insert(quick.end(), {"--set", "variant=" + variant});
  return {.label = variant,
          .arguments = {"--size", "dram", "--group", "4,8,16,32,48", "--set", "variant=" + variant},
          .quick_arguments = quick};
}

const figure_registration variants_figure{linear_probe, figure{
    .name = "cimple-hash-variants",
    .reproduces = "Cimple (PACT'18) §8.2 hash-table variants: division by a prime, serializing instructions",
    .summary = "probe throughput against group size for the mask, prime-modulo and serializing tables",
    .panels = {variant_panel("mask"), variant_panel("prime"), variant_panel("serializing")},
    .axes = {.x = "group", .y = "mops", .series = {"target_hit_rate", "technique"}, .log_x = true,
             .y_label = "million probes per second"},
    .paper = {cimple_variant("prime", "division by a prime number", 2),
              cimple_variant("serializing", "serializing instructions between lookups", 4)},
}};

const headline_registration linear_probe_headline{hit_rate_figure, headline_entry{
    .name = "linear-probing table",
    .panels = {{.label = "DRAM", .arguments = {"--size", "dram", "--group", "16,32"}, .quick_arguments = quick_arguments("16MiB")},
               {.label = "8 MiB", .arguments = {"--size", "8MiB", "--group", "8,16"}, .quick_arguments = quick_arguments("1MiB")}},
    .budget_seconds = 40,
    .summarize = compare_with_naive_and_peers(
        {.peers = lookup_bench::hash_map_peer_names, .split_by = {"target_hit_rate"}}),
}};

}  // namespace
}  // namespace braid::bench
