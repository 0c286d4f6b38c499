// task-cost run as a user runs it: --keys (tasks per pass), --group (chains) and --technique
// reach the rows, every technique's pass computed the plain loop's sums (the program fails
// otherwise; the rows show the checksum), and bad values are refused with exit status 2.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "bench_program.hpp"

namespace braid::bench {
namespace {

using namespace test_support;

using TaskCost = bench_program_test;

run_output bench(const std::vector<std::string>& arguments) { return run_experiment_csv("task-cost", arguments); }

TEST_F(TaskCost, EveryOptionReachesTheRows) {
  const run_output run =
      bench({"--keys", "3001", "--group", "1,7", "--technique", "chain,spawn-local,spawn-remote", "--repetitions", "1"});
  ASSERT_EQ(run.exit_status, 0) << run.text;
  std::set<std::string> passes;
  std::map<std::string, std::set<std::string>> checksums_by_group;
  for (const row& fields : run.rows) {
    EXPECT_EQ(fields.at("experiment"), "task-cost");
    const std::string& technique = fields.at("technique");
    const auto chains = static_cast<int>(number(fields, "group"));
    passes.insert(technique + "@" + fields.at("group"));
    // Each chain's last task runs once more to report its sum.
    EXPECT_EQ(number(fields, "ops"), technique == "plain" ? 3001 : 3001 + chains) << technique;
    EXPECT_EQ(number(fields, "threads"), technique == "spawn-remote" ? 2 : 1) << technique;
    EXPECT_EQ(fields.at("unit"), technique == "plain" ? "loop step" : "task");
    EXPECT_GT(number(fields, "cycles_per_op"), 0);
    checksums_by_group[fields.at("group")].insert(fields.at("checksum"));
  }
  EXPECT_EQ(passes, (std::set<std::string>{"plain@1", "chain@1", "spawn-local@1", "spawn-remote@1", "plain@7", "chain@7",
                                           "spawn-local@7", "spawn-remote@7"}));
  // One checksum per chain count (every technique summed what the plain loop summed), and the
  // chains' starting points change it.
  ASSERT_EQ(checksums_by_group.size(), 2u);
  EXPECT_EQ(checksums_by_group["1"].size(), 1u);
  EXPECT_EQ(checksums_by_group["7"].size(), 1u);
  EXPECT_NE(*checksums_by_group["1"].begin(), *checksums_by_group["7"].begin());

  const run_output optimistic = bench({"--keys", "500", "--group", "3", "--technique", "chain-optimistic", "--repetitions", "1"});
  ASSERT_EQ(optimistic.exit_status, 0) << optimistic.text;
  std::set<std::string> techniques;
  for (const row& fields : optimistic.rows) techniques.insert(fields.at("technique"));
  EXPECT_EQ(techniques, (std::set<std::string>{"plain", "chain-optimistic"}));
}

TEST_F(TaskCost, RefusesBadValues) {
  expect_refused("task-cost", {{{"--keys", "4", "--group", "5"}, "at least the number of chains"},
                               {{"--keys", "0"}, "--keys"},
                               {{"--keys", "4294967296"}, "below 2^32"},
                               {{"--keys", "100", "--threads", "2"}, "not an option"},
                               {{"--keys", "100", "--technique", "chain-teleport"}, "unknown technique"}});
}

}  // namespace
}  // namespace braid::bench
