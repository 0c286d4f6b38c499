// radix-partition and radix-join: micro partitioning and the micro-partitioned radix join on
// the task runtime against classical radix partitioning and Balkesen et al.'s radix join
// (MxTasks, Mühlig 2023, Fig. 6.4/6.5 and 6.8).
//
// radix-partition: one thread partitions a relation of 16-byte tuples (--size, 1 GiB by
// default) at each radix bit count of --set bits: classically (histogram, prefix sum,
// scatter; --set passes) and into micro fragments of each capacity of --set fragment, with and
// without software write-combine buffers (--set wc). Per configuration: ns per tuple, and the
// speedup of micro over classical with the same buffers, measured in the same run. This
// machine has no hardware performance counters, so the STLB misses of Fig. 6.4a/6.5 are not
// measured (each row says so); time per tuple is (Fig. 6.4b).
//
// radix-join: R ⋈ S with S of --size (1 GiB by default) and R sized so that every partition of
// R fits in L2 at 10 radix bits: R_p = L2 / 4 (the paper's 256 MB build side for 1 MiB of L2;
// the table over R_p, keys inline, is then about half the L2), capped at half of S; --set
// build overrides. R's keys are a shuffled 0..|R|-1, S's uniform over them: every S tuple
// matches once. classical = radix_joiner (partition both, bucket-chained table per pair) with
// --threads threads; micro = micro_radix_joiner on a task runtime of --threads workers, per
// fragment capacity (--set fragment) and schedule (--set schedule: pairs builds and probes
// each partition back to back once R and S are partitioned, phases builds every table before
// S is partitioned), prefetching --set prefetch bytes of each fragment. Rows per phase:
// partition (R and S), build+probe, total; tuples/s over |R| + |S| input tuples.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "braid/join/micro_partition.hpp"
#include "braid/join/micro_radix_join.hpp"
#include "braid/join/radix_join.hpp"
#include "braid/join/radix_partition.hpp"
#include "braid/tasks/runtime.hpp"
#include "experiment.hpp"
#include "measure.hpp"
#include "options.hpp"

