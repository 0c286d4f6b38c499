// braid-bench's radix-partition and radix-join experiments as a user runs them: every option
// and setting shows in what ran (sizes, radix bits, fragment capacities, write-combining,
// passes, prefetch, build size, threads, techniques, the micro join's schedule), the rows per
// phase are there, every technique agrees on the checksum, and bad values are refused with
// exit status 2 and one line.
// Skipped in builds without the program.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bench_program.hpp"
#include "process.hpp"

namespace braid::bench {
namespace {

using test_support::program;
using test_support::row;
using test_support::run_rows;
using test_support::values_of;
using test_support::expect_usage_errors;

TEST(RadixPartitionExperiment, OptionsReachTheRun) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  const std::vector<row> rows = run_rows("radix-partition", {"--size", "1MiB,256KiB", "--set", "bits=3,7", "--set",
                                                          "fragment=64,128", "--set", "wc=on", "--set", "passes=2"});
  ASSERT_EQ(rows.size(), 2u * 2u * 3u) << "sizes x bits x (classical + two capacities)";
  EXPECT_EQ(values_of(rows, "size_bytes"), (std::set<std::string>{"1048576", "262144"}));
  EXPECT_EQ(values_of(rows, "ops"), (std::set<std::string>{"65536", "16384"}));
  EXPECT_EQ(values_of(rows, "bits"), (std::set<std::string>{"3", "7"}));
  EXPECT_EQ(values_of(rows, "fragment_tuples"), (std::set<std::string>{"0", "64", "128"}));
  EXPECT_EQ(values_of(rows, "wc"), (std::set<std::string>{"on"}));
  EXPECT_EQ(values_of(rows, "technique"), (std::set<std::string>{"classical", "micro"}));
  std::map<std::string, std::set<std::string>> checksums;
  for (const row& r : rows) {
    EXPECT_EQ(r.at("passes"), r.at("technique") == "classical" ? "2" : "1");
    EXPECT_FALSE(r.at("speedup_vs_classical").empty());
    EXPECT_NE(r.at("note").find("STLB"), std::string::npos);
    checksums[r.at("size_bytes") + "/" + r.at("bits")].insert(r.at("checksum"));
  }
  for (const auto& [configuration, values] : checksums) EXPECT_EQ(values.size(), 1u) << configuration;

  const std::vector<row> micro_only = run_rows("radix-partition", {"--quick", "--size", "64KiB", "--technique", "micro",
                                                                "--set", "bits=5", "--set", "fragment=256"});
  ASSERT_EQ(micro_only.size(), 2u) << "wc off and on";
  EXPECT_EQ(values_of(micro_only, "technique"), (std::set<std::string>{"micro"}));
  EXPECT_EQ(values_of(micro_only, "wc"), (std::set<std::string>{"off", "on"}));
  EXPECT_EQ(values_of(micro_only, "bits"), (std::set<std::string>{"5"}));
}

TEST(RadixJoinExperiment, OptionsReachTheRun) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  const std::vector<row> rows =
      run_rows("radix-join", {"--quick", "--size", "1MiB", "--threads", "1", "--set", "bits=5", "--set", "fragment=64",
                           "--set", "prefetch=512", "--set", "build=128KiB", "--set", "passes=2", "--set", "wc=on"});
  ASSERT_EQ(rows.size(), 2u * 3u) << "(classical + one capacity) x three phases";
  EXPECT_EQ(values_of(rows, "phase"), (std::set<std::string>{"partition", "build+probe", "total"}));
  EXPECT_EQ(values_of(rows, "threads"), (std::set<std::string>{"1"}));
  EXPECT_EQ(values_of(rows, "bits"), (std::set<std::string>{"5"}));
  EXPECT_EQ(values_of(rows, "fragment_tuples"), (std::set<std::string>{"0", "64"}));
  EXPECT_EQ(values_of(rows, "build_bytes"), (std::set<std::string>{"131072"}));
  EXPECT_EQ(values_of(rows, "ops"), (std::set<std::string>{std::to_string((131072 + 1048576) / 16)}));
  EXPECT_EQ(values_of(rows, "wc"), (std::set<std::string>{"on"}));
  EXPECT_EQ(values_of(rows, "checksum").size(), 1u) << "both joins find the same matches";
  for (const row& r : rows) {
    const bool micro = r.at("technique") == "micro";
    EXPECT_EQ(r.at("prefetch_bytes"), micro ? "512" : "0");
    EXPECT_EQ(r.at("passes"), micro ? "1" : "2");
    EXPECT_FALSE(r.at("tuples_per_s").empty());
  }

  const std::vector<row> two_threads =
      run_rows("radix-join", {"--quick", "--size", "512KiB", "--threads", "2", "--set", "bits=3", "--technique", "micro"});
  ASSERT_EQ(two_threads.size(), 2u * 3u) << "two default capacities x three phases";
  EXPECT_EQ(values_of(two_threads, "threads"), (std::set<std::string>{"2"}));
  EXPECT_EQ(values_of(two_threads, "bits"), (std::set<std::string>{"3"}));
  EXPECT_EQ(values_of(two_threads, "technique"), (std::set<std::string>{"micro"}));
  EXPECT_EQ(values_of(two_threads, "fragment_tuples"), (std::set<std::string>{"128", "256"}));
  EXPECT_EQ(values_of(two_threads, "prefetch_bytes"), (std::set<std::string>{"1024"}));
  EXPECT_EQ(values_of(two_threads, "schedule"), (std::set<std::string>{"pairs"})) << "the default";

  const std::vector<row> schedules =
      run_rows("radix-join", {"--quick", "--size", "512KiB", "--threads", "2", "--set", "bits=4", "--set", "fragment=128",
                           "--set", "schedule=phases,pairs"});
  ASSERT_EQ(schedules.size(), 3u * 3u) << "(classical + micro per schedule) x three phases";
  EXPECT_EQ(values_of(schedules, "schedule"), (std::set<std::string>{"", "phases", "pairs"}));
  EXPECT_EQ(values_of(schedules, "checksum").size(), 1u) << "both schedules find the same matches";
  for (const row& r : schedules) EXPECT_EQ(r.at("schedule").empty(), r.at("technique") == "classical");
}

TEST(RadixExperiments, RefuseBadValues) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  const std::vector<test_support::usage_error_case> cases = {
      {{"radix-partition", "--set", "bits=0"}, "bits=0"},
      {{"radix-partition", "--set", "bits=21"}, "bits=21"},
      {{"radix-partition", "--set", "bits=x"}, "bits=x"},
      {{"radix-partition", "--set", "fragment=100"}, "fragment=100"},
      {{"radix-partition", "--set", "fragment=0"}, "fragment=0"},
      {{"radix-partition", "--set", "wc=maybe"}, "wc=maybe"},
      {{"radix-partition", "--set", "passes=3"}, "passes=3"},
      {{"radix-partition", "--technique", "hash"}, "hash"},
      {{"radix-join", "--set", "prefetch=70000"}, "prefetch=70000"},
      {{"radix-join", "--set", "wc=on,off"}, "wc"},
      {{"radix-join", "--set", "bits=1", "--set", "passes=2"}, "passes=2"},
      {{"radix-join", "--set", "build=lots"}, "build"},
      {{"radix-join", "--threads", "0"}, "--threads"},
      {{"radix-join", "--set", "schedule=sometimes"}, "schedule=sometimes"},
  };
  expect_usage_errors(cases);
}

}  // namespace
}  // namespace braid::bench
