// braid-bench's column-store experiments as a user runs them: every option and setting shows
// in what ran (sizes, rows, list size, fragments, widths, groups, techniques), every technique
// of a pass agrees on the checksum, and bad values are refused with exit status 2 and one line.
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

TEST(ColumnInPredicate, OptionsReachTheRun) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  const std::vector<row> rows = run_rows("column-in-predicate", {"--size", "64KiB,256KiB", "--keys", "5000", "--group", "3,5",
                                                             "--technique", "naive,gp,coro_nested", "--set", "list=123",
                                                             "--pages", "4k"});
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(values_of(rows, "size_bytes"), (std::set<std::string>{"65536", "262144"}));
  EXPECT_EQ(values_of(rows, "rows"), (std::set<std::string>{"5000"}));
  EXPECT_EQ(values_of(rows, "list_values"), (std::set<std::string>{"123"}));
  EXPECT_EQ(values_of(rows, "group"), (std::set<std::string>{"1", "3", "5"}));
  EXPECT_EQ(values_of(rows, "technique"), (std::set<std::string>{"naive", "gp", "coro_nested"}));
  EXPECT_EQ(values_of(rows, "structure"), (std::set<std::string>{"column-main", "column-delta"}));
  EXPECT_EQ(values_of(rows, "phase"), (std::set<std::string>{"locate", "query"}));
  EXPECT_EQ(values_of(rows, "type"), (std::set<std::string>{"int64"}));  // the default
  // Delta has no gp (but a nested form); every technique agrees with naive on each fragment, size and phase.
  std::set<std::string> delta_techniques;
  std::map<std::string, std::set<std::string>> checksums;
  for (const row& r : rows) {
    EXPECT_FALSE(r.at("structure") == "column-delta" && r.at("technique") == "gp");
    checksums[r.at("structure") + r.at("size_bytes") + r.at("phase")].insert(r.at("checksum"));
    if (r.at("structure") == "column-delta") delta_techniques.insert(r.at("technique"));
  }
  EXPECT_EQ(delta_techniques, (std::set<std::string>{"naive", "coro_nested"}));
  // A nested locate's chain of frames is larger than no frame at all (naive, gp).
  for (const row& r : rows) {
    if (r.at("technique") == "coro_nested") {
      EXPECT_GT(std::stoll(r.at("frame_bytes")), 0) << r.at("structure");
    } else {
      EXPECT_EQ(r.at("frame_bytes"), "0") << r.at("technique");
    }
  }
  for (const auto& [pass, sums] : checksums) EXPECT_EQ(sums.size(), 1u) << pass;
  // The query's checksum is the count of matching rows: Main and Delta hold the same rows.
  for (const std::string size : {"65536", "262144"}) {
    std::set<std::string> counts;
    for (const row& r : rows) {
      if (r.at("phase") == "query" && r.at("size_bytes") == size) counts.insert(r.at("checksum"));
    }
    EXPECT_EQ(counts.size(), 1u) << size;
  }
  const std::vector<row> main_only = run_rows("column-in-predicate", {"--size", "64KiB", "--keys", "100", "--group", "2",
                                                                  "--set", "fragment=main"});
  EXPECT_EQ(values_of(main_only, "structure"), (std::set<std::string>{"column-main"}));
  const std::vector<row> delta_only = run_rows("column-in-predicate", {"--size", "64KiB", "--keys", "100", "--group", "2",
                                                                   "--set", "fragment=delta"});
  EXPECT_EQ(values_of(delta_only, "structure"), (std::set<std::string>{"column-delta"}));
}

