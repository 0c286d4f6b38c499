// The analytical model of the thesis (§3.1, Formulas 3.2 and 3.4), fitted to measured times.
#include <gtest/gtest.h>

#include <cmath>

#include "model.hpp"

namespace braid::bench {
namespace {

// Formula 3.2's minimum group is the whole number `group`, so the smallest whole group that
// satisfies it is `group` too.
void expect_whole_minimum_group(const model_prediction& prediction, unsigned group) {
  EXPECT_DOUBLE_EQ(prediction.minimum_group, static_cast<double>(group));
  EXPECT_EQ(prediction.minimum_group_size, group);
}

TEST(Model, ThesisFigure3_2_NinetyPercentStallsAndFreeSwitchesGiveTenTimes) {
  // "for T_stall that corresponds to 90% of the sequential runtime, we can expect 10x".
  model_inputs inputs{.naive_ns_per_op = 100, .group1_ns_per_op = 100, .compute_ns_per_op = 10, .misses_per_op = 1};
  const model_prediction prediction = predict_interleaving(inputs);
  EXPECT_DOUBLE_EQ(prediction.stall_share, 0.9);
  EXPECT_DOUBLE_EQ(prediction.switch_ns, 0);
  EXPECT_DOUBLE_EQ(prediction.speedup_max, 10);
  // Formula 3.2: 90 / (10 + 0) + 1 = 10 lookups in flight hide every stall.
  expect_whole_minimum_group(prediction, 10);
}

TEST(Model, SpeedupIsOneOverComputeAndSwitchShares) {
  // Formula 3.4: Speedup_max = 1 / (%compute + %switch).
  model_inputs inputs{.naive_ns_per_op = 400, .group1_ns_per_op = 440, .compute_ns_per_op = 40, .misses_per_op = 4};
  const model_prediction prediction = predict_interleaving(inputs);
  EXPECT_DOUBLE_EQ(prediction.switch_share, 0.1);
  EXPECT_DOUBLE_EQ(prediction.speedup_max, 1 / (0.1 + 0.1));
  EXPECT_DOUBLE_EQ(prediction.stall_ns_per_miss, 90);
  EXPECT_DOUBLE_EQ(prediction.switch_ns, 10);
  EXPECT_DOUBLE_EQ(prediction.compute_ns_per_stage, 10);
  // (90 - 10) / (10 + 10) + 1 = 5.
  expect_whole_minimum_group(prediction, 5);
}

TEST(Model, WithOneSuspensionPerMissTheMinimumGroupEqualsTheMaximumSpeedup) {
  for (double compute : {5.0, 20.0, 80.0}) {
    for (double switching : {0.0, 3.0, 30.0}) {
      model_inputs inputs{.naive_ns_per_op = 300, .group1_ns_per_op = 300 + switching * 3, .compute_ns_per_op = compute,
                          .misses_per_op = 3};
      const model_prediction prediction = predict_interleaving(inputs);
      EXPECT_NEAR(prediction.minimum_group, prediction.speedup_max, 1e-9) << compute << " " << switching;
    }
  }
}

TEST(Model, SuspendingOnHitsRaisesTheGroupButNotTheSpeedup) {
  // The thesis's 256 MB binary search: G_GP >= 12 with Speedup_max 5.7 (G_AMAC = G_Coro >= 6
  // with 3.7 and 3.3) only fits Formula 3.2 if the lookups suspend on more loads than miss.
  // With twice the suspensions, the same times give a group about twice the speedup's.
  model_inputs once{.naive_ns_per_op = 570, .group1_ns_per_op = 570, .compute_ns_per_op = 100, .misses_per_op = 10};
  model_inputs twice = once;
  twice.suspensions_per_op = 20;
  const model_prediction a = predict_interleaving(once);
  const model_prediction b = predict_interleaving(twice);
  EXPECT_DOUBLE_EQ(a.speedup_max, 5.7);
  EXPECT_DOUBLE_EQ(b.speedup_max, 5.7);
  // T_stall = 470 / 10 = 47 per miss; T_compute = 100 / 10 = 10 per stage, then 100 / 20 = 5.
  EXPECT_DOUBLE_EQ(a.minimum_group, 47.0 / 10 + 1);
  EXPECT_DOUBLE_EQ(b.minimum_group, 47.0 / 5 + 1);
  EXPECT_EQ(a.minimum_group_size, 6u);
  EXPECT_EQ(b.minimum_group_size, 11u);
}

TEST(Model, SwitchesDearerThanStallsMeanASlowdownAndNoGroup) {
  model_inputs inputs{.naive_ns_per_op = 100, .group1_ns_per_op = 200, .compute_ns_per_op = 60, .misses_per_op = 1};
  const model_prediction prediction = predict_interleaving(inputs);
  EXPECT_LT(prediction.target_ns, 0);
  expect_whole_minimum_group(prediction, 1);
  EXPECT_LT(prediction.speedup_max, 1);
}

TEST(Model, GroupOneFasterThanNaiveClampsTheSwitchToZero) {
  model_inputs inputs{.naive_ns_per_op = 100, .group1_ns_per_op = 95, .compute_ns_per_op = 20, .misses_per_op = 2};
  EXPECT_DOUBLE_EQ(predict_interleaving(inputs).switch_ns, 0);
}

TEST(Model, TheCacheResidentGroupOneTimeIsPreferredForTheSwitch) {
  // The DRAM group-1 run lost the naive loop's out-of-order overlap: 600 ns more than naive,
  // of which the cache-resident pair attributes only 2 ns per suspension to switching.
  model_inputs inputs{.naive_ns_per_op = 600, .group1_ns_per_op = 1200, .compute_ns_per_op = 40, .misses_per_op = 8,
                      .compute_group1_ns_per_op = 56};
  const model_prediction prediction = predict_interleaving(inputs);
  EXPECT_TRUE(prediction.switch_from_compute);
  EXPECT_DOUBLE_EQ(prediction.switch_ns, 2);
  EXPECT_DOUBLE_EQ(prediction.speedup_max, 600.0 / 56.0);
  inputs.compute_group1_ns_per_op = 0;
  EXPECT_FALSE(predict_interleaving(inputs).switch_from_compute);
  EXPECT_DOUBLE_EQ(predict_interleaving(inputs).switch_ns, 600.0 / 8);
}

TEST(Model, RejectsInputsThatCannotBeFitted) {
  const model_inputs good{.naive_ns_per_op = 100, .group1_ns_per_op = 110, .compute_ns_per_op = 10, .misses_per_op = 2};
  EXPECT_NO_THROW(predict_interleaving(good));
  auto broken = [&](auto change) {
    model_inputs inputs = good;
    change(inputs);
    return inputs;
  };
  EXPECT_THROW(predict_interleaving(broken([](model_inputs& i) { i.naive_ns_per_op = 0; })), std::invalid_argument);
  EXPECT_THROW(predict_interleaving(broken([](model_inputs& i) { i.group1_ns_per_op = -1; })), std::invalid_argument);
  EXPECT_THROW(predict_interleaving(broken([](model_inputs& i) { i.compute_ns_per_op = 0; })), std::invalid_argument);
  EXPECT_THROW(predict_interleaving(broken([](model_inputs& i) { i.misses_per_op = 0; })), std::invalid_argument);
  EXPECT_THROW(predict_interleaving(broken([](model_inputs& i) { i.compute_ns_per_op = 150; })), std::invalid_argument);
  EXPECT_THROW(predict_interleaving(broken([](model_inputs& i) { i.suspensions_per_op = 1; })), std::invalid_argument);
  EXPECT_THROW(predict_interleaving(broken([](model_inputs& i) { i.naive_ns_per_op = NAN; })), std::invalid_argument);
  EXPECT_THROW(predict_interleaving(broken([](model_inputs& i) { i.compute_group1_ns_per_op = -3; })),
               std::invalid_argument);
}

result_row row(const std::string& technique, std::optional<std::int64_t> group, double ns_per_op) {
  result_row r;
  r.set("panel", "big").set("technique", technique).set("ns_per_op", ns_per_op);
  if (group) r.set("group", *group);
  return r;
}

TEST(Model, EvaluatedPerConfigurationBesideTheMeasuredOptimum) {
  std::vector<result_row> rows;
  rows.push_back(row("naive", std::nullopt, 400).set("compute_ns_per_op", 40.0).set("misses_per_op", std::int64_t{4}));
  rows.push_back(row("coro", 1, 440));
  rows.push_back(row("coro", 4, 150));
  rows.push_back(row("coro", 8, 80));
  rows.push_back(row("coro", 16, 90));
  rows.push_back(row("batched", 4, 120));  // no group-1 row: skipped
  const model_report report = evaluate_model(rows, {.techniques = {"coro", "batched"}});
  ASSERT_EQ(report.rows.size(), 1u);
  const result_row& coro = report.rows[0];
  EXPECT_EQ(coro.number("predicted_group"), 5.0);
  EXPECT_EQ(coro.number("measured_best_group"), 8.0);
  EXPECT_DOUBLE_EQ(*coro.number("predicted_speedup_max"), 5.0);
  EXPECT_DOUBLE_EQ(*coro.number("measured_speedup_max"), 5.0);
  ASSERT_EQ(report.skipped.size(), 1u);
  EXPECT_NE(report.skipped[0].find("batched"), std::string::npos);
}

TEST(Model, StructuresOfOnePanelAreSeparateConfigurations) {
  std::vector<result_row> rows;
  for (const char* structure : {"int", "string"}) {
    rows.push_back(row("naive", std::nullopt, 400).set("structure", structure).set("compute_ns_per_op", 40.0)
                       .set("misses_per_op", std::int64_t{4}));
    rows.push_back(row("coro", 1, 440).set("structure", structure));
    rows.push_back(row("coro", 8, structure == std::string("int") ? 80.0 : 200.0).set("structure", structure));
  }
  const model_report report = evaluate_model(rows, {.techniques = {"coro"}});
  ASSERT_EQ(report.rows.size(), 2u);
  EXPECT_EQ(to_text(*report.rows[1].find("structure")), "string");
  EXPECT_DOUBLE_EQ(*report.rows[0].number("measured_speedup_max"), 5.0);
  EXPECT_DOUBLE_EQ(*report.rows[1].number("measured_speedup_max"), 2.0);
}

TEST(Model, ConfigurationsWithoutTheBaselineInputsAreSkipped) {
  std::vector<result_row> rows = {row("naive", std::nullopt, 400), row("coro", 1, 440)};
  const model_report report = evaluate_model(rows, {.techniques = {"coro"}});
  EXPECT_TRUE(report.rows.empty());
  ASSERT_EQ(report.skipped.size(), 1u);
  EXPECT_NE(report.skipped[0].find("compute_ns_per_op"), std::string::npos);
  EXPECT_TRUE(evaluate_model(rows, {}).rows.empty());
}

}  // namespace
}  // namespace braid::bench
