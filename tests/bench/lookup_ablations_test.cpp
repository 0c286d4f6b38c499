// braid-bench's lookup experiments (linear-probe, hash-probe, binary-search) and the coroutine
// ablations they run only when named: coro-per-key (a chained coroutine per lookup, beside
// coro's long-lived ones), coro-interleaved (a coroutine per lookup on an
// interleaved_scheduler) and coro-t0 (the other prefetch hint) at
// every group asked for, coro-sequential once per structure. Each reaches a row of its own for
// every structure of the experiment, checked against the plain lookup by the harness (a
// differing answer fails the run), and none of them runs unless named. Skipped in builds
// without the program.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "bench_program.hpp"

namespace braid::bench {
namespace {

using test_support::program;

struct lookup_experiment {
  std::string name;
  std::vector<std::string> structures;
  std::vector<std::string> arguments;  // a small table on 4 KiB pages
};

const std::vector<lookup_experiment> experiments = {
    {"linear-probe", {"linear-probing-table"}, {"--size", "256KiB", "--keys", "3000", "--pages", "4k"}},
    {"hash-probe",
     {"chained-hash-100k-buckets", "chained-hash-bucket-per-key"},
     {"--size", "256KiB", "--keys", "3000", "--pages", "4k"}},
    {"binary-search",
     {"sorted-array-int32", "sorted-array-int64", "sorted-array-string15"},
     {"--size", "64KiB", "--keys", "3000", "--pages", "4k"}},
};

// (structure, technique, group) of every row.
std::set<std::vector<std::string>> structure_technique_groups(const std::vector<test_support::row>& rows) {
  std::set<std::vector<std::string>> found;
  for (const test_support::row& fields : rows) found.insert({fields.at("structure"), fields.at("technique"), fields.at("group")});
  return found;
}

TEST(LookupAblations, EveryNamedCoroutineAblationRunsForEveryStructureAtEveryGroup) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  for (const lookup_experiment& experiment : experiments) {
    std::vector<std::string> arguments = experiment.arguments;
    // The three experiments prefetch with NTA by default, so the other hint is T0.
    arguments.insert(arguments.end(),
                     {"--group", "3,24", "--technique", "coro,coro-per-key,coro-interleaved,coro-t0,coro-sequential"});
    const auto found = structure_technique_groups(test_support::run_rows(experiment.name, arguments));
    for (const std::string& structure : experiment.structures) {
      for (const char* name : {"coro", "coro-per-key", "coro-interleaved", "coro-t0"}) {
        for (const char* group : {"3", "24"}) {
          EXPECT_EQ(found.count({structure, name, group}), 1u)
              << experiment.name << ", " << structure << ": " << name << " at group " << group;
        }
      }
      EXPECT_EQ(found.count({structure, "coro-sequential", "1"}), 1u) << experiment.name << ", " << structure;
      EXPECT_EQ(found.count({structure, "amac", "3"}), 0u) << experiment.name << ": a technique not asked for ran";
    }
  }
}

TEST(LookupAblations, TheAblationsRunOnlyWhenNamed) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  for (const lookup_experiment& experiment : experiments) {
    std::vector<std::string> arguments = experiment.arguments;
    arguments.insert(arguments.end(), {"--group", "4"});
    const auto rows = test_support::run_rows(experiment.name, arguments);
    const std::set<std::string> techniques = test_support::values_of(rows, "technique");
    EXPECT_EQ(techniques.count("coro"), 1u) << experiment.name;
    for (const char* ablation : {"coro-per-key", "coro-interleaved", "coro-t0", "coro-sequential"}) {
      EXPECT_EQ(techniques.count(ablation), 0u) << experiment.name << " ran " << ablation << " unasked";
    }
  }
}

}  // namespace
}  // namespace braid::bench
