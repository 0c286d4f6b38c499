#include "query_runs.hpp"

#include <chrono>
#include <random>
#include <system_error>
#include <utility>

#include "options.hpp"
#include "tpch.hpp"

namespace braid::bench {

std::vector<query_choice> parse_query_choices(std::string_view list) {
  std::vector<query_choice> choices;
  for (std::string item : split_list(list)) {
    if (item == "all") {
      for (int number : query::tpch_query_numbers) choices.push_back({"q" + std::to_string(number), number, {}});
      continue;
    }
    if (item == "sum-quantity") {
      choices.push_back({item, std::nullopt, query::micro_query::sum_quantity});
      continue;
    }
    if (item == "q1-unfiltered") {
      choices.push_back({item, std::nullopt, query::micro_query::q1_unfiltered});
      continue;
    }
    const std::string digits = item.starts_with('q') ? item.substr(1) : item;
    int number = 0;
    bool known = !digits.empty() && digits.size() <= 2 &&
                 digits.find_first_not_of("0123456789") == std::string::npos;
    if (known) {
      number = std::stoi(digits);
      known = false;
      for (int supported : query::tpch_query_numbers) known = known || supported == number;
    }
    if (!known) {
      throw usage_error("query '" + item + "': not one of 1, 3, 5, 6, 10, 12, 14, 19, all, sum-quantity, q1-unfiltered");
    }
    choices.push_back({"q" + std::to_string(number), number, {}});
  }
  if (choices.empty()) throw usage_error("no query given");
  return choices;
}

query::tpch_database_options query_columns(const std::vector<query_choice>& choices, std::size_t tuples_per_fragment) {
  std::vector<query::table_columns> columns;
  for (const query_choice& choice : choices) {
    columns.push_back(choice.number ? query::tpch_query_columns(*choice.number) : query::micro_query_columns(choice.micro));
  }
  return {.tuples_per_fragment = tuples_per_fragment, .tables = query::merge_columns(columns)};
}

tpch_files::tpch_files(std::optional<std::filesystem::path> directory, double scale, std::uint64_t seed) {
  if (directory) {
    for (std::string_view name : tpch::table_names) {
      if (name == "partsupp") continue;  // no plan reads it
      const std::filesystem::path file = *directory / (std::string(name) + ".tbl");
      if (!std::filesystem::is_regular_file(file)) throw usage_error("TPC-H data: " + file.string() + " is missing");
    }
    directory_ = std::move(*directory);
    return;
  }
  std::random_device entropy;
  directory_ = std::filesystem::temp_directory_path() / ("braid-tpch-" + std::to_string(entropy()));
  std::filesystem::create_directories(directory_);
  generated_ = true;
  std::vector<tpch::table_id> tables;
  for (tpch::table_id table : tpch::all_tables) {
    if (table != tpch::table_id::partsupp) tables.push_back(table);
  }
  try {
    tpch::generate({.scale_factor = scale, .seed = seed, .out = directory_, .tables = tables});
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove_all(directory_, ignored);
    throw;
  }
}

tpch_files::~tpch_files() {
  if (!generated_) return;
  std::error_code ignored;
  std::filesystem::remove_all(directory_, ignored);
}

timed_query run_timed_query(const query_choice& choice, const query::tpch_database& data, tasks::runtime& runtime,
                            const query::execution_options& options) {
  runtime.reset_statistics();
  const auto start = std::chrono::steady_clock::now();
  query::query_run run = choice.number ? query::run_tpch_query(*choice.number, data, runtime, {}, options)
                                       : query::run_micro_query(choice.micro, data, runtime, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const tasks::runtime_statistics statistics = runtime.statistics();
  return {std::move(run), seconds, statistics.tasks.prefetches, statistics.tasks.executed};
}

}  // namespace braid::bench
