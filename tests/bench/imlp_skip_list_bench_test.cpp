// braid-bench's skip-list experiment with the hand-written GP and AMAC and the generated IMLP
// lookups and scans: every technique it names (gp, amac, the multi_find / multi_scan imlp
// techniques, the layout and dispatch ablations, and coro, coro-nta, fiber beside them) reaches
// a row of its own for lookups and for 1,000-entry scans at every group asked for, checked
// against the plain algorithm's checksum by the harness (a mismatch fails the run); they run by
// default, the ablations only when named; an unknown imlp name is refused with exit status 2.
// Skipped in builds without the program.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "bench_program.hpp"
#include "process.hpp"

namespace braid::bench {
namespace {

using test_support::program;

// The techniques the experiment runs by default, and the ablations it runs only when named.
const std::vector<std::string> default_names = {"gp",    "amac",         "coro",        "coro-nta",
                                                "fiber", "imlp-dynamic", "imlp-static", "imlp-hybrid"};
const std::vector<std::string> ablation_names = {"imlp-dynamic-aos", "imlp-dynamic-goto", "imlp-static-aos"};
const std::vector<std::string> operations = {"lookup", "scan-1000"};

using row_key = std::tuple<std::string, std::string, std::string>;  // technique, group, operation

std::set<row_key> technique_group_operations(const program_result& result) {
  std::set<row_key> found;
  for (const test_support::row& fields : test_support::parse_csv(result).rows) {
    found.emplace(fields.at("technique"), fields.at("group"), fields.at("operation"));
  }
  return found;
}

// `braid-bench run skip-list` on a small list, one repetition, 4 KiB pages, CSV; `extra` last.
program_result run_small_skip_list(const std::vector<std::string>& extra) {
  std::vector<std::string> command = {program,         "run",  "skip-list", "--size",   "256KiB", "--keys",
                                      "20000",         "--repetitions", "1", "--pages", "4k",     "--format",
                                      "csv"};
  command.insert(command.end(), extra.begin(), extra.end());
  return run_program(command);
}

TEST(ImlpSkipListBench, EveryTechniqueRunsLookupsAndScansAtEveryGroup) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  std::vector<std::string> names = default_names;
  names.insert(names.end(), ablation_names.begin(), ablation_names.end());
  std::string list = "naive";
  for (const std::string& name : names) list += "," + name;
  const program_result result = run_small_skip_list({"--group", "3,24", "--technique", list});
  ASSERT_EQ(result.exit_status, 0) << result.output;  // the harness's checksum check passed
  const auto rows = technique_group_operations(result);
  for (const std::string& operation : operations) {
    EXPECT_EQ(rows.count({"naive", "0", operation}), 1u) << operation << "\n" << result.output;
    for (const std::string& name : names) {
      for (const char* group : {"3", "24"}) {
        EXPECT_EQ(rows.count({name, group, operation}), 1u) << name << " at group " << group << ", " << operation;
      }
    }
  }
  EXPECT_EQ(rows.size(), operations.size() * (1 + 2 * names.size())) << "a technique not asked for ran\n"
                                                                      << result.output;
}

TEST(ImlpSkipListBench, StateMachinesRunByDefaultAndAblationsOnlyWhenNamed) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  const program_result result = run_small_skip_list({"--group", "4"});
  ASSERT_EQ(result.exit_status, 0) << result.output;
  const auto rows = technique_group_operations(result);
  for (const std::string& operation : operations) {
    for (const std::string& name : default_names) {
      EXPECT_EQ(rows.count({name, "4", operation}), 1u) << name << ", " << operation << "\n" << result.output;
    }
    for (const std::string& name : ablation_names) {
      EXPECT_EQ(rows.count({name, "4", operation}), 0u) << name << ", " << operation;
    }
  }
}

TEST(ImlpSkipListBench, UnknownImlpVariantIsRefused) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  const program_result result = run_small_skip_list({"--technique", "imlp-static-goto"});
  EXPECT_EQ(result.exit_status, 2) << result.output;
}

}  // namespace
}  // namespace braid::bench
