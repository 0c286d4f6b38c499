// braid-bench join: R ⋈ S of two `|`-separated .tbl files (the TPC-H generator's format) on
// given columns, by every join algorithm of braid's join layer, so any two files (for example
// customer.tbl ⋈ orders.tbl on the customer key, the input of MxTasking's hash-join benchmark)
// can be joined and timed by each algorithm in one run. Loads both files completely first (a
// malformed line names FILE:LINE and exits 2, nothing joined); every algorithm must return the
// same match count and checksum, or the command fails (exit 1).
#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "braid/join/micro_radix_join.hpp"
#include "braid/join/radix_join.hpp"
#include "braid/join/tbl_reader.hpp"
#include "commands.hpp"
#include "experiment.hpp"
#include "join_runs.hpp"
#include "results.hpp"

namespace braid::bench {
namespace {

constexpr const char* join_help = R"(usage: braid-bench join --build FILE --build-key COL --probe FILE --probe-key COL [options]

Joins two .tbl files (one row a line, fields separated and ended by '|', as the TPC-H generator
writes them; `braid-bench tpch` makes them) on build.key = probe.key, with each algorithm asked
for, and prints one row per algorithm: matches, checksum of the joined payloads, the median
time of the join (loading excluded) and tuples per second (|R| + |S| over that time). Every
algorithm must agree on matches and checksum.

