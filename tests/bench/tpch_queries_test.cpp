// The query layer's experiments end to end: tpch-prefetch runs each strategy, checks them
// against each other and the reference, and reports the bandwidth share; tpch-task-size cuts
// lineitem into the fragment sizes asked for; every setting reaches its run.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "bench_program.hpp"
#include "tpch.hpp"

namespace braid::bench {
namespace {

using namespace test_support;

class QueryExperiments : public bench_program_test {};

TEST_F(QueryExperiments, PrefetchRunsEveryStrategyVerified) {
  const std::vector<row> rows = run_rows("tpch-prefetch", {"--quick", "--set", "queries=6,14", "--threads", "1"});
  ASSERT_EQ(rows.size(), 8u);
  EXPECT_EQ(values_of(rows, "structure"), (std::set<std::string>{"q6", "q14"}));
  EXPECT_EQ(values_of(rows, "technique"),
            (std::set<std::string>{"none", "first_lines", "whole_column", "automatic"}));
  for (const row& r : rows) {
    EXPECT_EQ(r.at("verified"), "reference");
    EXPECT_GT(number(r, "bandwidth_fraction"), 0);
    EXPECT_GT(number(r, "bytes_accessed"), 0);
    if (r.at("technique") == "none") {
      EXPECT_EQ(number(r, "prefetches"), 0);
      EXPECT_DOUBLE_EQ(number(r, "speedup_vs_naive"), 1.0);
    } else {
      EXPECT_GT(number(r, "prefetches"), 0) << r.at("technique");
    }
  }
}

TEST_F(QueryExperiments, PrefetchSettingsReachTheRun) {
  const auto fragments = [](const std::vector<row>& rows) { return number(rows.at(0), "ops"); };
  const std::vector<row> small =
      run_rows("tpch-prefetch", {"--quick", "--set", "queries=1", "--threads", "2", "--technique", "none",
                                 "--set", "tuples=32", "--set", "finalize=sequential", "--set", "verify=off"});
  const std::vector<row> large = run_rows("tpch-prefetch", {"--quick", "--set", "queries=1", "--threads", "1",
                                                            "--technique", "automatic", "--set", "tuples=4096"});
  ASSERT_EQ(small.size(), 1u);
  ASSERT_EQ(large.size(), 1u);
  EXPECT_GT(fragments(small), fragments(large));
  EXPECT_EQ(small[0].at("finalize"), "sequential");
  EXPECT_EQ(small[0].at("threads"), "2");
  EXPECT_EQ(small[0].at("verified"), "strategies agree");
  EXPECT_EQ(large[0].at("verified"), "reference");
  EXPECT_EQ(large[0].at("tuples_per_task"), "4096");

  // --set data reads the given directory (a scale the generator default would not give).
  const std::filesystem::path directory =
      std::filesystem::temp_directory_path() / ("braid-tpch-queries-" + std::to_string(::getpid()));
  std::filesystem::create_directories(directory);
  std::vector<tpch::table_id> tables;
  for (tpch::table_id table : tpch::all_tables) {
    if (table != tpch::table_id::partsupp) tables.push_back(table);
  }
  tpch::generate({.scale_factor = 0.002, .seed = 9, .out = directory, .tables = tables});
  const std::vector<row> given = run_rows("tpch-prefetch", {"--quick", "--set", "queries=6", "--threads", "1",
                                                            "--technique", "none", "--set", "data=" + directory.string(),
                                                            "--set", "tuples=32"});
  std::filesystem::remove_all(directory);
  ASSERT_EQ(given.size(), 1u);
  EXPECT_LT(number(given[0], "ops"), fragments(small));  // SF 0.002 has fewer fragments than 0.01
  EXPECT_EQ(given[0].at("verified"), "reference");
}

TEST_F(QueryExperiments, JoinProbesCompareGroupsWithOneAtATime) {
  const std::vector<row> rows =
      run_rows("tpch-join-probes", {"--quick", "--set", "queries=3,12", "--threads", "2", "--group", "4,64"});
  ASSERT_EQ(rows.size(), 6u);  // two queries x groups 1 (added), 4, 64
  EXPECT_EQ(values_of(rows, "group"), (std::set<std::string>{"1", "4", "64"}));
  for (const row& r : rows) {
    EXPECT_EQ(r.at("technique"), r.at("group") == "1" ? "naive" : "gp");
    EXPECT_EQ(r.at("threads"), "2");
    if (r.at("group") == "1") {
      EXPECT_DOUBLE_EQ(number(r, "speedup_vs_naive"), 1.0);
    }
  }
}

TEST_F(QueryExperiments, TaskSizeSweepsFragmentSizes) {
  const std::vector<row> rows = run_rows("tpch-task-size", {"--quick", "--threads", "1", "--set", "tuples=32,65536",
                                                            "--set", "prefetch=none"});
  ASSERT_EQ(rows.size(), 4u);  // two queries x two sizes
  EXPECT_EQ(values_of(rows, "structure"), (std::set<std::string>{"sum-quantity", "q1-unfiltered"}));
  EXPECT_EQ(values_of(rows, "tuples_per_task"), (std::set<std::string>{"32", "65536"}));
  EXPECT_EQ(values_of(rows, "technique"), (std::set<std::string>{"none"}));
  double tasks_small = 0, tasks_large = 0, best_overhead = 1;
  for (const row& r : rows) {
    if (r.at("structure") != "sum-quantity") continue;
    (r.at("tuples_per_task") == "32" ? tasks_small : tasks_large) = number(r, "tasks");
    EXPECT_GE(number(r, "overhead_vs_best"), 0);
    best_overhead = std::min(best_overhead, number(r, "overhead_vs_best"));
  }
  EXPECT_GT(tasks_small, tasks_large);
  EXPECT_DOUBLE_EQ(best_overhead, 0);
}

TEST_F(QueryExperiments, RefusesBadSettings) {
  expect_usage_errors({
      {{"tpch-prefetch", "--set", "scale=0"}, "--set scale=0"},
      {{"tpch-prefetch", "--set", "queries=7"}, "query '7'"},
      {{"tpch-prefetch", "--set", "tuples=16"}, "--set tuples=16"},
      {{"tpch-prefetch", "--set", "finalize=later"}, "--set finalize=later"},
      {{"tpch-prefetch", "--set", "verify=maybe"}, "--set verify=maybe"},
      {{"tpch-prefetch", "--set", "data=/nonexistent-braid-dir"}, "missing"},
      {{"tpch-task-size", "--set", "prefetch=some"}, "--set prefetch=some"},
      {{"tpch-join-probes", "--group", "65"}, "--group 65"},
      {{"tpch-join-probes", "--set", "prefetch=some"}, "--set prefetch=some"},
      {{"tpch-task-size", "--set", "queries=6"}, "not q6"},
  });
}

}  // namespace
}  // namespace braid::bench
