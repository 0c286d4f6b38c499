// braid-bench's binary-search and linear-probe experiments with the generated IMLP lookups:
// every imlp technique name (the multi_find techniques, the layout / dispatch ablations and
// binary-search's branchy kernel) reaches a row of its own at groups 3 and 24, checked against
// the plain lookup by the harness (a differing answer fails the run); linear-probe's
// --set variant=mask|prime|serializing reaches its rows (the variant column, and a prime
// capacity for the prime table); an unknown variant is refused with exit status 2. Skipped in
// builds without the program.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bench_program.hpp"
#include "process.hpp"

namespace braid::bench {
namespace {

using test_support::program;

const std::vector<std::string> imlp_names = {"imlp-dynamic",     "imlp-static",       "imlp-hybrid",
                                             "imlp-dynamic-aos", "imlp-dynamic-goto", "imlp-static-aos"};

std::string technique_list(const std::vector<std::string>& names) {
  std::string list = "naive";
  for (const std::string& name : names) list += "," + name;
  return list;
}

// (structure, technique, group) of every row.
std::set<std::vector<std::string>> structure_technique_groups(const std::vector<test_support::row>& rows) {
  std::set<std::vector<std::string>> found;
  for (const test_support::row& fields : rows) found.insert({fields.at("structure"), fields.at("technique"), fields.at("group")});
  return found;
}

bool is_prime(std::uint64_t n) {
  if (n < 2) return false;
  for (std::uint64_t d = 2; d * d <= n; ++d) {
    if (n % d == 0) return false;
  }
  return true;
}

TEST(ImlpLookupBench, EveryImlpTechniqueOfBinarySearchRunsAtEveryGroupAndKeyType) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  std::vector<std::string> names = imlp_names;
  names.emplace_back("imlp-dynamic-branchy");
  const auto rows = structure_technique_groups(test_support::run_rows(
      "binary-search", {"--size", "64KiB", "--keys", "3000", "--group", "3,24", "--technique",
                        "naive-branchless," + technique_list(names), "--pages", "4k"}));
  for (const char* structure : {"sorted-array-int32", "sorted-array-int64", "sorted-array-string15"}) {
    for (const std::string& name : names) {
      for (const char* group : {"3", "24"}) {
        EXPECT_EQ(rows.count({structure, name, group}), 1u) << structure << ", " << name << " at group " << group;
      }
    }
  }
  EXPECT_EQ(rows.count({"sorted-array-int32", "coro", "3"}), 0u) << "a technique not asked for ran";
}

TEST(ImlpLookupBench, BinarySearchRunsTheGeneratedSearchesByDefaultAndTheAblationsOnlyWhenNamed) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  const auto rows = structure_technique_groups(
      test_support::run_rows("binary-search", {"--size", "64KiB", "--keys", "2000", "--group", "4", "--pages", "4k"}));
  for (const char* name : {"imlp-dynamic", "imlp-static", "imlp-hybrid", "imlp-dynamic-branchy"}) {
    EXPECT_EQ(rows.count({"sorted-array-int64", name, "4"}), 1u) << name;
  }
  EXPECT_EQ(rows.count({"sorted-array-int64", "imlp-dynamic-aos", "4"}), 0u);
}

TEST(ImlpLookupBench, EveryImlpTechniqueOfEachLinearProbeVariantRunsAtEveryGroup) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  for (const char* variant : {"mask", "prime", "serializing"}) {
    const auto rows = test_support::run_rows(
        "linear-probe", {"--size", "256KiB", "--keys", "3000", "--group", "3,24", "--technique",
                         technique_list(imlp_names), "--pages", "4k", "--set", std::string("variant=") + variant});
    ASSERT_FALSE(rows.empty()) << variant;
    EXPECT_EQ(test_support::values_of(rows, "variant"), std::set<std::string>{variant});
    const auto found = structure_technique_groups(rows);
    for (const std::string& name : imlp_names) {
      for (const char* group : {"3", "24"}) {
        EXPECT_EQ(found.count({"linear-probing-table", name, group}), 1u) << variant << ", " << name << " at " << group;
      }
    }
    for (const std::string& capacity : test_support::values_of(rows, "capacity")) {
      const std::uint64_t slots = std::stoull(capacity);
      if (std::string(variant) == "prime") {
        EXPECT_TRUE(is_prime(slots)) << capacity;
      } else {
        EXPECT_EQ(slots & (slots - 1), 0u) << variant << ": " << capacity << " is no power of two";
      }
    }
  }
}

TEST(ImlpLookupBench, LinearProbeRunsTheGeneratedProbesByDefault) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  const auto rows = test_support::run_rows("linear-probe", {"--size", "256KiB", "--keys", "2000", "--group", "8",
                                                            "--pages", "4k", "--set", "variant=prime"});
  const auto found = structure_technique_groups(rows);
  for (const char* name : {"naive", "gp", "amac", "coro", "fiber", "imlp-dynamic", "imlp-static", "imlp-hybrid"}) {
    EXPECT_EQ(found.count({"linear-probing-table", name, name == std::string("naive") ? "1" : "8"}), 1u) << name;
  }
  EXPECT_EQ(found.count({"linear-probing-table", "imlp-static-aos", "8"}), 0u);
}

TEST(ImlpLookupBench, UnknownVariantOrImlpNameIsRefused) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  test_support::expect_refused("linear-probe", {{{"--size", "256KiB", "--set", "variant=cuckoo"}, "variant=cuckoo"},
                                                {{"--size", "256KiB", "--technique", "imlp-static-goto"}, ""}});
  test_support::expect_refused("binary-search", {{{"--size", "64KiB", "--technique", "imlp-hybrid-branchy"}, ""}});
}

}  // namespace
}  // namespace braid::bench
