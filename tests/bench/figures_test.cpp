// Figure presets: the papers' numbers, the rows they refer to, and how ours is compared.
#include <gtest/gtest.h>

#include "figures.hpp"

namespace braid::bench {
namespace {

result_row row(const std::string& panel, const std::string& technique, std::int64_t group, double mops, double speedup) {
  result_row r;
  r.set("panel", panel).set("technique", technique).set("group", group).set("mops", mops).set("speedup_vs_naive", speedup);
  return r;
}

std::vector<result_row> sweep() {
  return {row("large", "coro", 1, 10, 0.8), row("large", "coro", 8, 60, 4.8), row("large", "coro", 16, 70, 5.6),
          row("large", "coro", 32, 65, 5.2), row("small", "coro", 1, 30, 0.5),  row("small", "coro", 4, 50, 0.83),
          row("large", "gp", 16, 80, 6.4)};
}

TEST(Figures, FiltersMatchTextAndNumbers) {
  const result_row r = row("large", "coro", 16, 70, 5.6);
  EXPECT_TRUE(matches(r, {}));
  EXPECT_TRUE(matches(r, {{"panel", "large"}, {"technique", "coro"}}));
  EXPECT_TRUE(matches(r, {{"group", "16"}}));
  EXPECT_TRUE(matches(r, {{"mops", "70"}}));
  EXPECT_FALSE(matches(r, {{"group", "8"}}));
  EXPECT_FALSE(matches(r, {{"technique", "gp"}}));
  EXPECT_FALSE(matches(r, {{"missing", "x"}}));
  EXPECT_FALSE(matches(r, {{"group", ""}}));
}

TEST(Figures, Statistics) {
  const std::vector<result_row> rows = sweep();
  const row_filter large_coro = {{"panel", "large"}, {"technique", "coro"}};
  EXPECT_DOUBLE_EQ(statistic_of(rows, large_coro, "speedup_vs_naive", statistic::maximum)->low, 5.6);
  EXPECT_DOUBLE_EQ(statistic_of(rows, large_coro, "speedup_vs_naive", statistic::minimum)->high, 0.8);
  const auto range = statistic_of(rows, large_coro, "speedup_vs_naive", statistic::range);
  EXPECT_DOUBLE_EQ(range->low, 0.8);
  EXPECT_DOUBLE_EQ(range->high, 5.6);
  EXPECT_DOUBLE_EQ(statistic_of(rows, large_coro, "group", statistic::at_best, "mops")->low, 16);
  EXPECT_FALSE(statistic_of(rows, {{"technique", "amac"}}, "mops", statistic::maximum).has_value());
  EXPECT_FALSE(statistic_of(rows, large_coro, "no_such_field", statistic::maximum).has_value());
}

TEST(Figures, ComparisonsFollowTheirShapeRule) {
  const std::vector<result_row> rows = sweep();
  paper_number large_speedup{.source = "KN Fig. 1c", .claim = "up to 8.2x", .where = {{"panel", "large"}, {"technique", "coro"}},
                             .paper_low = 8.2, .paper_high = 8.2, .shape = shape_rule::same_side_of(1)};
  comparison ours = compare(large_speedup, rows);
  EXPECT_TRUE(ours.measured);
  EXPECT_DOUBLE_EQ(ours.ours_high, 5.6);
  EXPECT_EQ(ours.same_shape, true);  // both speedups: same shape, different size
  EXPECT_EQ(ours.verdict(), "agrees in shape");

  paper_number small_slowdown{.source = "KN Fig. 1a", .claim = "naive up to 5.1x faster than Coro",
                              .where = {{"panel", "small"}, {"technique", "coro"}}, .computed = statistic::minimum,
                              .paper_low = 1 / 5.1, .paper_high = 1 / 5.1, .shape = shape_rule::same_side_of(1)};
  EXPECT_EQ(compare(small_slowdown, rows).same_shape, true);
  small_slowdown.where = {{"panel", "large"}, {"technique", "gp"}};  // a 6.4x win against a paper's loss
  EXPECT_EQ(compare(small_slowdown, rows).same_shape, false);
  EXPECT_EQ(compare(small_slowdown, rows).verdict(), "differs in shape");

  paper_number best_group{.source = "KN Fig. 1a", .claim = "optimal group around 3", .where = {{"panel", "small"}},
                          .field = "group", .computed = statistic::at_best, .paper_low = 3, .paper_high = 3,
                          .shape = shape_rule::within_factor(2)};
  EXPECT_DOUBLE_EQ(compare(best_group, rows).ours_low, 4);
  EXPECT_EQ(compare(best_group, rows).same_shape, true);
  best_group.paper_low = best_group.paper_high = 12;
  EXPECT_EQ(compare(best_group, rows).same_shape, false);

  paper_number unmeasured = large_speedup;
  unmeasured.where = {{"panel", "huge"}};
  EXPECT_FALSE(compare(unmeasured, rows).measured);
  EXPECT_FALSE(compare(unmeasured, rows).same_shape.has_value());
  EXPECT_EQ(compare(unmeasured, rows).ours_text(), "-");

  paper_number no_rule = large_speedup;
  no_rule.shape = {};
  EXPECT_FALSE(compare(no_rule, rows).same_shape.has_value());
  EXPECT_EQ(compare(no_rule, rows).verdict(), "-");
}

TEST(Figures, RangesAgreeWhenTheyOverlapTheToleratedBand) {
  const std::vector<result_row> rows = sweep();
  paper_number range{.source = "thesis Fig. 4.1a", .claim = "Coro 2.0-2.4x", .where = {{"technique", "coro"}, {"panel", "large"}},
                     .computed = statistic::range, .paper_low = 2.0, .paper_high = 2.4, .shape = shape_rule::within_factor(1.5)};
  const comparison ours = compare(range, rows);
  EXPECT_EQ(ours.ours_text(), "0.8–5.6");
  EXPECT_EQ(ours.same_shape, true);
  EXPECT_EQ(paper_text(range), "2–2.4");
}

TEST(Figures, RatiosBetweenTwoSetsOfRows) {
  std::vector<result_row> rows;
  rows.push_back(result_row().set("technique", "fiber").set("ns_per_op", 19.3));
  rows.push_back(result_row().set("technique", "coro").set("ns_per_op", 10.0));
  paper_number slower{.source = "KN footnote 1", .claim = "up to 93% slower", .where = {{"technique", "fiber"}},
                      .field = "ns_per_op", .relative_to = {{"technique", "coro"}}, .paper_low = 1.93, .paper_high = 1.93,
                      .shape = shape_rule::same_side_of(1)};
  const comparison ours = compare(slower, rows);
  EXPECT_NEAR(ours.ours_low, 1.93, 1e-12);
  EXPECT_EQ(ours.same_shape, true);
  slower.relative_to = {{"technique", "missing"}};
  EXPECT_FALSE(compare(slower, rows).measured);
}

TEST(Figures, NumbersPrintAtAReadablePrecision) {
  EXPECT_EQ(format_number(73), "73");
  EXPECT_EQ(format_number(335.4), "335");
  EXPECT_EQ(format_number(45.61), "45.6");
  EXPECT_EQ(format_number(1.934), "1.93");
  EXPECT_EQ(format_number(0.196), "0.2");
  EXPECT_EQ(format_number(5.60), "5.6");
  EXPECT_EQ(format_number(0.0123), "0.012");
}

TEST(Figures, RegistryFindsPresetsByName) {
  const figure_registration registration{figure{.name = "test-figure-registry", .experiment = "switch-cost",
                                                .reproduces = "nothing", .panels = {panel{}}}};
  const figure* found = find_figure("test-figure-registry");
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->experiment, "switch-cost");
  EXPECT_EQ(find_figure("no-such-figure"), nullptr);
  EXPECT_THROW(figure_registration(figure{.name = "no-panels", .experiment = "x"}), std::logic_error);
}

}  // namespace
}  // namespace braid::bench
