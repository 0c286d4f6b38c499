// tpch-prefetch and tpch-task-size: TPC-H queries as task pipelines on the query layer
// (MxTasks ch. 7, TunaDB without the JIT).
//
// tpch-prefetch (Fig. 7.11, and Fig. 7.8/7.9 with --set queries=6): each query of --set
// queries on --threads workers with every prefetch strategy of --technique (none: no prefetch;
// first_lines: the first lines of every accessed column of the task's fragment; whole_column:
// a dominant predicate column entirely; automatic: whole_column when a single-column predicate
// selects < 10 %, else first_lines), the strategies interleaved within each repetition and the
// median reported. Per row: milliseconds (ms), the bytes of the accessed columns of every scanned
// fragment, and those bytes per second as a fraction of this machine's sequential-read
// bandwidth with as many threads; speedup_vs_naive is the median time without prefetching over
// this strategy's. Every strategy must return the rows the first one returned, or the run
// fails; --set verify=on also checks the first against the row-at-a-time reference.
//
// tpch-join-probes: the queries with hash joins, their probes one key after another (group 1,
// technique naive) against group prefetching over each fragment's selection vector (gp, each
// --group), interleaved within each repetition; speedup_vs_naive over group 1. MxTasks leaves
// these misses to the hardware (its Q3, Q5 and Q10 are bound by them, §7.3); this is braid's
// interleaving applied to them.
//
// tpch-task-size (Fig. 7.13): sum(l_quantity) and Q1 without its filter over lineitem cut into
// fragments of each --set tuples count (one task per fragment), sizes interleaved within each
// repetition; overhead_vs_best is the median time over the best size's, minus 1.
//
// Data: --set data=DIR reads DIR/<table>.tbl (braid-bench tpch writes them); otherwise the
// tables are generated at --set scale (default 1; 0.01 with --quick) with --seed into a
// temporary directory, removed afterwards. Loading is not timed.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "braid/query/operators.hpp"
#include "braid/query/tpch_queries.hpp"
#include "braid/query/tpch_schema.hpp"
#include "braid/tasks/runtime.hpp"
#include "experiment.hpp"
#include "measure.hpp"
#include "options.hpp"
#include "query_runs.hpp"
#include "roofline.hpp"
#include "tpch_reference.hpp"

