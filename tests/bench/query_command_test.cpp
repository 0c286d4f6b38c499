// braid-bench query end to end over TPC-H files written by the generator: every query's rows
// equal the row-at-a-time reference's, each option reaches the engine (the timing line shows
// what it changed), and bad input exits 2 with one line naming the problem.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "bench_program.hpp"
#include "braid/query/tpch_parameters.hpp"
#include "tpch.hpp"
#include "tpch_reference.hpp"

namespace braid::bench {
namespace {

using namespace test_support;

class QueryCommand : public bench_program_test {
 protected:
  static void SetUpTestSuite() {
    directory() = std::filesystem::temp_directory_path() / ("braid-query-command-" + std::to_string(::getpid()));
    std::filesystem::create_directories(directory());
    std::vector<tpch::table_id> tables;
    for (tpch::table_id table : tpch::all_tables) {
      if (table != tpch::table_id::partsupp) tables.push_back(table);
    }
    tpch::generate({.scale_factor = 0.01, .seed = 5, .out = directory(), .tables = tables});
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(directory()); }

  static std::filesystem::path& directory() {
    static std::filesystem::path path;
    return path;
  }
  static program_result query(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), {program, "query", "--data", directory().string()});
    return run_program(arguments);
  }
  // The timing lines of `query ARGUMENTS --quiet --format csv`, which must succeed.
  static std::vector<row> timing(std::vector<std::string> arguments) {
    arguments.insert(arguments.end(), {"--quiet", "--format", "csv"});
    const program_result result = query(arguments);
    EXPECT_EQ(result.exit_status, 0) << result.output;
    return parse_csv(result).rows;
  }
  static void expect_usage_error(std::vector<std::string> arguments, const std::string& expected) {
    arguments.insert(arguments.begin(), {program, "query"});
    const program_result result = run_program(arguments);
    EXPECT_EQ(result.exit_status, 2) << result.output;
    EXPECT_EQ(std::count(result.output.begin(), result.output.end(), '\n'), 1) << result.output;
    EXPECT_NE(result.output.find(expected), std::string::npos) << result.output;
  }
};

TEST_F(QueryCommand, PrintsEveryQuerysReferenceRows) {
  const program_result result = query({"--query", "all", "--workers", "2"});
  ASSERT_EQ(result.exit_status, 0) << result.output;
  for (int number : query::tpch_query_numbers) {
    const std::string expected =
        "-- q" + std::to_string(number) + "\n" + tpch::reference_query(number, directory()).to_string();
    EXPECT_NE(result.output.find(expected), std::string::npos) << "q" << number << ":\n" << result.output;
  }
}

// Each query alone loads only the columns its plan reads, and still returns the reference's rows.
TEST_F(QueryCommand, EachQueryAloneLoadsEnough) {
  for (int number : query::tpch_query_numbers) {
    const std::vector<row> rows = timing({"--query", std::to_string(number), "--verify"});
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].at("verified"), "reference") << number;
  }
}

TEST_F(QueryCommand, VerifyChecksAgainstTheReference) {
  const std::vector<row> rows = timing({"--query", "1,6,sum-quantity", "--verify"});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].at("verified"), "reference");
  EXPECT_EQ(rows[1].at("verified"), "reference");
  EXPECT_EQ(rows[2].at("verified"), "-");  // no reference for the micro queries
}

TEST_F(QueryCommand, EachOptionReachesTheEngine) {
  const row small = timing({"--query", "6", "--tuples-per-task", "32"}).at(0);
  const row large = timing({"--query", "6", "--tuples-per-task", "65536"}).at(0);
  EXPECT_GT(number(small, "fragments"), number(large, "fragments"));
  EXPECT_GT(number(small, "tasks"), number(large, "tasks"));
  EXPECT_EQ(small.at("tuples_per_task"), "32");

  EXPECT_EQ(number(timing({"--query", "6", "--prefetch", "none"}).at(0), "prefetches"), 0);
  EXPECT_GT(number(timing({"--query", "6", "--prefetch", "first_lines"}).at(0), "prefetches"), 0);

  EXPECT_EQ(timing({"--query", "1", "--workers", "2"}).at(0).at("workers"), "2");
  EXPECT_EQ(timing({"--query", "1", "--finalize", "sequential"}).at(0).at("finalize"), "sequential");
  EXPECT_EQ(timing({"--query", "3", "--no-bloom"}).at(0).at("bloom"), "off");
  EXPECT_EQ(timing({"--query", "6", "--repetitions", "3"}).at(0).at("repetitions"), "3");
  EXPECT_EQ(timing({"--query", "3", "--probe-group", "8"}).at(0).at("probe_group"), "8");
  // Every setting returns the reference's rows.
  for (const std::vector<std::string>& setting :
       std::vector<std::vector<std::string>>{{"--no-bloom"}, {"--finalize", "parallel"}, {"--prefetch", "whole_column"},
                                             {"--probe-group", "1"}, {"--probe-group", "64"}}) {
    std::vector<std::string> arguments = {"--query", "3,5,10", "--verify"};
    arguments.insert(arguments.end(), setting.begin(), setting.end());
    for (const row& r : timing(arguments)) EXPECT_EQ(r.at("verified"), "reference") << setting.front();
  }
}

TEST_F(QueryCommand, RefusesBadInput) {
  const std::string data = directory().string();
  expect_usage_error({"--query", "6"}, "--data");
  expect_usage_error({"--data", data}, "--query");
  expect_usage_error({"--data", data, "--query", "7"}, "query '7'");
  expect_usage_error({"--data", data, "--query", "6", "--workers", "0"}, "--workers");
  expect_usage_error({"--data", data, "--query", "6", "--prefetch", "some"}, "--prefetch");
  expect_usage_error({"--data", data, "--query", "6", "--finalize", "later"}, "--finalize");
  expect_usage_error({"--data", data, "--query", "6", "--tuples-per-task", "65537"}, "--tuples-per-task");
  expect_usage_error({"--data", data, "--query", "6", "--format", "json"}, "--format");
  expect_usage_error({"--data", data, "--query", "6", "--probe-group", "65"}, "--probe-group");
  expect_usage_error({"--data", data, "--query", "6", "--probe-group", "0"}, "--probe-group");
  expect_usage_error({"--data", data, "--query", "6", "--bogus", "1"}, "--bogus");
  expect_usage_error({"--data", (directory() / "nowhere").string(), "--query", "6"}, "missing");
}

}  // namespace
}  // namespace braid::bench
