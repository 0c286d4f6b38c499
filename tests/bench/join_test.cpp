// braid-bench's join experiments as a user runs them: every option shows in what ran (sizes,
// probe tuples, groups, techniques, threads, distribution, pages, seed, the indexes), every
// technique of a phase agrees on the checksum, every probe tuple of the foreign-key join finds
// its one match, and bad values are refused with exit status 2 and one line. Skipped in builds
// without the program.
#include <gtest/gtest.h>

#include <algorithm>
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

std::vector<row> where(const std::vector<row>& rows, const std::string& field, const std::string& value) {
  std::vector<row> kept;
  std::copy_if(rows.begin(), rows.end(), std::back_inserter(kept), [&](const row& r) { return r.at(field) == value; });
  return kept;
}

TEST(JoinNoPartition, OptionsReachTheRun) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  const std::vector<row> rows =
      run_rows("join-no-partition", {"--size", "256KiB", "--keys", "3000", "--group", "3,5", "--technique", "naive,gp,coro",
                                  "--threads", "1,2", "--dist", "zipf:0.9", "--pages", "4k", "--repetitions", "1"});
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(values_of(rows, "phase"), (std::set<std::string>{"allocate", "build", "probe"}));
  EXPECT_EQ(values_of(rows, "structure"), (std::set<std::string>{"npo-hash-table"}));
  // 256 KiB of 64-byte buckets: 4096 buckets, |R| = 1.5 x 4096; S as --keys says, every tuple matching once.
  EXPECT_EQ(values_of(rows, "buckets"), (std::set<std::string>{"4096"}));
  EXPECT_EQ(values_of(rows, "build_tuples"), (std::set<std::string>{"6144"}));
  EXPECT_EQ(values_of(rows, "probe_tuples"), (std::set<std::string>{"3000"}));
  EXPECT_EQ(values_of(rows, "matches"), (std::set<std::string>{"3000"}));
  EXPECT_EQ(values_of(rows, "distribution"), (std::set<std::string>{"zipf:0.9"}));
  for (const std::string& pages : values_of(rows, "pages")) EXPECT_EQ(pages.substr(0, 2), "4k") << pages;

  const std::vector<row> probes = where(rows, "phase", "probe");
  EXPECT_EQ(values_of(probes, "technique"), (std::set<std::string>{"naive", "gp", "coro"}));
  EXPECT_EQ(values_of(probes, "group"), (std::set<std::string>{"1", "3", "5"}));
  EXPECT_EQ(values_of(probes, "threads"), (std::set<std::string>{"1", "2"}));
  EXPECT_EQ(values_of(probes, "ops"), (std::set<std::string>{"3000"}));
  EXPECT_EQ(probes.size(), 2u * 5u);  // per thread count: naive, gp and coro at 2 groups
  EXPECT_EQ(values_of(probes, "checksum").size(), 1u);
  for (const row& r : probes) {
    if (r.at("technique") == "naive") {
      EXPECT_EQ(std::stod(r.at("speedup_vs_naive")), 1.0);
    }
  }

  const std::vector<row> builds = where(rows, "phase", "build");
  EXPECT_EQ(values_of(builds, "technique"), (std::set<std::string>{"naive", "gp", "coro"}));
  EXPECT_EQ(values_of(builds, "threads"), (std::set<std::string>{"1"}));
  EXPECT_EQ(values_of(builds, "ops"), (std::set<std::string>{"6144"}));
  EXPECT_EQ(builds.size(), 5u);
  EXPECT_EQ(values_of(builds, "checksum").size(), 1u);
  for (const row& r : builds) {
    EXPECT_FALSE(r.at("allocate_ms").empty());
    // The inserts' own speedup is given when the builds took longer than the allocation, which
    // a build this small may not in a noisy run.
    if (r.contains("insert_speedup_vs_naive") && !r.at("insert_speedup_vs_naive").empty()) {
      EXPECT_GT(std::stod(r.at("insert_speedup_vs_naive")), 0.0);
    }
  }
  EXPECT_EQ(where(rows, "phase", "allocate").size(), 1u);

  // The distribution and the seed change the probe relation, and so the join's checksum.
  const std::vector<std::string> small = {"--size", "64KiB", "--keys", "500", "--group", "4", "--technique", "amac",
                                          "--repetitions", "1"};
  auto probe_checksum = [&](std::vector<std::string> extra) {
    std::vector<std::string> arguments = small;
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    return values_of(where(run_rows("join-no-partition", arguments), "phase", "probe"), "checksum");
  };
  const auto uniform = probe_checksum({"--dist", "uniform"});
  EXPECT_EQ(uniform.size(), 1u);
  EXPECT_NE(uniform, probe_checksum({"--dist", "zipf:0.99"}));
  EXPECT_NE(uniform, probe_checksum({"--dist", "uniform", "--seed", "99"}));
  EXPECT_EQ(uniform, probe_checksum({"--dist", "uniform"}));

  // --set phase picks the phases.
  std::vector<std::string> probe_only = small;
  probe_only.insert(probe_only.end(), {"--set", "phase=probe"});
  EXPECT_EQ(values_of(run_rows("join-no-partition", probe_only), "phase"), (std::set<std::string>{"probe"}));
  std::vector<std::string> build_only = small;
  build_only.insert(build_only.end(), {"--set", "phase=build"});
  const std::vector<row> built = run_rows("join-no-partition", build_only);
  EXPECT_EQ(values_of(built, "phase"), (std::set<std::string>{"allocate", "build"}));
  for (const row& r : built) EXPECT_GE(std::stoll(r.at("size_bytes")), 1024 * 64) << r.at("technique");
}

