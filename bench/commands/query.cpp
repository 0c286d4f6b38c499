// braid-bench query: TPC-H queries as task pipelines over .tbl files, with their result rows
// and their times, optionally checked against the row-at-a-time reference.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "braid/join/tbl_reader.hpp"
#include "braid/query/operators.hpp"
#include "braid/query/tpch_queries.hpp"
#include "braid/query/tpch_schema.hpp"
#include "braid/tasks/runtime.hpp"
#include "commands.hpp"
#include "measure.hpp"
#include "options.hpp"
#include "query_runs.hpp"
#include "results.hpp"
#include "tpch_reference.hpp"

namespace braid::bench {
namespace {

constexpr const char* query_help = R"(usage: braid-bench query --data DIR --query Q,... [options]

Loads DIR/<table>.tbl (`braid-bench tpch` writes them; partsupp is not needed) and runs each
query as task pipelines on braid's task runtime: TPC-H 1, 3, 5, 6, 10, 12, 14, 19 (`all` for
the eight), or sum-quantity (sum(l_quantity)) and q1-unfiltered (Q1 without its filter). Prints
each query's result rows ('|'-separated, a header line first), then one line per query with the
median time in milliseconds (loading excluded), the tasks, fragments and prefetches, and the bytes of the
accessed columns per second.

  --data DIR            directory of the .tbl files (required)
  --query Q,...         the queries (required)
  --workers N           task-runtime workers (default 1)
  --prefetch S          none, first_lines, whole_column or automatic (default automatic)
  --finalize M          sequential, parallel or reduce: how partial aggregates merge (default reduce)
  --tuples-per-task N   tuples of a fragment, one task each: 1 to 65536 (default 1024)
  --no-bloom            joins probe their hash tables without a bloom filter first
  --probe-group N       hash-join probes of a fragment interleaved at a time by group
                        prefetching, 1 to 64; 1 probes one key after another (default 1)
  --repetitions N       timed runs per query, the median reported (default 1)
  --verify              check every result against the row-at-a-time reference (exit 1 if one differs)
  --quiet               print the timing lines only
  --format F            timing lines as table or csv (default table)
)";

struct query_command_options {
  std::optional<std::filesystem::path> data;
  std::vector<query_choice> queries;
  unsigned workers = 1;
  query::execution_options execution{};
  std::size_t tuples_per_task = 1024;
  unsigned repetitions = 1;
  bool verify = false;
  bool quiet = false;
  std::string format = "table";
};

std::uint64_t number_in(const std::string& option, const std::string& text, std::uint64_t low, std::uint64_t high) {
  const std::uint64_t value = parse_count(text, option);
  if (value < low || value > high) {
    throw usage_error(option + ": " + text + " is not in " + std::to_string(low) + ".." + std::to_string(high));
  }
  return value;
}

template <class Parse>
auto named_value(const std::string& option, const std::string& text, Parse parse) {
  try {
    return parse(text);
  } catch (const std::invalid_argument& error) {
    throw usage_error(option + ": " + error.what());
  }
}

void set_option(query_command_options& options, const std::string& name, const std::string& given) {
  if (name == "--data") {
    if (given.empty()) throw usage_error("--data: needs a directory");
    options.data = given;
  } else if (name == "--query") {
    options.queries = parse_query_choices(given);
  } else if (name == "--workers") {
    options.workers = static_cast<unsigned>(number_in(name, given, 1, 256));
  } else if (name == "--prefetch") {
    options.execution.prefetch = named_value(name, given, query::parse_prefetch_strategy);
  } else if (name == "--finalize") {
    options.execution.finalize = named_value(name, given, query::parse_finalize_mode);
  } else if (name == "--tuples-per-task") {
    options.tuples_per_task = number_in(name, given, 1, query::table::max_tuples_per_fragment);
  } else if (name == "--probe-group") {
    options.execution.probe_group = number_in(name, given, 1, query::join_table::max_probe_group);
  } else if (name == "--repetitions") {
    options.repetitions = static_cast<unsigned>(number_in(name, given, 1, 1000));
  } else if (name == "--format") {
    if (given != "table" && given != "csv") throw usage_error("--format: '" + given + "' is not table or csv");
    options.format = given;
  } else {
    throw usage_error("query: unknown option '" + name + "' (braid-bench query --help)");
  }
}