  --build FILE, --probe FILE   R (the hash table's side) and S
  --build-key COL, --probe-key COL         0-based column of the join key (an unsigned integer)
  --build-payload COL, --probe-payload COL 0-based column carried as payload (an unsigned
                               integer); default: the row's 0-based number in its file
  --algorithm A,...   no-partition, radix, micro-radix, index-bplus, index-csb, index-masstree,
                      or all (default: no-partition,radix,micro-radix)
  --technique T       no-partition's build and probe, and the index joins' probe: naive, gp,
                      amac, coro (default coro; the index joins also take what their index has)
  --group N           operations in flight for the interleaved techniques (default 16)
  --threads N         probe threads of no-partition, threads of radix, workers of micro-radix
                      (default 1)
  --bits B            radix bits of radix and micro-radix (default 10)
  --passes P          radix partitioning passes, 1 or 2 (default 1)
  --write-combine     software write-combine buffers while partitioning
  --fragment N        micro-radix fragment capacity in tuples (default 256)
  --prefetch BYTES    micro-radix: bytes of a fragment prefetched ahead of its task (default 1024)
  --repetitions N     timed runs per algorithm, the median reported (default 3)
  --materialize FILE  also write the joined rows (key|build payload|probe payload|, sorted) of
                      the first algorithm to FILE
  --format F          table, csv or json (default table)
)";

const std::vector<std::string> known_algorithms = {"no-partition", "radix",     "micro-radix",
                                                   "index-bplus",  "index-csb", "index-masstree"};

struct join_command_options {
  std::string build_file, probe_file;
  std::optional<std::size_t> build_key, probe_key, build_payload, probe_payload;
  std::vector<std::string> algorithms = {"no-partition", "radix", "micro-radix"};
  technique how = technique::coro;
  std::size_t group = 16;
  unsigned threads = 1;
  unsigned bits = 10;
  unsigned passes = 1;
  bool write_combine = false;
  std::size_t fragment = 256;
  std::size_t prefetch = 1024;
  unsigned repetitions = 3;
  std::string materialize_file;
  std::string format = "table";
};

std::uint64_t positive_number(const std::string& option, const std::string& text, std::uint64_t most) {
  const std::uint64_t parsed = parse_count(text, option);
  if (parsed > most) throw usage_error(option + ": " + text + " is above " + std::to_string(most));
  return parsed;
}

std::size_t column_number(const std::string& option, const std::string& text) {
  return positive_number(option, text, 4095);
}

std::uint64_t at_least_one(const std::string& option, const std::string& text, std::uint64_t most) {
  const std::uint64_t value = positive_number(option, text, most);
  if (value == 0) throw usage_error(option + ": must be at least 1");
  return value;
}

std::vector<std::string> parse_algorithms(const std::string& text) {
  if (text == "all") return known_algorithms;
  std::vector<std::string> chosen;
  for (const std::string& name : split_list(text)) {
    if (std::find(known_algorithms.begin(), known_algorithms.end(), name) == known_algorithms.end())
      throw usage_error("--algorithm: unknown algorithm '" + name +
                        "' (no-partition, radix, micro-radix, index-bplus, index-csb, index-masstree, all)");
    if (std::find(chosen.begin(), chosen.end(), name) != chosen.end())
      throw usage_error("--algorithm: '" + name + "' given twice");
    chosen.push_back(name);
  }
  return chosen;
}

void set_option(join_command_options& options, const std::string& name, const std::string& given) {
  if (name == "--build") options.build_file = given;
  else if (name == "--probe") options.probe_file = given;
  else if (name == "--build-key") options.build_key = column_number(name, given);
  else if (name == "--probe-key") options.probe_key = column_number(name, given);
  else if (name == "--build-payload") options.build_payload = column_number(name, given);
  else if (name == "--probe-payload") options.probe_payload = column_number(name, given);
  else if (name == "--algorithm") options.algorithms = parse_algorithms(given);
  else if (name == "--technique") {
    try {
      options.how = parse_technique(given);
    } catch (const std::invalid_argument& error) {
      throw usage_error(std::string("--technique: ") + error.what());
    }
  } else if (name == "--group") options.group = at_least_one(name, given, 1024);
  else if (name == "--threads") options.threads = static_cast<unsigned>(at_least_one(name, given, 256));
  // The join checks the ranges of these (a value it refuses exits 2 naming the algorithm).
  else if (name == "--bits") options.bits = static_cast<unsigned>(positive_number(name, given, 64));
  else if (name == "--passes") options.passes = static_cast<unsigned>(positive_number(name, given, 64));
  else if (name == "--fragment") options.fragment = positive_number(name, given, std::uint64_t{1} << 30);
  else if (name == "--prefetch") options.prefetch = positive_number(name, given, std::uint64_t{1} << 30);
  else if (name == "--repetitions") options.repetitions = static_cast<unsigned>(at_least_one(name, given, 1000));
  else if (name == "--materialize") options.materialize_file = given;
  else if (name == "--format") {
    if (given != "table" && given != "csv" && given != "json")
      throw usage_error("--format: '" + given + "' is not table, csv or json");
    options.format = given;
  } else throw usage_error("unknown option '" + name + "' (braid-bench join --help)");
}

join_command_options parse_join_options(const std::vector<std::string>& arguments) {
  join_command_options options;
  for (std::size_t position = 0; position < arguments.size(); ++position) {
    const std::string& name = arguments[position];
    if (name == "--write-combine") {
      options.write_combine = true;
      continue;
    }
    if (position + 1 >= arguments.size()) throw usage_error(name + ": needs a value (braid-bench join --help)");
    set_option(options, name, arguments[++position]);
  }
  if (options.build_file.empty() || options.probe_file.empty())
    throw usage_error("join needs --build FILE and --probe FILE (braid-bench join --help)");
  if (!options.build_key || !options.probe_key)
    throw usage_error("join needs --build-key COL and --probe-key COL (braid-bench join --help)");
  return options;
}

// One algorithm's run: a fresh join of R and S.
using join_run = std::function<join::join_output(bool materialize)>;

join_run algorithm_run(const std::string& name, const join_command_options& options,
                       std::span<const join::tuple> build, std::span<const join::tuple> probe,
                       std::optional<tasks::runtime>& runtime) {
  if (name == "radix") {
    return [=](bool materialize) {
      return join::radix_join(build, probe,
                              {.bits = options.bits, .passes = options.passes,
                               .write_combine = options.write_combine, .threads = options.threads,
                               .materialize = materialize});
    };
  }
  if (name == "micro-radix") {
    if (!runtime) {
      tasks::runtime_config config;
      config.workers = options.threads;
      runtime.emplace(config);
    }
    tasks::runtime* workers = &*runtime;
    return [=](bool materialize) {
      return join::micro_radix_join(*workers, build, probe,
                                    {.bits = options.bits, .fragment_tuples = options.fragment,
                                     .write_combine = options.write_combine, .prefetch_bytes = options.prefetch,
                                     .materialize = materialize});
    };
  }
  // no-partition and the index joins (an index refuses repeated keys in R).
  return [=](bool materialize) {
    return run_coroutine_join(name, build, probe, options.how, options.group, options.threads, materialize);
  };
}

std::vector<join::tuple> load(const std::string& file, std::size_t key, std::optional<std::size_t> payload) {
  try {
    return join::load_join_relation(file, key, payload);
  } catch (const join::tbl_error& error) {
    throw usage_error(error.what());
  } catch (const std::invalid_argument& error) {
    throw usage_error(file + ": " + error.what());
  }
}

void write_rows(const std::string& file, const std::vector<join::joined_tuple>& rows) {
  std::ofstream out(file, std::ios::binary);
  if (!out) throw usage_error("--materialize: cannot write " + file);
  for (const join::joined_tuple& row : rows)
    out << row.key << '|' << row.build_payload << '|' << row.probe_payload << "|\n";
  if (!out.flush()) throw usage_error("--materialize: cannot write " + file);
}

double median_of(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  const std::size_t middle = samples.size() / 2;
  return samples.size() % 2 ? samples[middle] : (samples[middle - 1] + samples[middle]) / 2;
}

}  // namespace

int join_command(const std::vector<std::string>& arguments) {
  if (asks_for_help(arguments)) {
    std::cout << join_help;
    return 0;
  }
  const join_command_options options = parse_join_options(arguments);
  const std::vector<join::tuple> build = load(options.build_file, *options.build_key, options.build_payload);
  const std::vector<join::tuple> probe = load(options.probe_file, *options.probe_key, options.probe_payload);

  std::optional<tasks::runtime> runtime;
  std::vector<result_row> rows;
  std::optional<join::join_result> agreed;
  for (const std::string& name : options.algorithms) {
    const join_run run = algorithm_run(name, options, build, probe, runtime);
    join::join_output first(false);
    try {
      first = run(!options.materialize_file.empty() && rows.empty());
    } catch (const std::invalid_argument& error) {
      throw usage_error(name + ": " + error.what());
    }
    if (first.materializes()) {
      std::sort(first.rows().begin(), first.rows().end());
      write_rows(options.materialize_file, first.rows());
    }
    std::vector<double> seconds;
    for (unsigned repetition = 0; repetition < options.repetitions; ++repetition) {
      const auto start = std::chrono::steady_clock::now();
      const join::join_output output = run(false);
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      if (output.result() != first.result()) {
        std::cerr << "braid-bench join: " << name << " returned different results in two runs\n";
        return 1;
      }
    }
    if (agreed && *agreed != first.result()) {
      std::cerr << "braid-bench join: " << name << " found " << first.result().matches << " matches (checksum "
                << first.result().checksum << "), " << options.algorithms.front() << " " << agreed->matches
                << " (checksum " << agreed->checksum << ")\n";
      return 1;
    }
    agreed = first.result();
    const double median = median_of(seconds);
    const bool partitioned = name == "radix" || name == "micro-radix";
    result_row row;
    row.set("algorithm", name)
        .set("technique", partitioned ? std::string("-") : std::string(to_string(options.how)))
        .set("group", static_cast<std::int64_t>(partitioned ? 0 : options.how == technique::naive ? 1 : options.group))
        .set("threads", static_cast<std::int64_t>(options.threads))
        .set("build_rows", static_cast<std::int64_t>(build.size()))
        .set("probe_rows", static_cast<std::int64_t>(probe.size()))
        .set("matches", static_cast<std::int64_t>(first.result().matches))
        .set("checksum", std::to_string(first.result().checksum))
        .set("seconds", median)
        .set("mtuples_per_s", static_cast<double>(build.size() + probe.size()) / median / 1e6);
    if (partitioned) {
      row.set("radix_bits", static_cast<std::int64_t>(options.bits))
          .set("write_combine", options.write_combine ? "on" : "off");
    }
    if (name == "radix") row.set("passes", static_cast<std::int64_t>(options.passes));
    if (name == "micro-radix") {
      row.set("fragment_tuples", static_cast<std::int64_t>(options.fragment))
          .set("prefetch_bytes", static_cast<std::int64_t>(options.prefetch));
    }
    rows.push_back(std::move(row));
  }
  if (options.format == "csv") write_csv(std::cout, rows, run_metadata::collect());
  else if (options.format == "json") write_json_lines(std::cout, rows, run_metadata::collect());
  else write_table(std::cout, rows);
  return 0;
}

}  // namespace braid::bench
