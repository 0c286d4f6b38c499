// The headline tables: each structure's best technique against naive and the peer, and the
// machine facts.
#include <gtest/gtest.h>

#include "headline.hpp"

namespace braid::bench {
namespace {

result_row row(const std::string& residency, const std::string& technique, std::optional<std::int64_t> group, double mops,
               std::int64_t size) {
  result_row r;
  r.set("technique", technique).set("mops", mops).set("residency", residency).set("size_bytes", size);
  if (group) r.set("group", *group);
  r.set("roofline_fraction", mops / 100);
  return r;
}

TEST(Headline, BestTechniqueAgainstTheFastestNaiveAndPeerPerResidency) {
  const std::vector<result_row> rows = {
      row("cache", "naive", std::nullopt, 50, 1 << 20),   row("cache", "coro", 4, 40, 1 << 20),
      row("cache", "absl-flat-hash-map", std::nullopt, 60, 1 << 20),
      row("dram", "naive", std::nullopt, 10, 1 << 30),    row("dram", "naive", std::nullopt, 12, 1 << 30),
      row("dram", "coro", 8, 40, 1 << 30),                row("dram", "coro", 16, 48, 1 << 30),
      row("dram", "gp", 16, 44, 1 << 30),                 row("dram", "std-unordered-map", std::nullopt, 8, 1 << 30),
      row("dram", "absl-flat-hash-map", std::nullopt, 16, 1 << 30)};
  const headline_summary summarize = compare_with_naive_and_peers("naive", {"std-unordered-map", "absl-flat-hash-map"});
  const std::vector<result_row> lines = summarize(rows, "hash table");
  ASSERT_EQ(lines.size(), 2u);
  const result_row& dram = lines[0];  // DRAM first
  EXPECT_EQ(to_text(*dram.find("residency")), "dram");
  EXPECT_EQ(to_text(*dram.find("structure")), "hash table");
  EXPECT_EQ(to_text(*dram.find("size")), "1GiB");
  EXPECT_EQ(to_text(*dram.find("best")), "coro");
  EXPECT_EQ(dram.number("group"), 16.0);
  EXPECT_EQ(dram.number("naive_mops"), 12.0);
  EXPECT_EQ(to_text(*dram.find("peer")), "absl-flat-hash-map");
  EXPECT_DOUBLE_EQ(*dram.number("speedup_vs_naive"), 4.0);
  EXPECT_DOUBLE_EQ(*dram.number("speedup_vs_peer"), 3.0);
  EXPECT_DOUBLE_EQ(*dram.number("roofline_fraction"), 0.48);
  EXPECT_DOUBLE_EQ(*dram.number("naive_roofline_fraction"), 0.12);
  EXPECT_EQ(dram.find("coro_vs_amac"), nullptr);  // no AMAC row to compare with
  const result_row& cache = lines[1];
  EXPECT_EQ(to_text(*cache.find("residency")), "cache");
  EXPECT_DOUBLE_EQ(*cache.number("speedup_vs_naive"), 0.8);  // interleaving loses in cache: said, not hidden
  EXPECT_DOUBLE_EQ(*cache.number("speedup_vs_peer"), 40.0 / 60.0);
}

TEST(Headline, EveryPeerComparisonSaysWhatItCompares) {
  auto keyed = [](result_row r, const std::string& structure) { return r.set("structure", structure); };
  const std::vector<result_row> rows = {
      keyed(row("dram", "naive", std::nullopt, 1, 1 << 30), "paper-chains"),
      keyed(row("dram", "amac", 16, 2, 1 << 30), "paper-chains"),
      keyed(row("dram", "std-unordered-map", std::nullopt, 20, 1 << 30), "paper-chains"),
      keyed(row("dram", "naive", std::nullopt, 10, 1 << 30), "bucket-per-key"),
      keyed(row("dram", "amac", 16, 30, 1 << 30), "bucket-per-key"),
      keyed(row("dram", "std-unordered-map", std::nullopt, 20, 1 << 30), "bucket-per-key")};
  const headline_summary summarize =
      compare_with_naive_and_peers({.peers = {"std-unordered-map"},
                                    .split_by = {"structure"},
                                    .peer_compares = "like for like",
                                    .peer_compares_for = {{"paper-chains", "the paper's set-up vs a user's map"}}});
  const std::vector<result_row> lines = summarize(rows, "chained");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(to_text(*lines[0].find("structure")), "chained (paper-chains)");
  EXPECT_EQ(to_text(*lines[0].find("peer_compares")), "the paper's set-up vs a user's map");
  EXPECT_DOUBLE_EQ(*lines[0].number("speedup_vs_peer"), 0.1);
  EXPECT_EQ(lines[0].find("coro_vs_amac"), nullptr);  // no coroutine row
  EXPECT_EQ(to_text(*lines[1].find("peer_compares")), "like for like");
}

TEST(Headline, CoroutineAgainstAmacAtEachOnesBestGroup) {
  const std::vector<result_row> rows = {
      row("dram", "naive", std::nullopt, 10, 1 << 30), row("dram", "amac", 8, 30, 1 << 30),
      row("dram", "amac", 16, 50, 1 << 30),            row("dram", "coro", 8, 45, 1 << 30),
      row("dram", "coro", 16, 40, 1 << 30),            row("dram", "gp", 16, 60, 1 << 30),
      row("cache", "amac", 4, 0, 1 << 20),             row("cache", "coro", 4, 20, 1 << 20)};
  const std::vector<result_row> lines = compare_with_naive_and_peers("naive", {})(rows, "tree");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(to_text(*lines[0].find("best")), "gp");           // the best of all is not what is compared
  EXPECT_DOUBLE_EQ(*lines[0].number("coro_vs_amac"), 0.9);   // 45 at group 8 over 50 at group 16
  EXPECT_EQ(lines[1].find("coro_vs_amac"), nullptr);          // AMAC measured nothing: no ratio
}

TEST(Headline, APartOverItsAllowanceSaysByHowMuchAndWhy) {
  const headline_entry entry{.name = "skip list", .budget_seconds = 40};
  EXPECT_EQ(over_allowance_message(entry, 59, 52),
            "skip list took 59s, over its allowance of 52s (budget 40s plus what earlier parts left)");
  // Earlier parts overran by more than this part's budget: no allowance, and no "?" either.
  EXPECT_EQ(over_allowance_message(entry, 59, -131),
            "skip list took 59s with no allowance left: earlier parts overran by 2m51s, more than its budget of 40s");
  EXPECT_EQ(over_allowance_message(entry, 5, 0),
            "skip list took 5s with no allowance left: earlier parts overran by 40s, more than its budget of 40s");
}

TEST(Headline, WithoutPeersOrNaiveTheColumnsAreLeftOut) {
  const std::vector<result_row> rows = {row("dram", "coro", 8, 40, 1 << 30)};
  const std::vector<result_row> lines = compare_with_naive_and_peers("naive", {})(rows, "chase");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].find("peer"), nullptr);
  EXPECT_EQ(lines[0].find("peer_compares"), nullptr);
  EXPECT_EQ(lines[0].find("speedup_vs_naive"), nullptr);
  EXPECT_TRUE(compare_with_naive_and_peers("naive", {})({}, "empty").empty());
}

