// braid-bench roofline: this machine's dependent-load latency and memory-level parallelism.
//
// One pointer chase over a buffer far larger than the last-level cache gives the latency of a
// dependent load; k independent chases advanced in lock step (k = 1..64) give the fetch rate
// one core reaches with k misses in flight. The best rate is the roofline every DRAM-resident
// result is measured against (roofline_fraction). The command is the `roofline` experiment
// (`braid-bench run roofline` is the same); the profile it measures becomes the process's
// profile, so the experiments that follow it in a headline run use this very measurement. Last,
// the sequential-read bandwidth of 1 thread and of all threads (read_gigabytes_per_s), the
// limit a join that streams its inputs is compared against; the all-threads figure is adopted
// as the process's (measured_read_bandwidth).
#include <algorithm>
#include <iostream>
#include <numeric>

#include "braid/core/memory_probe.hpp"
#include "braid/core/thread_runner.hpp"
#include "callgrind.hpp"
#include "commands.hpp"
#include "experiment.hpp"
#include "figure_run.hpp"
#include "headline.hpp"
#include "measure.hpp"
#include "results.hpp"
#include "roofline.hpp"

namespace braid::bench {
namespace {

constexpr std::size_t cache_line = 64;

// The probe measures each chain count once; repeating the whole k sweep (k = 1..64, then again)
// and taking the median per k keeps a burst of noise on a shared machine out of the profile.
memory_profile median_profile(const memory_profile& probed) {
  memory_profile profile = probed;
  profile.rates.clear();
  for (std::size_t first = 0; first < probed.rates.size();) {
    std::size_t last = first;
    while (last < probed.rates.size() && probed.rates[last].chains == probed.rates[first].chains) ++last;
    std::vector<double> rates, latencies;
    for (std::size_t i = first; i < last; ++i) {
      rates.push_back(probed.rates[i].lines_per_ns);
      latencies.push_back(probed.rates[i].ns_per_load);
    }
    profile.rates.push_back({probed.rates[first].chains, median(rates), median(latencies)});
    first = last;
  }
  profile.best = *std::max_element(profile.rates.begin(), profile.rates.end(),
                                   [](const chase_rate& a, const chase_rate& b) { return a.lines_per_ns < b.lines_per_ns; });
  profile.load_latency_ns = profile.rates.front().ns_per_load;
  return profile;
}

void run_read_bandwidth(run_context& context);

void run_roofline(run_context& context) {
  const std::vector<std::size_t> sizes = context.sizes_or({context.quick() ? std::size_t{64} << 20 : std::size_t{512} << 20});
  const unsigned repetitions = context.repetitions_or(context.quick() ? 1 : 3);
  std::vector<unsigned> chains(64);
  std::iota(chains.begin(), chains.end(), 1u);
  if (context.quick()) chains = {1, 2, 4, 8, 12, 16, 24, 32, 48, 64};
  memory_probe_options options;
  options.pages = context.pages_or(page_size::huge_2m);
  options.chains.clear();
  for (unsigned repetition = 0; repetition < repetitions; ++repetition) {
    options.chains.insert(options.chains.end(), chains.begin(), chains.end());
  }
  if (context.quick()) options.loads_per_measurement = std::size_t{1} << 18;
  if (counting_instructions()) options.loads_per_measurement = std::size_t{1} << 12;
  std::size_t largest_adopted = 0;
  for (std::size_t index = 0; index < sizes.size(); ++index) {
    const std::size_t size = sizes[index];
    if (size < (std::size_t{1} << 20)) {
      throw usage_error("--size: the pointer-chase buffer must be at least 1MiB, got " + format_bytes(size));
    }
    context.require_memory(size, "the pointer-chase buffer");
    context.configuration(index, sizes.size(), format_bytes(size) + " buffer");
    context.progress("building the chase, then k = 1.." + std::to_string(chains.back()) + " chains, " +
                     std::to_string(repetitions) + (repetitions == 1 ? " time" : " times"));
    options.buffer_bytes = size;
    const memory_profile profile = median_profile(probe_memory(options));
    if (residency_of(profile.buffer_bytes) == "cache") {
      context.note("roofline_warning", format_bytes(profile.buffer_bytes) +
                                           " fits in the last-level cache: it measures the cache, not DRAM");
    }
    if (profile.buffer_bytes > largest_adopted) {
      adopt_memory_profile(profile);  // the largest buffer is the most DRAM-like
      largest_adopted = profile.buffer_bytes;
    }
    context.note("pages_obtained_" + format_bytes(profile.buffer_bytes), profile.pages);
    for (const chase_rate& rate : profile.rates) {
      const std::size_t steps = std::max<std::size_t>(options.loads_per_measurement / rate.chains, 1024);
      result_row row;
      row.set("structure", "memory")
          .set("technique", "pointer-chase")
          .set("threads", std::int64_t{1})
          .set("size_bytes", static_cast<std::int64_t>(profile.buffer_bytes))
          .set("ops", static_cast<std::int64_t>(steps * rate.chains))
          .set("ns_per_op", 1.0 / rate.lines_per_ns)
          .set("mops", rate.lines_per_ns * 1e3)
          .set("chains", static_cast<std::int64_t>(rate.chains))
          .set("lines_per_ns", rate.lines_per_ns)
          .set("gigabytes_per_s", rate.lines_per_ns * cache_line)
          .set("ns_per_load", rate.ns_per_load)
          // Little's law: lines in flight = fetch rate x the latency of one dependent load.
          .set("lines_in_flight", rate.lines_per_ns * profile.load_latency_ns)
          .set("roofline_fraction", rate.lines_per_ns / profile.best.lines_per_ns);
      context.emit(std::move(row));
    }
  }
  run_read_bandwidth(context);
}

// The sequential-read bandwidth, 1 thread and all threads, over the largest --size given, else
// over dram_resident_bytes() (64 MiB with --quick). The all-threads figure becomes the process's.
void run_read_bandwidth(run_context& context) {
  const std::vector<std::size_t> given = context.sizes_or({});
  std::size_t bytes = context.quick() ? std::size_t{64} << 20 : dram_resident_bytes();
  if (!given.empty()) bytes = *std::max_element(given.begin(), given.end());
  if (counting_instructions()) bytes = std::size_t{4} << 20;
  context.require_memory(bytes, "the sequential-read buffer");
  const unsigned all = std::max<unsigned>(1, static_cast<unsigned>(available_cpus().size()));
  const unsigned passes = context.quick() ? 1 : 3;
  context.progress("sequential read of " + format_bytes(bytes) + ", 1 and " + std::to_string(all) + " threads");
  const read_bandwidth one = measure_read_bandwidth(bytes, 1, passes);
  const read_bandwidth every = all == 1 ? one : measure_read_bandwidth(bytes, all, passes);
  adopt_read_bandwidth(every);
  if (residency_of(one.buffer_bytes) == "cache") {
    context.note("read_bandwidth_warning",
                 format_bytes(one.buffer_bytes) + " fits in the last-level cache: it measures the cache, not DRAM");
  }
  for (const auto& [measured, scope] : {std::pair{one, "one thread"}, std::pair{every, "all threads"}}) {
    const double words = static_cast<double>(measured.buffer_bytes / sizeof(std::uint64_t));
    const double ns_per_word = static_cast<double>(measured.buffer_bytes) / measured.gigabytes_per_s / words;
    result_row row;
    row.set("structure", "memory")
        .set("technique", "sequential-read")
        .set("threads", static_cast<std::int64_t>(measured.threads))
        .set("size_bytes", static_cast<std::int64_t>(measured.buffer_bytes))
        .set("ops", static_cast<std::int64_t>(words))
        .set("ns_per_op", ns_per_word)
        .set("mops", 1e3 / ns_per_word)
        .set("read_scope", scope)
        .set("read_gigabytes_per_s", measured.gigabytes_per_s);
    context.emit(std::move(row));
  }
}

const registration roofline_experiment{experiment{
    .name = "roofline",
    .reproduces = "machine limits (thesis Table 2.1 DRAM latency; 10 line-fill buffers, Killer Nanoseconds §3.1.1)",
    .summary = "dependent-load latency, the fetch rate of k = 1..64 independent pointer chases, sequential-read GB/s",
    .techniques = {},
    .accepted = accepts_size | accepts_pages,
    .run = run_roofline,
}};

const figure_registration roofline_figure{roofline_experiment, figure{
    .name = "roofline-mlp",
    .reproduces = "this machine's latency and memory-level parallelism (thesis Table 2.1; Killer Nanoseconds §3.1.1)",
    .summary = "fetch rate and per-chain latency against the number of independent chases",
    .panels = {{.label = "", .arguments = {}, .quick_arguments = {}}},
    .axes = {.x = "chains",
             .y = "lines_per_ns",
             .y2 = "ns_per_load",
             .series = {"technique"},
             .x_label = "independent pointer chases in flight (k)",
             .y_label = "cache lines fetched per ns",
             .y2_label = "ns per load of one chase"},
    .paper = {paper_claim("thesis Table 2.1 (Intel MLC, Xeon Platinum 8280L)", "DRAM read latency 73 ns", {{"chains", "1"}},
                          statistic::maximum, 73, 73, shape_rule::within_factor(2),
                          "a server Xeon measured with Intel MLC; ours is one pointer chase on this machine", "ns_per_load"),
              paper_claim("Killer Nanoseconds §3.1.1; thesis §2.1.2",
                          "10 line-fill buffers per core (Broadwell, Haswell, Cascade Lake): at most 10 misses in flight", {},
                          statistic::maximum, 10, 10, shape_rule::within_factor(2),
                          "ours: peak fetch rate x one-chase latency (Little's law) on this machine's core", "lines_in_flight")},
}};

const headline_registration roofline_headline{roofline_figure, headline_entry{
    .name = "roofline probe",
    .panels = {},
    .budget_seconds = 30,
    .summarize = report_facts({{.what = "dependent-load latency", .where = {{"chains", "1"}}, .field = "ns_per_load", .unit = "ns"},
                               {.what = "peak fetch rate, one core", .where = {}, .field = "lines_per_ns", .unit = "lines/ns"},
                               {.what = "peak dependent-load bandwidth, one core",
                                .where = {},
                                .field = "gigabytes_per_s",
                                .unit = "GB/s"},
                               {.what = "independent chases at the peak",
                                .where = {},
                                .field = "chains",
                                .unit = "chains",
                                .computed = statistic::at_best,
                                .best_by = "lines_per_ns"},
                               {.what = "lines in flight at the peak (Little's law)",
                                .where = {},
                                .field = "lines_in_flight",
                                .unit = "lines"},
                               {.what = "sequential-read bandwidth, one thread",
                                .where = {{"read_scope", "one thread"}},
                                .field = "read_gigabytes_per_s",
                                .unit = "GB/s"},
                               {.what = "sequential-read bandwidth, all threads",
                                .where = {{"read_scope", "all threads"}},
                                .field = "read_gigabytes_per_s",
                                .unit = "GB/s"}}),
    .table = headline_table::machine,
    .order = 0,
}};

constexpr const char* roofline_help = R"(usage: braid-bench roofline [--size S] [--pages 4k|2m] [--quick] [--format F] [--out DIR]

Measures this machine's limits for latency-bound code: the latency of one dependent load (a
pointer chase over a buffer far larger than the last-level cache) and the fetch rate of k
independent chases, k = 1..64 (memory-level parallelism). The best rate is the roofline that
DRAM-resident results are measured against (their roofline_fraction). Then the sequential-read
bandwidth (GB/s summing the buffer's 64-bit words) of 1 thread and of one thread per CPU: the
limit of anything that streams its input once, such as a join reading both relations (rows
technique=sequential-read, read_scope, read_gigabytes_per_s).

  --size S      the chase buffer (default 512MiB; 64MiB with --quick; at least 1MiB); the
                read buffer is the largest S given, else 16x the last-level cache (capped by a
                quarter of the available memory; 64MiB with --quick)
  --pages P     4k | 2m (default 2m: transparent huge pages, as the experiments use)
  --repetitions N  sweeps of k = 1..64 (default 3; 1 with --quick); the median per k is reported
  --quick       fewer chain counts and loads: a few seconds
  --format F    table (default) | csv | json
  --out DIR     also write DIR/roofline-mlp.csv, .jsonl, .png (rate and latency against k), .md

Same as `braid-bench run roofline-mlp` (the figure preset, with the papers' numbers).
)";

}  // namespace

int roofline_command(const std::vector<std::string>& arguments) {
  if (asks_for_help(arguments)) {
    std::cout << roofline_help;
    return 0;
  }
  return run_named("roofline-mlp", arguments);
}

}  // namespace braid::bench
