// braid-bench's bst experiment with the generated IMLP lookups: every imlp technique it names
// (the multi_find techniques and the layout / dispatch variants) reaches a row of its own at
// every group asked for, checked against the plain lookup's checksum by the harness; an
// unknown imlp name is refused with exit status 2; the layout and dispatch ablations run only
// when named. Skipped in builds without the program.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "bench_program.hpp"
#include "process.hpp"

namespace braid::bench {
namespace {

using test_support::program;

// (technique, group) of every CSV row of the output.
std::set<std::pair<std::string, std::string>> technique_groups(const program_result& result) {
  std::set<std::pair<std::string, std::string>> found;
  for (const test_support::row& fields : test_support::parse_csv(result).rows) {
    found.emplace(fields.at("technique"), fields.at("group"));
  }
  return found;
}

TEST(ImlpBench, EveryImlpTechniqueOfBstRunsAtEveryGroup) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  const std::vector<std::string> names = {"imlp-dynamic",     "imlp-static",       "imlp-hybrid",
                                          "imlp-dynamic-aos", "imlp-dynamic-goto", "imlp-static-aos"};
  std::string list = "naive";
  for (const std::string& name : names) list += "," + name;
  const program_result result = run_program({program, "run", "bst", "--size", "256KiB", "--group", "3,24", "--technique",
                                             list, "--repetitions", "1", "--pages", "4k", "--format", "csv"});
  ASSERT_EQ(result.exit_status, 0) << result.output;
  const auto rows = technique_groups(result);
  for (const std::string& name : names) {
    for (const char* group : {"3", "24"}) {
      EXPECT_EQ(rows.count({name, group}), 1u) << name << " at group " << group << "\n" << result.output;
    }
  }
  EXPECT_EQ(rows.count({"coro", "3"}), 0u) << "a technique not asked for ran";
}

TEST(ImlpBench, LayoutAndDispatchAblationsRunOnlyWhenNamed) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  const program_result result = run_program({program, "run", "bst", "--size", "256KiB", "--group", "4", "--repetitions",
                                             "1", "--pages", "4k", "--format", "csv"});
  ASSERT_EQ(result.exit_status, 0) << result.output;
  const auto rows = technique_groups(result);
  EXPECT_EQ(rows.count({"imlp-dynamic", "4"}), 1u) << result.output;
  EXPECT_EQ(rows.count({"imlp-dynamic-aos", "4"}), 0u) << result.output;
}

TEST(ImlpBench, UnknownImlpVariantIsRefused) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  const program_result result =
      run_program({program, "run", "bst", "--size", "256KiB", "--technique", "imlp-static-goto", "--format", "csv"});
  EXPECT_EQ(result.exit_status, 2) << result.output;
}

}  // namespace
}  // namespace braid::bench