// --set type=varchar: a VARCHAR column, Main's front-coded dictionary and Delta's tree over
// string codes; every technique agrees with naive per fragment, size and phase; Main has gp
// and amac, Delta never (nor fiber, which neither string structure has).
TEST(ColumnInPredicate, VarcharReachesTheRun) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  const std::vector<row> rows = run_rows("column-in-predicate", {"--size", "64KiB,256KiB", "--keys", "3000", "--group", "4",
                                                             "--set", "type=varchar", "--set", "list=400", "--pages", "4k"});
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(values_of(rows, "type"), (std::set<std::string>{"varchar"}));
  EXPECT_EQ(values_of(rows, "size_bytes"), (std::set<std::string>{"65536", "262144"}));
  EXPECT_EQ(values_of(rows, "phase"), (std::set<std::string>{"locate", "query"}));
  EXPECT_EQ(values_of(rows, "ops"), (std::set<std::string>{"400"}));
  std::map<std::string, std::set<std::string>> techniques;
  std::map<std::string, std::set<std::string>> checksums;
  for (const row& r : rows) {
    techniques[r.at("structure")].insert(r.at("technique"));
    checksums[r.at("structure") + " " + r.at("size_bytes") + " " + r.at("phase")].insert(r.at("checksum"));
    const bool has_frame = r.at("technique") == "coro" || r.at("technique") == "coro_nested";
    if (has_frame) {
      EXPECT_GT(std::stoll(r.at("frame_bytes")), 0) << r.at("structure") << " " << r.at("technique");
    } else {
      EXPECT_EQ(r.at("frame_bytes"), "0") << r.at("technique");
    }
  }
  EXPECT_EQ(techniques["column-main"], (std::set<std::string>{"naive", "gp", "amac", "coro", "coro_nested"}));
  EXPECT_EQ(techniques["column-delta"], (std::set<std::string>{"naive", "coro", "coro_nested"}));
  EXPECT_EQ(checksums.size(), 8u);
  for (const auto& [pass, sums] : checksums) EXPECT_EQ(sums.size(), 1u) << pass;
  // Main and Delta hold the same rows: the same count, some of the rows and not all of them.
  for (const std::string size : {"65536", "262144"}) {
    const auto& main_count = checksums["column-main " + size + " query"];
    EXPECT_EQ(main_count, checksums["column-delta " + size + " query"]) << size;
    ASSERT_EQ(main_count.size(), 1u);
    EXPECT_GT(std::stoll(*main_count.begin()), 0) << size;
    EXPECT_LT(std::stoll(*main_count.begin()), 3000) << size;
  }
}

// With as many texts as integers (a text counts 41 bytes, an integer 8), the seed draws the
// same row codes, list positions and Delta arrival order for both types, and text 2i stands
// where value 2i does: every locate and every count of varchar equals int64's.
TEST(ColumnInPredicate, VarcharAnswersAsInt64OnTheSameCodes) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  const std::size_t d = 1500;
  std::map<std::string, std::map<std::string, std::set<std::string>>> checksums;  // type -> pass -> checksums
  for (const auto& [type, bytes] : {std::pair<std::string, std::size_t>{"int64", 8}, {"varchar", 41}}) {
    const std::vector<row> rows = run_rows("column-in-predicate", {"--size", std::to_string(d * bytes), "--keys", "2000",
                                                               "--group", "3", "--technique", "naive,coro", "--set",
                                                               "list=300", "--set", "type=" + type, "--pages", "4k"});
    ASSERT_FALSE(rows.empty()) << type;
    EXPECT_EQ(values_of(rows, "type"), (std::set<std::string>{type}));
    for (const row& r : rows) checksums[type][r.at("structure") + " " + r.at("phase")].insert(r.at("checksum"));
  }
  EXPECT_EQ(checksums["int64"].size(), 4u);
  EXPECT_EQ(checksums["varchar"], checksums["int64"]);
}