namespace braid::bench {
namespace {

const std::vector<std::string> strategies = {"none", "first_lines", "whole_column", "automatic"};

double scale_setting(const run_context& context) {
  const std::string text = context.setting("scale").value_or(context.quick() ? "0.01" : "1");
  double scale = 0;
  try {
    std::size_t used = 0;
    scale = std::stod(text, &used);
    if (used != text.size()) throw std::invalid_argument(text);
  } catch (const std::exception&) {
    throw usage_error("--set scale=" + text + ": not a number");
  }
  if (!std::isfinite(scale) || scale < 0.001 || scale > 1000) {
    throw usage_error("--set scale=" + text + ": must be in 0.001..1000");
  }
  return scale;
}

std::optional<std::filesystem::path> data_setting(const run_context& context) {
  const std::optional<std::string> data = context.setting("data");
  if (!data) return std::nullopt;
  if (data->empty()) throw usage_error("--set data=: needs a directory");
  return std::filesystem::path(*data);
}

bool on_off_setting(const run_context& context, const std::string& name, bool fallback) {
  const std::optional<std::string> value = context.setting(name);
  if (!value) return fallback;
  if (*value != "on" && *value != "off") throw usage_error("--set " + name + "=" + *value + ": must be on or off");
  return *value == "on";
}

std::vector<std::size_t> tuples_setting(const run_context& context, const std::string& fallback) {
  std::vector<std::size_t> sizes;
  for (const std::string& item : split_list(context.setting("tuples").value_or(fallback))) {
    const std::uint64_t value = parse_count(item, "--set tuples");
    if (value < 32 || value > query::table::max_tuples_per_fragment) {
      throw usage_error("--set tuples=" + item + ": must be in 32..65536");
    }
    sizes.push_back(static_cast<std::size_t>(value));
  }
  if (sizes.empty()) throw usage_error("--set tuples: no value");
  return sizes;
}

query::prefetch_strategy prefetch_setting(const run_context& context) {
  const std::string text = context.setting("prefetch").value_or("automatic");
  try {
    return query::parse_prefetch_strategy(text);
  } catch (const std::invalid_argument&) {
    throw usage_error("--set prefetch=" + text + ": must be none, first_lines, whole_column or automatic");
  }
}

// The settings every query experiment has: where the data comes from and how it is cut.
std::vector<experiment_setting> data_settings(std::string tuples_meaning) {
  return {{"scale", "0.001..1000", "TPC-H scale factor generated (default 1; 0.01 with --quick)"},
          {"data", "DIR", "read DIR/<table>.tbl instead of generating"},
          {"tuples", "32..65536", std::move(tuples_meaning)}};
}

std::vector<experiment_setting> with(std::vector<experiment_setting> settings, std::vector<experiment_setting> more) {
  settings.insert(settings.end(), more.begin(), more.end());
  return settings;
}

query::finalize_mode finalize_setting(const run_context& context) {
  const std::string text = context.setting("finalize").value_or("reduce");
  try {
    return query::parse_finalize_mode(text);
  } catch (const std::invalid_argument&) {
    throw usage_error("--set finalize=" + text + ": must be sequential, parallel or reduce");
  }
}

// GB/s of a sequential read with `threads` threads, measured once per thread count.
double read_gigabytes_per_s(const run_context& context, unsigned threads) {
  static std::map<unsigned, double> measured;
  auto found = measured.find(threads);
  if (found == measured.end()) {
    const std::size_t bytes = context.quick() ? std::size_t{64} << 20 : dram_resident_bytes();
    found = measured.emplace(threads, measure_read_bandwidth(bytes, threads, context.quick() ? 1 : 3).gigabytes_per_s).first;
  }
  return found->second;
}

void require_same_rows(const query::result& expected, const query::result& got, const std::string& what) {
  if (expected == got) return;
  throw std::runtime_error(what + " returned other rows than the first run:\n" + got.to_string() + "expected:\n" +
                           expected.to_string());
}

// ---- tpch-prefetch ---------------------------------------------------------------------------

struct measured_strategy {
  std::string name;
  std::vector<double> seconds;
  timed_query last;
};

void run_tpch_prefetch(run_context& context) {
  const double scale = scale_setting(context);
  const std::vector<query_choice> choices = parse_query_choices(context.setting("queries").value_or("all"));
  const std::size_t tuples = tuples_setting(context, "1024").front();
  const query::finalize_mode finalize = finalize_setting(context);
  const bool verify = on_off_setting(context, "verify", scale <= 0.1);
  const std::vector<unsigned> thread_counts = context.threads_or({1, 2});
  const unsigned repetitions = context.repetitions_or(context.quick() ? 1 : 5);

  context.progress("loading TPC-H (scale " + std::to_string(scale) + ")");
  const tpch_files files(data_setting(context), scale, context.seed());
  const query::tpch_database data = query::load_tpch(files.directory(), query_columns(choices, tuples));
  context.note("tpch_data", files.generated() ? "generated, scale " + std::to_string(scale) : files.directory().string());

  std::size_t configuration = 0;
  for (unsigned threads : thread_counts) {
    tasks::runtime runtime({.workers = threads});
    for (const query_choice& choice : choices) {
      context.configuration(configuration++, thread_counts.size() * choices.size(),
                            choice.label + ", " + std::to_string(threads) + " workers");
      std::vector<measured_strategy> runs;
      for (const std::string& name : strategies) {
        if (context.selected(name)) runs.push_back({name, {}, {}});
      }
      std::optional<query::result> first;
      for (unsigned repetition = 0; repetition < repetitions; ++repetition) {
        for (measured_strategy& strategy : runs) {
          const query::execution_options options{.prefetch = query::parse_prefetch_strategy(strategy.name),
                                                 .finalize = finalize, .bloom_filters = true};
          strategy.last = run_timed_query(choice, data, runtime, options);
          strategy.seconds.push_back(strategy.last.seconds);
          if (!first) {
            first = strategy.last.run.rows;
            if (verify && choice.number) {
              require_same_rows(tpch::reference_query(*choice.number, files.directory()), *first,
                                "the reference (" + choice.label + ")");
            }
          }
          require_same_rows(*first, strategy.last.run.rows, choice.label + " with prefetch " + strategy.name);
        }
      }
      std::optional<double> without;
      for (const measured_strategy& strategy : runs) {
        if (strategy.name == "none") without = median(strategy.seconds);
      }
      for (const measured_strategy& strategy : runs) {
        const double seconds = median(strategy.seconds);
        const query::execution_statistics& statistics = strategy.last.run.statistics;
        const double gigabytes_per_s = static_cast<double>(statistics.bytes_accessed) / seconds / 1e9;
        result_row row;
        row.set("structure", choice.label)
            .set("technique", strategy.name)
            .set("threads", static_cast<std::int64_t>(threads))
            .set("ops", static_cast<std::int64_t>(statistics.fragments))
            .set("ms", seconds * 1e3)
            .set("scale", scale)
            .set("tuples_per_task", static_cast<std::int64_t>(tuples))
            .set("finalize", std::string(query::to_string(finalize)))
            .set("tasks", static_cast<std::int64_t>(strategy.last.tasks))
            .set("prefetches", static_cast<std::int64_t>(strategy.last.prefetches))
            .set("pipelines", static_cast<std::int64_t>(statistics.pipelines))
            .set("bytes_accessed", static_cast<std::int64_t>(statistics.bytes_accessed))
            .set("gb_per_s", gigabytes_per_s)
            .set("bandwidth_fraction", gigabytes_per_s / read_gigabytes_per_s(context, threads))
            .set("result_rows", static_cast<std::int64_t>(strategy.last.run.rows.rows.size()))
            .set("verified", std::string(verify && choice.number ? "reference" : "strategies agree"));
        if (without) row.set("speedup_vs_naive", *without / seconds);
        context.emit(std::move(row));
      }
    }
  }
}

const registration tpch_prefetch{experiment{
    .name = "tpch-prefetch",
    .reproduces = "MxTasks Fig. 7.11 (prefetching on/off per TPC-H query), Fig. 7.8/7.9 (lineitem scan, strategies)",
    .summary = "TPC-H Q1-Q19 as task pipelines, seconds per prefetch strategy, and the share of read bandwidth",
    .techniques = strategies,
    .accepted = accepts_threads | accepts_technique,
    .settings = with(data_settings("tuples per fragment, one task each (default 1024)"),
                     {{"queries", "1,3,5,6,10,12,14,19 | all | sum-quantity | q1-unfiltered", "the queries (default all)"},
                      {"finalize", "sequential | parallel | reduce", "how partial aggregates merge (default reduce)"},
                      {"verify", "on | off", "compare with the row-at-a-time reference (default on up to scale 0.1)"}}),
    .run = run_tpch_prefetch,
}};

// ---- tpch-join-probes ------------------------------------------------------------------------

void run_tpch_join_probes(run_context& context) {
  const double scale = scale_setting(context);
  const std::vector<query_choice> choices = parse_query_choices(context.setting("queries").value_or("3,5,10,12,14,19"));
  const std::size_t tuples = tuples_setting(context, "1024").front();
  std::vector<std::size_t> groups = context.groups_or({1, 4, 8, 16, 32});
  for (std::size_t group : groups) {
    if (group > query::join_table::max_probe_group) {
      throw usage_error("--group " + std::to_string(group) + ": probes interleave at most " +
                        std::to_string(query::join_table::max_probe_group) + " at a time");
    }
  }
  if (std::find(groups.begin(), groups.end(), std::size_t{1}) == groups.end()) groups.insert(groups.begin(), 1);
  const std::vector<unsigned> thread_counts = context.threads_or({1, 2});
  const unsigned repetitions = context.repetitions_or(context.quick() ? 1 : 5);
  query::execution_options options{.prefetch = prefetch_setting(context)};

  context.progress("loading TPC-H (scale " + std::to_string(scale) + ")");
  const tpch_files files(data_setting(context), scale, context.seed());
  const query::tpch_database data = query::load_tpch(files.directory(), query_columns(choices, tuples));

  std::size_t configuration = 0;
  for (unsigned threads : thread_counts) {
    tasks::runtime runtime({.workers = threads});
    for (const query_choice& choice : choices) {
      context.configuration(configuration++, thread_counts.size() * choices.size(),
                            choice.label + ", " + std::to_string(threads) + " workers");
      std::vector<std::vector<double>> seconds(groups.size());
      std::optional<query::result> first;
      for (unsigned repetition = 0; repetition < repetitions; ++repetition) {
        for (std::size_t g = 0; g < groups.size(); ++g) {
          options.probe_group = groups[g];
          const timed_query run = run_timed_query(choice, data, runtime, options);
          seconds[g].push_back(run.seconds);
          if (!first) first = run.run.rows;
          require_same_rows(*first, run.run.rows, choice.label + " with probe group " + std::to_string(groups[g]));
        }
      }
      const double plain = median(seconds[0]);
      for (std::size_t g = 0; g < groups.size(); ++g) {
        const double time = median(seconds[g]);
        result_row row;
        row.set("structure", choice.label)
            .set("technique", std::string(groups[g] == 1 ? "naive" : "gp"))
            .set("group", static_cast<std::int64_t>(groups[g]))
            .set("threads", static_cast<std::int64_t>(threads))
            .set("ms", time * 1e3)
            .set("speedup_vs_naive", plain / time)
            .set("prefetch", std::string(query::to_string(options.prefetch)))
            .set("scale", scale)
            .set("tuples_per_task", static_cast<std::int64_t>(tuples));
        context.emit(std::move(row));
      }
    }
  }
}

const registration tpch_join_probes{experiment{
    .name = "tpch-join-probes",
    .reproduces = "MxTasks §7.3 (Q3, Q5, Q10 bound by hash-join and bloom-filter misses the runtime cannot prefetch)",
    .summary = "TPC-H queries with joins, their probes one at a time vs interleaved by group prefetching",
    .techniques = {},
    .accepted = accepts_threads | accepts_group,
    .settings = with(data_settings("tuples per fragment, one task each (default 1024)"),
                     {{"queries", "3,5,10,12,14,19 | all", "the queries (default the six with joins)"},
                      {"prefetch", "none | first_lines | whole_column | automatic", "prefetch strategy (default automatic)"}}),
    .run = run_tpch_join_probes,
}};

// ---- tpch-task-size --------------------------------------------------------------------------

void run_tpch_task_size(run_context& context) {
  const double scale = scale_setting(context);
  const std::vector<query_choice> choices =
      parse_query_choices(context.setting("queries").value_or("sum-quantity,q1-unfiltered"));
  for (const query_choice& choice : choices) {
    if (choice.number) throw usage_error("tpch-task-size runs sum-quantity and q1-unfiltered, not " + choice.label);
  }
  const std::vector<std::size_t> sizes = tuples_setting(
      context, context.quick() ? "32,1024,65536" : "32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536");
  const query::execution_options options{.prefetch = prefetch_setting(context), .finalize = finalize_setting(context)};
  const std::vector<unsigned> thread_counts = context.threads_or({1, 2});
  const unsigned repetitions = context.repetitions_or(context.quick() ? 1 : 5);

  context.progress("loading TPC-H lineitem (scale " + std::to_string(scale) + ")");
  const tpch_files files(data_setting(context), scale, context.seed());
  const query::tpch_database loaded = query::load_tpch(files.directory(), query_columns(choices, sizes.front()));
  const query::table& lineitem = loaded.get(query::tpch_table::lineitem);
  context.require_memory(static_cast<std::size_t>(lineitem.fragment_bytes()) * lineitem.fragment_count() * sizes.size(),
                         "lineitem once per fragment size");
  std::vector<query::tpch_database> layouts(sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    layouts[i].put(query::tpch_table::lineitem, lineitem.with_tuples_per_fragment(sizes[i]));
  }

  std::size_t configuration = 0;
  for (unsigned threads : thread_counts) {
    tasks::runtime runtime({.workers = threads});
    for (const query_choice& choice : choices) {
      context.configuration(configuration++, thread_counts.size() * choices.size(),
                            choice.label + ", " + std::to_string(threads) + " workers");
      std::vector<std::vector<double>> seconds(sizes.size());
      std::vector<timed_query> last(sizes.size());
      for (unsigned repetition = 0; repetition < repetitions; ++repetition) {
        for (std::size_t i = 0; i < sizes.size(); ++i) {
          last[i] = run_timed_query(choice, layouts[i], runtime, options);
          seconds[i].push_back(last[i].seconds);
          require_same_rows(last[0].run.rows, last[i].run.rows,
                            choice.label + " with " + std::to_string(sizes[i]) + " tuples per task");
        }
      }
      double best = 0;
      for (const auto& times : seconds) best = best == 0 ? median(times) : std::min(best, median(times));
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        const double time = median(seconds[i]);
        result_row row;
        row.set("structure", choice.label)
            .set("technique", std::string(query::to_string(options.prefetch)))
            .set("threads", static_cast<std::int64_t>(threads))
            .set("ops", static_cast<std::int64_t>(lineitem.rows()))
            .set("ns_per_op", time * 1e9 / static_cast<double>(std::max<std::uint64_t>(1, lineitem.rows())))
            .set("ms", time * 1e3)
            .set("scale", scale)
            .set("tuples_per_task", static_cast<std::int64_t>(sizes[i]))
            .set("tasks", static_cast<std::int64_t>(last[i].tasks))
            .set("overhead_vs_best", time / best - 1);
        context.emit(std::move(row));
      }
    }
  }
}

const registration tpch_task_size{experiment{
    .name = "tpch-task-size",
    .reproduces = "MxTasks Fig. 7.13 (task granularity: tuples per task 32 to 65,536)",
    .summary = "sum(l_quantity) and Q1 without its filter against the tuples each task processes",
    .techniques = {},
    .accepted = accepts_threads,
    .settings = with(data_settings("tuples per task, a list (default 32, 64, ... 65536)"),
                     {{"queries", "sum-quantity,q1-unfiltered", "the queries (default both)"},
                      {"prefetch", "none | first_lines | whole_column | automatic", "prefetch strategy (default automatic)"},
                      {"finalize", "sequential | parallel | reduce", "how partial aggregates merge (default reduce)"}}),
    .run = run_tpch_task_size,
}};

}  // namespace
}  // namespace braid::bench
