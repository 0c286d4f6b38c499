// braid-bench join end to end over TPC-H files written by the generator: every algorithm
// returns the multimap oracle's matches and checksum for customer ⋈ orders on the customer
// key, each option reaches the join (a value the join refuses exits 2, a materialized file
// holds the oracle's rows), and bad input exits 2 with one line naming the problem.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench_program.hpp"
#include "braid/join/tbl_reader.hpp"
#include "join/reference_join.hpp"
#include "tpch.hpp"

namespace braid::bench {
namespace {

using namespace test_support;

class JoinCommand : public bench_program_test {
 protected:
  static void SetUpTestSuite() {
    directory() = std::filesystem::temp_directory_path() / ("braid-join-command-" + std::to_string(::getpid()));
    std::filesystem::create_directories(directory());
    tpch::generate({.scale_factor = 0.01, .seed = 3, .out = directory(),
                    .tables = {tpch::table_id::customer, tpch::table_id::orders}});
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(directory()); }

  static std::filesystem::path& directory() {
    static std::filesystem::path path;
    return path;
  }
  static std::string file(const std::string& name) { return (directory() / name).string(); }

  // customer ⋈ orders on c_custkey = o_custkey, payloads the row numbers.
  static std::vector<std::string> customer_orders() {
    return {"--build", file("customer.tbl"), "--build-key", "0", "--probe", file("orders.tbl"), "--probe-key", "1"};
  }
  static run_output join(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), {program, "join"});
    arguments.insert(arguments.end(), {"--format", "csv"});
    return parse_csv(run_program(arguments));
  }
  static join::join_output oracle(std::optional<std::size_t> build_payload = std::nullopt) {
    return join::testing::reference_join(join::load_join_relation(file("customer.tbl"), 0, build_payload),
                                         join::load_join_relation(file("orders.tbl"), 1));
  }
  static void expect_usage_error(std::vector<std::string> arguments, const std::string& expected) {
    arguments.insert(arguments.begin(), {program, "join"});
    const program_result result = run_program(arguments);
    EXPECT_EQ(result.exit_status, 2) << result.output;
    EXPECT_NE(result.output.find(expected), std::string::npos) << result.output;
  }
};