TEST(JoinNoPartition, QuickRunsEveryTechnique) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  const std::vector<row> rows = run_rows("join-no-partition", {"--quick"});
  ASSERT_FALSE(rows.empty());
  for (const std::string phase : {"build", "probe"}) {
    const std::vector<row> those = where(rows, "phase", phase);
    EXPECT_EQ(values_of(those, "technique"), (std::set<std::string>{"naive", "gp", "amac", "coro"})) << phase;
    EXPECT_EQ(values_of(those, "checksum").size(), 1u) << phase;
  }
}

TEST(JoinIndex, OptionsReachTheRun) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  const std::vector<row> rows =
      run_rows("join-index", {"--size", "64KiB", "--keys", "2000", "--group", "2,9", "--technique", "naive,gp,coro_nested",
                           "--set", "index=csb-plus-tree,masstree", "--dist", "sorted", "--repetitions", "1"});
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(values_of(rows, "structure"), (std::set<std::string>{"csb-plus-tree", "masstree"}));
  // The CSB+-tree has gp but no nested lookup, Masstree the reverse.
  EXPECT_EQ(values_of(where(rows, "structure", "csb-plus-tree"), "technique"), (std::set<std::string>{"naive", "gp"}));
  EXPECT_EQ(values_of(where(rows, "structure", "masstree"), "technique"),
            (std::set<std::string>{"naive", "coro_nested"}));
  EXPECT_EQ(values_of(rows, "group"), (std::set<std::string>{"1", "2", "9"}));
  EXPECT_EQ(values_of(rows, "build_tuples"), (std::set<std::string>{"4096"}));
  EXPECT_EQ(values_of(rows, "build_bytes"), (std::set<std::string>{"65536"}));
  for (const row& r : rows) EXPECT_GT(std::stoll(r.at("size_bytes")), 4096 * 16) << r.at("structure");  // the index
  EXPECT_EQ(values_of(rows, "ops"), (std::set<std::string>{"2000"}));
  EXPECT_EQ(values_of(rows, "matches"), (std::set<std::string>{"2000"}));
  EXPECT_EQ(values_of(rows, "distribution"), (std::set<std::string>{"sorted"}));
  EXPECT_EQ(values_of(rows, "checksum").size(), 1u);  // every index and technique: one join

  const std::vector<row> quick = run_rows("join-index", {"--quick"});
  EXPECT_EQ(values_of(quick, "structure"), (std::set<std::string>{"bplus-tree", "csb-plus-tree", "masstree"}));
  EXPECT_EQ(values_of(quick, "checksum").size(), 1u);
  EXPECT_EQ(values_of(where(quick, "structure", "bplus-tree"), "technique"),
            (std::set<std::string>{"naive", "coro", "coro_nested", "fiber", "adaptive"}));
}

TEST(JoinExperiments, RefuseBadValues) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  const std::vector<test_support::usage_error_case> cases = {
      {{"join-no-partition", "--technique", "fiber"}, "fiber"},
      {{"join-no-partition", "--group", "0"}, "--group"},
      {{"join-no-partition", "--set", "index=masstree"}, "not a setting"},
      {{"join-no-partition", "--set", "phase=join"}, "phase=join"},
      {{"join-index", "--set", "index=hash"}, "index=hash"},
      {{"join-index", "--threads", "2"}, "--threads"},
      {{"join-index", "--technique", "imlp-static"}, "imlp-static"},
  };
  expect_usage_errors(cases);
}

}  // namespace
}  // namespace braid::bench