query_command_options parse_query_options(const std::vector<std::string>& arguments) {
  query_command_options options;
  for (std::size_t position = 0; position < arguments.size(); ++position) {
    const std::string& name = arguments[position];
    if (name == "--no-bloom") {
      options.execution.bloom_filters = false;
      continue;
    }
    if (name == "--verify" || name == "--quiet") {
      (name == "--verify" ? options.verify : options.quiet) = true;
      continue;
    }
    if (position + 1 >= arguments.size()) throw usage_error(name + ": needs a value (braid-bench query --help)");
    set_option(options, name, arguments[++position]);
  }
  if (!options.data) throw usage_error("query needs --data DIR (braid-bench query --help)");
  if (options.queries.empty()) throw usage_error("query needs --query Q,... (braid-bench query --help)");
  return options;
}

query::tpch_database load_database(const query_command_options& options) {
  const tpch_files files(options.data, 1, 0);  // checks that the files are there
  try {
    return query::load_tpch(files.directory(), query_columns(options.queries, options.tuples_per_task));
  } catch (const join::tbl_error& error) {
    throw usage_error(error.what());
  }
}

}  // namespace

int query_command(const std::vector<std::string>& arguments) {
  if (asks_for_help(arguments)) {
    std::cout << query_help;
    return 0;
  }
  const query_command_options options = parse_query_options(arguments);
  const query::tpch_database data = load_database(options);
  tasks::runtime runtime({.workers = options.workers});

  std::vector<result_row> rows;
  bool all_agree = true;
  for (const query_choice& choice : options.queries) {
    std::vector<double> seconds;
    timed_query last;
    for (unsigned repetition = 0; repetition < options.repetitions; ++repetition) {
      timed_query run = run_timed_query(choice, data, runtime, options.execution);
      seconds.push_back(run.seconds);
      if (repetition > 0 && run.run.rows != last.run.rows) {
        std::cerr << "braid-bench query: " << choice.label << " returned other rows in repetition " << repetition + 1
                  << "\n";
        return 1;
      }
      last = std::move(run);
    }
    std::string verified = "-";
    if (options.verify && choice.number) {
      const query::result expected = tpch::reference_query(*choice.number, *options.data);
      verified = expected == last.run.rows ? "reference" : "DIFFERS";
      if (expected != last.run.rows) {
        all_agree = false;
        std::cerr << "braid-bench query: " << choice.label << " differs from the reference, which returns:\n"
                  << expected.to_string();
      }
    }
    if (!options.quiet) std::cout << "-- " << choice.label << '\n' << last.run.rows.to_string() << '\n';
    const double time = median(seconds);
    const query::execution_statistics& statistics = last.run.statistics;
    result_row row;
    row.set("query", choice.label)
        .set("workers", static_cast<std::int64_t>(runtime.workers()))
        .set("prefetch", std::string(query::to_string(options.execution.prefetch)))
        .set("finalize", std::string(query::to_string(options.execution.finalize)))
        .set("bloom", std::string(options.execution.bloom_filters ? "on" : "off"))
        .set("probe_group", static_cast<std::int64_t>(options.execution.probe_group))
        .set("tuples_per_task", static_cast<std::int64_t>(options.tuples_per_task))
        .set("repetitions", static_cast<std::int64_t>(options.repetitions))
        .set("ms", time * 1e3)
        .set("result_rows", static_cast<std::int64_t>(last.run.rows.rows.size()))
        .set("pipelines", static_cast<std::int64_t>(statistics.pipelines))
        .set("fragments", static_cast<std::int64_t>(statistics.fragments))
        .set("tasks", static_cast<std::int64_t>(last.tasks))
        .set("prefetches", static_cast<std::int64_t>(last.prefetches))
        .set("bytes_accessed", static_cast<std::int64_t>(statistics.bytes_accessed))
        .set("gb_per_s", static_cast<double>(statistics.bytes_accessed) / time / 1e9)
        .set("verified", verified);
    rows.push_back(std::move(row));
  }
  if (options.format == "csv") write_csv(std::cout, rows, run_metadata::collect());
  else write_table(std::cout, rows);
  return all_agree ? 0 : 1;
}

}  // namespace braid::bench