namespace braid::bench {
namespace {

using join::tuple;

constexpr const char* no_counters_note = "no hardware counters on this machine: STLB misses not measured (time only)";

std::uint64_t setting_number(const std::string& name, const std::string& item, std::uint64_t low, std::uint64_t high) {
  std::uint64_t value = 0;
  try {
    value = parse_count(item, "--set " + name);
  } catch (const usage_error&) {
    throw usage_error("--set " + name + "=" + item + ": not a number");
  }
  if (value < low || value > high) {
    throw usage_error("--set " + name + "=" + item + ": must be in " + std::to_string(low) + ".." + std::to_string(high));
  }
  return value;
}

std::vector<unsigned> setting_numbers(const run_context& context, const std::string& name, const std::string& fallback,
                                      std::uint64_t low, std::uint64_t high) {
  std::vector<unsigned> values;
  for (const std::string& item : split_list(context.setting(name).value_or(fallback))) {
    values.push_back(static_cast<unsigned>(setting_number(name, item, low, high)));
  }
  if (values.empty()) throw usage_error("--set " + name + ": no value");
  return values;
}

std::vector<std::size_t> fragment_capacities(const run_context& context) {
  std::vector<std::size_t> capacities;
  for (unsigned value : setting_numbers(context, "fragment", "128,256", 4, join::max_fragment_tuples)) {
    if ((value & (value - 1)) != 0) throw usage_error("--set fragment=" + std::to_string(value) + ": not a power of two");
    capacities.push_back(value);
  }
  return capacities;
}

std::vector<bool> write_combine_choices(const run_context& context, const std::string& fallback) {
  std::vector<bool> choices;
  for (const std::string& item : split_list(context.setting("wc").value_or(fallback))) {
    if (item != "on" && item != "off") throw usage_error("--set wc=" + item + ": must be on or off");
    choices.push_back(item == "on");
  }
  return choices;
}

// Splitmix64: fast, well-mixed keys for relations of a gigabyte.
std::uint64_t splitmix(std::uint64_t& state) {
  state += 0x9e3779b97f4a7c15ULL;
  return join::mix64(state);
}

std::vector<tuple> uniform_relation(std::size_t count, std::uint64_t seed, std::uint64_t key_range) {
  std::vector<tuple> relation(count);
  std::uint64_t state = seed;
  for (tuple& t : relation) {
    const std::uint64_t draw = splitmix(state);
    t = {key_range == 0 ? draw : draw % key_range, splitmix(state)};
  }
  return relation;
}

// A partitioning's fingerprint: its partition sizes (what classical and micro must agree on).
std::uint64_t partition_checksum(std::size_t fanout, auto size_of) {
  std::uint64_t checksum = 0;
  for (std::size_t p = 0; p < fanout; ++p) checksum += join::mix64(p + 1) * size_of(p);
  return checksum;
}

// ---- radix-partition -------------------------------------------------------------------------

void run_radix_partition(run_context& context) {
  const bool quick = context.quick();
  const auto sizes = context.sizes_or({quick ? std::size_t{16} << 20 : std::size_t{1} << 30});
  const std::vector<unsigned> bits_list = setting_numbers(context, "bits", quick ? "4,10" : "4,6,8,10,12,14", 1,
                                                          join::max_radix_bits);
  const std::vector<std::size_t> capacities = fragment_capacities(context);
  const std::vector<bool> wc_choices = write_combine_choices(context, "off,on");
  const unsigned passes = setting_numbers(context, "passes", "1", 1, 2).front();
  const unsigned repetitions = context.repetitions_or(quick ? 1 : 3);
  const bool classical = context.selected("classical");
  const bool micro = context.selected("micro");

  std::size_t configuration = 0;
  const std::size_t configurations = sizes.size() * bits_list.size() * wc_choices.size();
  for (std::size_t size : sizes) {
    const std::size_t count = size / sizeof(tuple);
    context.require_memory(size * 3 + (std::size_t{64} << 20), "the input, the classical output and a micro block");
    const std::vector<tuple> input = uniform_relation(count, context.seed(), 0);
    join::partitioned_relation classical_output;
    for (unsigned bits : bits_list) {
      if (passes == 2 && bits < 2) throw usage_error("--set passes=2 needs --set bits of at least 2");
      for (bool write_combine : wc_choices) {
        context.configuration(configuration++, configurations,
                              "bits " + std::to_string(bits) + (write_combine ? " wc" : "") + ", " + format_bytes(size));
        std::vector<std::unique_ptr<join::micro_partition_block>> blocks;
        std::vector<technique_run> techniques;
        if (classical) {
          techniques.push_back({"classical", [&, bits, write_combine] {
                                  join::radix_partition_into(input, {.bits = bits, .shift = 0, .passes = passes,
                                                                     .write_combine = write_combine, .threads = 1},
                                                             classical_output);
                                  return partition_checksum(classical_output.fanout(), [&](std::size_t p) {
                                    return classical_output.partition(p).size();
                                  });
                                }});
        }
        if (micro) {
          for (std::size_t capacity : capacities) {
            blocks.push_back(std::make_unique<join::micro_partition_block>(
                join::micro_partition_options{.bits = bits, .shift = 0, .fragment_tuples = capacity,
                                              .write_combine = write_combine},
                count));
            join::micro_partition_block* block = blocks.back().get();
            techniques.push_back({"micro-" + std::to_string(capacity), [&input, block, count] {
                                    block->reset(count);
                                    block->add(input);
                                    block->finish();
                                    return partition_checksum(block->fanout(),
                                                              [&](std::size_t p) { return block->partition_size(p); });
                                  }});
          }
        }
        const std::vector<measurement> measurements = measure_interleaved(techniques, repetitions, &context);
        require_same_checksums(measurements, "radix-partition");
        const measurement* baseline = classical ? &find_measurement(measurements, "classical") : nullptr;
        for (const measurement& m : measurements) {
          const bool is_micro = m.name != "classical";
          result_row row;
          row.set("structure", "radix-partition")
              .set("technique", is_micro ? "micro" : "classical")
              .set("threads", std::int64_t{1})
              .set("size_bytes", static_cast<std::int64_t>(size))
              .set("ops", static_cast<std::int64_t>(count))
              .set("ns_per_op", m.median_ns / static_cast<double>(count))
              .set("mops", static_cast<double>(count) / m.median_ns * 1e3)
              .set("bits", static_cast<std::int64_t>(bits))
              .set("fragment_tuples", static_cast<std::int64_t>(is_micro ? std::stoul(m.name.substr(6)) : 0))
              .set("passes", static_cast<std::int64_t>(is_micro ? 1 : passes))
              .set("wc", write_combine ? "on" : "off")
              .set("checksum", static_cast<std::int64_t>(m.checksum));
          if (baseline != nullptr) row.set("speedup_vs_classical", baseline->median_ns / m.median_ns);
          row.set("note", no_counters_note);
          context.emit(std::move(row));
        }
      }
    }
  }
}

const registration radix_partition_experiment{experiment{
    .name = "radix-partition",
    .reproduces = "MxTasks Fig. 6.4/6.5 (micro vs classical partitioning; time only)",
    .summary = "1 thread: ns per tuple of classical radix partitioning vs micro fragments of 128/256, +- write-combine",
    .techniques = {"classical", "micro"},
    .accepted = accepts_size | accepts_technique,
    .settings = {{"bits", "list of 1..20", "radix bits to sweep (default 4,6,8,10,12,14; quick 4,10)"},
                 {"fragment", "list of powers of two 4..65536", "micro fragment capacities in tuples (default 128,256)"},
                 {"wc", "list of on | off", "software write-combine buffers (default off,on)"},
                 {"passes", "1 | 2", "passes of the classical partitioning (default 1)"}},
    .run = run_radix_partition,
}};

// ---- radix-join ------------------------------------------------------------------------------

// The L2 data cache of CPU 0 from sysfs (as the harness reads the last-level cache), 0 if unknown.
std::size_t level2_cache_bytes() {
  for (int index = 0; index < 8; ++index) {
    const std::string base = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_file(base + "level");
    std::ifstream type_file(base + "type");
    std::ifstream size_file(base + "size");
    std::string level;
    std::string type;
    std::string size;
    if (!(level_file >> level)) break;
    type_file >> type;
    size_file >> size;
    if (level != "2" || type == "Instruction" || size.empty()) continue;
    try {
      return parse_size(size.back() == 'K' ? size + "iB" : size.back() == 'M' ? size + "iB" : size, "L2 size");
    } catch (const usage_error&) {
      return 0;
    }
  }
  return 0;
}

const char* schedule_name(join::micro_join_schedule schedule) {
  return schedule == join::micro_join_schedule::pairs ? "pairs" : "phases";
}

std::vector<join::micro_join_schedule> micro_join_schedules(const run_context& context) {
  std::vector<join::micro_join_schedule> schedules;
  for (const std::string& item : split_list(context.setting("schedule").value_or("pairs"))) {
    if (item == "pairs") {
      schedules.push_back(join::micro_join_schedule::pairs);
    } else if (item == "phases") {
      schedules.push_back(join::micro_join_schedule::phases);
    } else {
      throw usage_error("--set schedule=" + item + ": must be pairs or phases");
    }
  }
  if (schedules.empty()) throw usage_error("--set schedule: no value");
  return schedules;
}

struct phase_samples {
  std::vector<double> partition;
  std::vector<double> build_probe;
  std::vector<double> total;
};

void run_radix_join(run_context& context) {
  const bool quick = context.quick();
  const auto sizes = context.sizes_or({quick ? std::size_t{16} << 20 : std::size_t{1} << 30});
  const std::vector<unsigned> thread_counts = context.threads_or({1, 2});
  const std::vector<unsigned> bits_list = setting_numbers(context, "bits", "10", 1, join::max_radix_bits);
  const std::vector<std::size_t> capacities = fragment_capacities(context);
  const std::vector<bool> wc_choices = write_combine_choices(context, "off");
  if (wc_choices.size() != 1) throw usage_error("--set wc: radix-join takes one value, on or off");
  const bool write_combine = wc_choices.front();
  const std::size_t prefetch = setting_number("prefetch", context.setting("prefetch").value_or("1024"), 0,
                                              join::max_fragment_prefetch_bytes);
  const unsigned passes = setting_numbers(context, "passes", "1", 1, 2).front();
  const std::vector<join::micro_join_schedule> schedules = micro_join_schedules(context);
  const unsigned repetitions = context.repetitions_or(quick ? 1 : 3);
  const bool classical = context.selected("classical");
  const bool micro = context.selected("micro");

  std::size_t l2 = level2_cache_bytes();
  context.note("l2_bytes", l2 == 0 ? "unknown (sysfs): assumed 1 MiB" : std::to_string(l2) + " (sysfs)");
  if (l2 == 0) l2 = std::size_t{1} << 20;

  std::size_t configuration = 0;
  const std::size_t configurations = sizes.size() * bits_list.size() * thread_counts.size();
  for (std::size_t size : sizes) {
    const std::size_t probe_count = size / sizeof(tuple);
    std::size_t build_bytes = std::min(l2 / 4 * 1024, size / 2);
    if (const std::optional<std::string> given = context.setting("build")) build_bytes = parse_size(*given, "--set build");
    const std::size_t build_count = std::max<std::size_t>(build_bytes / sizeof(tuple), 1);
    context.require_memory((size + build_bytes) * 4, "both relations, their partitions and tables");
    std::vector<tuple> build(build_count);
    std::mt19937_64 shuffler(context.seed());
    for (std::size_t i = 0; i < build_count; ++i) build[i] = {i, join::mix64(i ^ context.seed())};
    std::shuffle(build.begin(), build.end(), shuffler);
    const std::vector<tuple> probe = uniform_relation(probe_count, context.seed() + 1, build_count);
    const double tuples = static_cast<double>(build_count + probe_count);

    for (unsigned bits : bits_list) {
      if (passes == 2 && bits < 2) throw usage_error("--set passes=2 needs --set bits of at least 2");
      for (unsigned threads : thread_counts) {
        context.configuration(configuration++, configurations,
                              "bits " + std::to_string(bits) + ", " + std::to_string(threads) + " threads, " +
                                  format_bytes(size));
        tasks::runtime_config config;
        config.workers = threads;
        std::optional<tasks::runtime> runtime;
        if (micro) runtime.emplace(config);
        struct contender {
          std::string name;
          std::size_t fragment;
          std::string schedule;  // micro only
          std::function<join::join_output()> run;
          std::function<join::join_phase_times()> phases;
          phase_samples samples;
          std::uint64_t checksum = 0;
        };
        std::vector<contender> contenders;
        auto classical_joiner = std::make_shared<join::radix_joiner>(join::radix_join_options{
            .bits = bits, .passes = passes, .write_combine = write_combine, .threads = threads, .materialize = false});
        if (classical) {
          contenders.push_back({"classical", 0, "", [&, classical_joiner] { return classical_joiner->run(build, probe); },
                                [classical_joiner] { return classical_joiner->last_phases(); }, {}, 0});
        }
        if (micro) {
          for (join::micro_join_schedule schedule : schedules) {
            for (std::size_t capacity : capacities) {
              auto joiner = std::make_shared<join::micro_radix_joiner>(
                  *runtime, join::micro_radix_join_options{.bits = bits, .fragment_tuples = capacity,
                                                            .write_combine = write_combine, .prefetch_bytes = prefetch,
                                                            .morsel_tuples = 16384, .materialize = false,
                                                            .schedule = schedule});
              contenders.push_back({"micro-" + std::to_string(capacity) + "-" + schedule_name(schedule), capacity,
                                    schedule_name(schedule), [&, joiner] { return joiner->run(build, probe); },
                                    [joiner] { return joiner->last_phases(); }, {}, 0});
            }
          }
        }
        // A warm-up pass each, then the timed ones, the order rotating.
        for (unsigned pass = 0; pass <= repetitions; ++pass) {
          for (std::size_t k = 0; k < contenders.size(); ++k) {
            contender& c = contenders[(k + pass) % contenders.size()];
            const join::join_output out = c.run();
            if (out.result().matches != probe_count) {
              throw std::logic_error("radix-join: " + c.name + " found " + std::to_string(out.result().matches) +
                                     " matches, not " + std::to_string(probe_count));
            }
            if (pass == 0) c.checksum = out.result().checksum;
            if (out.result().checksum != c.checksum || out.result().checksum != contenders.front().checksum) {
              throw std::logic_error("radix-join: " + c.name + " returned another checksum");
            }
            if (pass == 0) continue;
            const join::join_phase_times phases = c.phases();
            c.samples.partition.push_back(phases.partition_ns);
            c.samples.build_probe.push_back(phases.build_probe_ns);
            c.samples.total.push_back(phases.total_ns());
          }
        }
        auto phase_median = [](const contender& c, std::string_view phase) {
          return median(phase == "partition" ? c.samples.partition
                        : phase == "build+probe" ? c.samples.build_probe : c.samples.total);
        };
        for (const contender& c : contenders) {
          for (const char* phase : {"partition", "build+probe", "total"}) {
            const double ns = phase_median(c, phase);
            result_row row;
            row.set("structure", "radix-join")
                .set("technique", c.fragment == 0 ? "classical" : "micro")
                .set("threads", static_cast<std::int64_t>(threads))
                .set("size_bytes", static_cast<std::int64_t>(size))
                .set("ops", static_cast<std::int64_t>(build_count + probe_count))
                .set("ns_per_op", ns / tuples)
                .set("mops", tuples / ns * 1e3)
                .set("phase", phase)
                .set("tuples_per_s", tuples / ns * 1e9)
                .set("bits", static_cast<std::int64_t>(bits))
                .set("fragment_tuples", static_cast<std::int64_t>(c.fragment))
                .set("schedule", c.schedule)
                .set("build_bytes", static_cast<std::int64_t>(build_count * sizeof(tuple)))
                .set("wc", write_combine ? "on" : "off")
                .set("prefetch_bytes", static_cast<std::int64_t>(c.fragment == 0 ? 0 : prefetch))
                .set("passes", static_cast<std::int64_t>(c.fragment == 0 ? passes : 1))
                .set("checksum", static_cast<std::int64_t>(c.checksum));
            if (classical) row.set("speedup_vs_classical", phase_median(contenders.front(), phase) / ns);
            context.emit(std::move(row));
          }
        }
      }
    }
  }
}

const registration radix_join_experiment{experiment{
    .name = "radix-join",
    .reproduces = "MxTasks Fig. 6.8 (micro-partitioned radix join on tasks vs Balkesen's radix join)",
    .summary = "R join S, R_p = L2/4 at 10 bits: classical radix join vs micro-partitioned join on the task runtime, per phase",
    .techniques = {"classical", "micro"},
    .accepted = accepts_size | accepts_threads | accepts_technique,
    .settings = {{"bits", "list of 1..20", "radix bits (default 10)"},
                 {"fragment", "list of powers of two 4..65536", "micro fragment capacities in tuples (default 128,256)"},
                 {"wc", "on | off", "software write-combine buffers in both joins' partitioning (default off)"},
                 {"prefetch", "0..65536", "bytes of each fragment prefetched ahead of its task (default 1024)"},
                 {"passes", "1 | 2", "passes of the classical join's partitioning (default 1)"},
                 {"schedule", "list of pairs | phases",
                  "micro join: build and probe each partition back to back after partitioning R and S (pairs), or "
                  "build all tables, then partition S and probe (phases) (default pairs)"},
                 {"build", "a size", "the build relation (default: L2/4 per partition at 10 bits, at most half of --size)"}},
    .run = run_radix_join,
}};

}  // namespace
}  // namespace braid::bench