TEST(ColumnReconstruction, OptionsReachTheRun) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  const std::vector<row> rows = run_rows("column-reconstruction", {"--size", "1MiB", "--keys", "50", "--group", "2,7",
                                                               "--set", "columns=3,9", "--technique",
                                                               "naive,elided,nested,flat,context,wrapped"});
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(values_of(rows, "columns"), (std::set<std::string>{"3", "9"}));
  EXPECT_EQ(values_of(rows, "ops"), (std::set<std::string>{"50"}));
  EXPECT_EQ(values_of(rows, "group"), (std::set<std::string>{"1", "2", "7"}));
  EXPECT_EQ(values_of(rows, "technique"), (std::set<std::string>{"naive", "elided", "nested", "flat", "context", "wrapped"}));
  std::map<std::string, std::set<std::string>> checksums;
  for (const row& r : rows) {
    checksums[r.at("columns")].insert(r.at("checksum"));
    // The default mix (Fig. 4.18): every third column a varchar(50) of 24 bytes per row, the
    // others 8; rows = size / the row's bytes.
    const std::size_t columns = std::stoul(r.at("columns"));
    const std::size_t varchars = (columns + 1) / 3;
    EXPECT_EQ(r.at("types"), "mixed");
    EXPECT_EQ(std::stoul(r.at("rows")), (std::size_t{1} << 20) / ((columns - varchars) * 8 + varchars * 24));
    if (r.at("technique") == "naive") {
      EXPECT_EQ(r.at("frame_bytes"), "0");
    } else {
      EXPECT_NE(r.at("frame_bytes"), "0");
    }
  }
  for (const auto& [width, sums] : checksums) EXPECT_EQ(sums.size(), 1u) << width;
  const std::vector<row> some = run_rows("column-reconstruction", {"--size", "256KiB", "--keys", "10", "--group", "4",
                                                               "--set", "columns=5", "--technique", "flat"});
  EXPECT_EQ(values_of(some, "technique"), (std::set<std::string>{"flat"}));
  // Fig. 4.17: every column an integer, 8 bytes per row, a checksum of its own.
  const std::vector<row> integers = run_rows("column-reconstruction", {"--size", "1MiB", "--keys", "50", "--group", "2",
                                                                   "--set", "columns=9", "--set", "types=integer"});
  ASSERT_FALSE(integers.empty());
  EXPECT_EQ(values_of(integers, "types"), (std::set<std::string>{"integer"}));
  EXPECT_EQ(values_of(integers, "rows"), (std::set<std::string>{std::to_string((std::size_t{1} << 20) / (9 * 8))}));
  EXPECT_EQ(values_of(integers, "checksum").size(), 1u);
  EXPECT_NE(values_of(integers, "checksum"), checksums["9"]);
}

// --pages reaches the table's arrays: with 4k none of column 0's 20 MB index vector is on huge
// pages; with 2m it is wherever the kernel grants them.
TEST(ColumnStoreExperiments, PagesReachTheIndexVectors) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  for (const std::string pages : {"4k", "2m"}) {
    const std::vector<row> rows = run_rows("column-reconstruction", {"--size", "56MiB", "--keys", "20", "--group", "2", "--set",
                                                                 "columns=1", "--set", "types=integer", "--technique", "naive", "--pages", pages});
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows.front().at("pages"), pages);
    const double share = std::stod(rows.front().at("index_vector_huge_share"));
    if (pages == "4k") {
      EXPECT_EQ(share, 0.0);
    } else {
      EXPECT_LE(share, 1.0);
    }
  }
}

TEST(ColumnStoreExperiments, RefuseBadValues) {
  if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  const std::vector<test_support::usage_error_case> cases = {
      {{"column-in-predicate", "--set", "list=0"}, "list=0"},
      {{"column-in-predicate", "--set", "list=x"}, "list=x"},
      {{"column-in-predicate", "--set", "fragment=both2"}, "fragment=both2"},
      {{"column-in-predicate", "--set", "type=text"}, "type=text"},
      {{"column-in-predicate", "--technique", "nested"}, "nested"},
      {{"column-in-predicate", "--group", "0"}, "--group"},
      {{"column-reconstruction", "--set", "columns=4,,5"}, "columns=4,,5"},
      {{"column-reconstruction", "--set", "columns=0"}, "columns=0"},
      {{"column-reconstruction", "--technique", "gp"}, "gp"},
      {{"column-reconstruction", "--set", "list=5"}, "list"},
      {{"column-reconstruction", "--set", "types=text"}, "types=text"},
      {{"column-reconstruction", "--set", "types=Mixed"}, "types=Mixed"},
  };
  expect_usage_errors(cases);
}

}  // namespace
}  // namespace braid::bench