TEST_F(JoinCommand, EveryAlgorithmReturnsTheOraclesResult) {
  const join::join_output expected = oracle();
  ASSERT_EQ(expected.result().matches, 15'000u);  // every order's customer exists
  auto arguments = customer_orders();
  arguments.insert(arguments.end(), {"--algorithm", "all", "--repetitions", "1"});
  const run_output output = join(arguments);
  ASSERT_EQ(output.exit_status, 0) << output.text;
  ASSERT_EQ(output.rows.size(), 6u) << output.text;
  for (const row& fields : output.rows) {
    EXPECT_EQ(fields.at("matches"), std::to_string(expected.result().matches)) << fields.at("algorithm");
    EXPECT_EQ(fields.at("checksum"), std::to_string(expected.result().checksum)) << fields.at("algorithm");
    EXPECT_EQ(fields.at("build_rows"), "1500");
    EXPECT_EQ(fields.at("probe_rows"), "15000");
  }
}

TEST_F(JoinCommand, OptionsReachTheJoin) {
  for (const char* technique : {"naive", "gp", "amac", "coro"}) {
    for (const char* threads : {"1", "2"}) {
      auto arguments = customer_orders();
      arguments.insert(arguments.end(), {"--algorithm", "no-partition,radix,micro-radix", "--technique", technique,
                                         "--group", "5", "--threads", threads, "--bits", "3", "--fragment", "64",
                                         "--prefetch", "512", "--write-combine", "--repetitions", "1"});
      const run_output output = join(arguments);
      ASSERT_EQ(output.exit_status, 0) << output.text;
      ASSERT_EQ(output.rows.size(), 3u);
      EXPECT_EQ(output.rows[0].at("technique"), technique);
      EXPECT_EQ(output.rows[0].at("group"), std::string(technique) == "naive" ? "1" : "5");
      for (const row& fields : output.rows) EXPECT_EQ(fields.at("threads"), threads);
      EXPECT_EQ(output.rows[1].at("radix_bits"), "3");
      EXPECT_EQ(output.rows[2].at("fragment_tuples"), "64");
      EXPECT_EQ(output.rows[2].at("prefetch_bytes"), "512");
      EXPECT_EQ(output.rows[1].at("write_combine"), "on");
      EXPECT_EQ(output.rows[0].at("checksum"), output.rows[2].at("checksum"));
    }
  }
  // The payload columns change what is joined: c_nationkey (column 3) as R's payload.
  auto arguments = customer_orders();
  arguments.insert(arguments.end(), {"--build-payload", "3", "--algorithm", "radix", "--passes", "2", "--repetitions", "1"});
  const run_output output = join(arguments);
  ASSERT_EQ(output.exit_status, 0) << output.text;
  EXPECT_EQ(output.rows.at(0).at("checksum"), std::to_string(oracle(3).result().checksum));
  EXPECT_EQ(output.rows.at(0).at("passes"), "2");
  // Values only the join can refuse exit 2: they reached it.
  auto refused = customer_orders();
  refused.insert(refused.end(), {"--algorithm", "micro-radix", "--fragment", "3"});
  expect_usage_error(refused, "micro-radix");
  refused = customer_orders();
  refused.insert(refused.end(), {"--algorithm", "no-partition", "--technique", "fiber"});
  expect_usage_error(refused, "no-partition");
  refused = customer_orders();
  refused.insert(refused.end(), {"--algorithm", "radix", "--passes", "2", "--bits", "1"});
  expect_usage_error(refused, "radix");
}

TEST_F(JoinCommand, MaterializesTheOraclesRows) {
  const std::string out = file("joined.tbl");
  auto arguments = customer_orders();
  arguments.insert(arguments.end(), {"--algorithm", "micro-radix,no-partition", "--materialize", out, "--repetitions", "1"});
  ASSERT_EQ(join(arguments).exit_status, 0);
  std::ostringstream expected;
  const join::join_output oracle_rows = oracle();
  for (const join::joined_tuple& row : oracle_rows.rows())
    expected << row.key << '|' << row.build_payload << '|' << row.probe_payload << "|\n";
  std::ifstream written(out);
  std::ostringstream text;
  text << written.rdbuf();
  EXPECT_EQ(text.str(), expected.str());
}

TEST_F(JoinCommand, RefusesBadInput) {
  expect_usage_error({"--build", file("customer.tbl"), "--build-key", "0"}, "--probe");
  expect_usage_error({"--build", file("customer.tbl"), "--probe", file("orders.tbl"), "--probe-key", "1"}, "--build-key");
  expect_usage_error({"--build", file("absent.tbl"), "--build-key", "0", "--probe", file("orders.tbl"), "--probe-key", "1"},
                     "absent.tbl");
  // c_name is not an integer key: the first row's line is named.
  expect_usage_error({"--build", file("customer.tbl"), "--build-key", "1", "--probe", file("orders.tbl"), "--probe-key", "1"},
                     "customer.tbl:1");
  {
    std::ofstream broken(file("broken.tbl"));
    broken << "1|2|\n3|x|\n";
  }
  expect_usage_error({"--build", file("broken.tbl"), "--build-key", "1", "--probe", file("orders.tbl"), "--probe-key", "1"},
                     "broken.tbl:2");
  // An index holds each key once: orders on o_custkey repeats keys.
  expect_usage_error({"--build", file("orders.tbl"), "--build-key", "1", "--probe", file("customer.tbl"), "--probe-key",
                      "0", "--algorithm", "index-bplus"},
                     "index-bplus");
  auto arguments = customer_orders();
  arguments.insert(arguments.end(), {"--algorithm", "hash-everything"});
  expect_usage_error(arguments, "unknown algorithm");
  arguments = customer_orders();
  arguments.insert(arguments.end(), {"--group", "0"});
  expect_usage_error(arguments, "--group");
  arguments = customer_orders();
  arguments.insert(arguments.end(), {"--threads", "x"});
  expect_usage_error(arguments, "--threads");
  arguments = customer_orders();
  arguments.insert(arguments.end(), {"--frobnicate", "1"});
  expect_usage_error(arguments, "unknown option");
}

}  // namespace
}  // namespace braid::bench