TEST(Headline, LinesSplitByFieldsWithSeveralBaselines) {
  auto keyed = [](result_row r, const std::string& structure) { return r.set("structure", structure); };
  const std::vector<result_row> rows = {
      keyed(row("cache", "naive-branchy", std::nullopt, 30, 1 << 20), "int"),
      keyed(row("dram", "naive-branchless", std::nullopt, 5, 1 << 30), "int"),
      keyed(row("dram", "naive-branchy", std::nullopt, 4, 1 << 30), "int"),
      keyed(row("dram", "gp", 8, 15, 1 << 30), "int"),
      keyed(row("dram", "naive-branchless", std::nullopt, 2, 1 << 30), "string"),
      keyed(row("dram", "coro", 8, 5, 1 << 30), "string"),
      keyed(row("cache", "gp", 8, 20, 1 << 20), "int")};
  const headline_summary summarize = compare_with_naive_and_peers(
      {.baselines = {"naive-branchless", "naive-branchy"}, .split_by = {"structure"}});
  const std::vector<result_row> lines = summarize(rows, "binary search");
  ASSERT_EQ(lines.size(), 3u);
  // Splits in first-seen order, DRAM first within each.
  EXPECT_EQ(to_text(*lines[0].find("structure")), "binary search (int)");
  EXPECT_EQ(to_text(*lines[0].find("residency")), "dram");
  EXPECT_DOUBLE_EQ(*lines[0].number("speedup_vs_naive"), 3.0);  // against the faster plain search
  EXPECT_EQ(to_text(*lines[1].find("residency")), "cache");
  EXPECT_DOUBLE_EQ(*lines[1].number("speedup_vs_naive"), 20.0 / 30.0);
  EXPECT_EQ(to_text(*lines[2].find("structure")), "binary search (string)");
  EXPECT_DOUBLE_EQ(*lines[2].number("speedup_vs_naive"), 2.5);
}

TEST(Headline, MachineFacts) {
  std::vector<result_row> rows;
  for (int chains : {1, 8, 16, 32}) {
    result_row r;
    r.set("chains", std::int64_t{chains}).set("lines_per_ns", chains == 16 ? 0.5 : 0.01 * chains).set("ns_per_load", 80.0 + chains);
    rows.push_back(r);
  }
  const headline_summary facts = report_facts({{.what = "latency", .where = {{"chains", "1"}}, .field = "ns_per_load", .unit = "ns"},
                                               {.what = "chains at the peak", .where = {}, .field = "chains", .unit = "chains",
                                                .computed = statistic::at_best, .best_by = "lines_per_ns"},
                                               {.what = "absent", .where = {}, .field = "nothing", .unit = "-"}});
  const std::vector<result_row> lines = facts(rows, "probe");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].number("value"), 81.0);
  EXPECT_EQ(to_text(*lines[1].find("value")), "16");  // counts print as integers
  EXPECT_EQ(to_text(*lines[1].find("source")), "probe");
}

TEST(Headline, EntriesAreOrdered) {
  const headline_registration late{headline_entry{.name = "z-late", .figure = "x", .order = 1000}};
  const headline_registration early{headline_entry{.name = "a-early", .figure = "x", .order = -1000}};
  const std::vector<headline_entry>& entries = headline_entries();
  ASSERT_GE(entries.size(), 2u);
  EXPECT_EQ(entries.front().name, "a-early");
  EXPECT_EQ(entries.back().name, "z-late");
}

}  // namespace
}  // namespace braid::bench
