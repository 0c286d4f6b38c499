// braid-test: concurrent
#include "braid/query/plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "braid/tasks/runtime.hpp"

namespace braid::query {
namespace {

// dimension: keys 0..59 (keys 4 and 7 twice: duplicates), keys 60.. absent; the category
// cycles through four words.
const std::vector<std::string> categories = {"ALPHA", "APEX", "BETA", "GAMMA"};

table dimension(std::size_t fragment) {
  table_builder builder("dimension", {{"d_key", {value_kind::integer, 0}}, {"d_category", {value_kind::text, 0}}});
  for (std::int64_t key = 0; key < 60; ++key) {
    const cell row[] = {cell::integer(key), cell::text(categories[static_cast<std::size_t>(key % 4)])};
    builder.append_row(row);
  }
  const cell duplicate[] = {cell::integer(7), cell::text("ALPHA")};  // key 7 is GAMMA too, which the filter drops
  builder.append_row(duplicate);
  const cell second[] = {cell::integer(4), cell::text("APEX")};  // key 4 is ALPHA too: both match
  builder.append_row(second);
  return std::move(builder).finish(fragment);
}

// fact: 3000 rows, f_key = i mod 80 (keys 60..79 have no dimension row), amount (scale 2), discount (scale 2).
table fact(std::size_t fragment) {
  table_builder builder("fact", {{"f_key", {value_kind::integer, 0}},
                                 {"f_amount", {value_kind::decimal, 2}},
                                 {"f_discount", {value_kind::decimal, 2}}});
  for (std::int64_t i = 0; i < 3000; ++i) {
    const cell row[] = {cell::integer(i % 80), cell::decimal(i * 37 % 10007, 2), cell::decimal(i % 11, 2)};
    builder.append_row(row);
  }
  return std::move(builder).finish(fragment);
}

// select d_category, sum(f_amount * (1 - f_discount)), count(*), min(f_amount), max(f_amount)
// from fact, dimension where f_key = d_key and d_category like 'A%' and f_amount >= 10.00
// group by d_category
using answer = std::map<std::string, std::tuple<int128, int128, int128, int128>>;

answer brute_force() {
  std::vector<std::pair<std::int64_t, std::string>> dimension_rows;
  for (std::int64_t key = 0; key < 60; ++key) dimension_rows.emplace_back(key, categories[static_cast<std::size_t>(key % 4)]);
  dimension_rows.emplace_back(7, "ALPHA");
  dimension_rows.emplace_back(4, "APEX");
  answer out;
  for (std::int64_t i = 0; i < 3000; ++i) {
    const std::int64_t key = i % 80;
    const std::int64_t amount = i * 37 % 10007;
    if (amount < 1000) continue;
    for (const auto& [dimension_key, category] : dimension_rows) {
      if (dimension_key != key || !category.starts_with("A")) continue;
      auto [it, fresh] = out.try_emplace(category, 0, 0, amount, amount);
      std::get<0>(it->second) += int128{amount} * (100 - i % 11);
      std::get<1>(it->second) += 1;
      std::get<2>(it->second) = std::min<int128>(std::get<2>(it->second), amount);
      std::get<3>(it->second) = std::max<int128>(std::get<3>(it->second), amount);
    }
  }
  return out;
}

answer run_plan(tasks::runtime& runtime, const table& dimensions, const table& facts, finalize_mode mode, bool bloom,
                prefetch_strategy prefetch) {
  query_plan q(runtime.workers(), bloom);
  const std::size_t d_key = dimensions.column_index("d_key");
  const std::size_t d_category = dimensions.column_index("d_category");
  const std::size_t f_key = facts.column_index("f_key");
  const std::size_t f_amount = facts.column_index("f_amount");
  const std::size_t f_discount = facts.column_index("f_discount");
  join_table& build = q.join(true);
  const auto build_pipeline = q.scan("dimension", dimensions, q.keep(predicate::text_prefix(dimensions, "d_category", "A")), nullptr,
                                     {"d_key"}, &build, [&](unsigned worker, std::size_t f, const std::uint32_t* rows, std::uint32_t n) {
                                       const auto* key = dimensions.column_data<std::int64_t>(f, d_key);
                                       const auto* category = dimensions.column_data<std::uint32_t>(f, d_category);
                                       for (std::uint32_t i = 0; i < n; ++i) {
                                         build.insert(worker, static_cast<std::uint64_t>(key[rows[i]]), category[rows[i]]);
                                       }
                                     });
  group_aggregate& groups = q.aggregate({aggregate_kind::sum, aggregate_kind::sum, aggregate_kind::min, aggregate_kind::max});
  const auto probe = q.scan("fact", facts, q.keep(predicate::range(facts, "f_amount", 1000, 1 << 30)), nullptr,
                            {"f_key", "f_discount"}, &groups, [&](unsigned worker, std::size_t f, const std::uint32_t* rows, std::uint32_t n) {
                              const auto* key = facts.column_data<std::int64_t>(f, f_key);
                              const auto* amount = facts.column_data<std::int64_t>(f, f_amount);
                              const auto* discount = facts.column_data<std::int64_t>(f, f_discount);
                              for (std::uint32_t i = 0; i < n; ++i) {
                                const std::uint32_t r = rows[i];
                                const auto k = static_cast<std::uint64_t>(key[r]);
                                if (!build.may_contain(k)) continue;
                                build.for_each_match(k, [&](std::int64_t category) {
                                  int128* a = groups.accumulators(worker, static_cast<std::uint64_t>(category));
                                  a[0] += times_complement(amount[r], discount[r], 100);
                                  a[1] += 1;
                                  a[2] = std::min<int128>(a[2], amount[r]);
                                  a[3] = std::max<int128>(a[3], amount[r]);
                                });
                              }
                            });
  q.after(probe, build_pipeline);
  const auto statistics = q.run(runtime, {.prefetch = prefetch, .finalize = mode});
  EXPECT_EQ(statistics.pipelines, 2U);
  EXPECT_EQ(statistics.fragments, dimensions.fragment_count() + facts.fragment_count());
  EXPECT_EQ(q.graph().completion_order(), (std::vector<std::size_t>{build_pipeline, probe}));
  answer out;
  for (const auto& g : groups.groups()) {
    out[std::string(dimensions.dictionary(d_category).text(static_cast<std::uint32_t>(g.key)))] =
        std::make_tuple(g.values[0], g.values[1], g.values[2], g.values[3]);
  }
  return out;
}

class plan_test : public ::testing::TestWithParam<unsigned> {};

TEST_P(plan_test, a_filtered_join_with_grouping_equals_a_brute_force_evaluation) {
  tasks::runtime runtime({.workers = GetParam()});
  const answer expected = brute_force();
  ASSERT_EQ(expected.size(), 2U);  // ALPHA, APEX
  for (const std::size_t fragment : {1U, 32U, 4096U}) {
    const table dimensions = dimension(fragment);
    const table facts = fact(fragment);
    for (auto mode : {finalize_mode::sequential, finalize_mode::parallel, finalize_mode::reduce}) {
      for (const bool bloom : {true, false}) {
        for (auto prefetch : {prefetch_strategy::none, prefetch_strategy::automatic}) {
          EXPECT_TRUE(run_plan(runtime, dimensions, facts, mode, bloom, prefetch) == expected)
              << "fragment " << fragment << " " << to_string(mode) << (bloom ? " bloom" : "");
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(workers, plan_test, ::testing::Values(1U, 2U));

TEST(query_plan, checks_its_arguments) {
  EXPECT_THROW(query_plan(0), std::invalid_argument);
  const table facts = fact(64);
  query_plan q(2);
  EXPECT_THROW(q.scan("no body", facts, nullptr, nullptr, {}, nullptr, {}), std::invalid_argument);
  EXPECT_THROW(q.scan("bad column", facts, nullptr, nullptr, {"nope"}, nullptr, [](unsigned, std::size_t, const std::uint32_t*, std::uint32_t) {}),
               std::invalid_argument);
  q.scan("fine", facts, nullptr, nullptr, {"f_key"}, nullptr, [](unsigned, std::size_t, const std::uint32_t*, std::uint32_t) {});
  tasks::runtime one({.workers = 1});
  EXPECT_THROW(q.run(one, {}), std::invalid_argument);  // built for two workers
}

TEST(query_plan, decimal_products_add_scales) {
  static_assert(times_complement(2500, 6, 100) == 235000);  // 25.00 x (1 - 0.06) = 23.5000
  static_assert(times_sum(235000, 8, 100) == 25380000);     // 23.5000 x (1 + 0.08) = 25.380000
  EXPECT_TRUE(times_complement(std::numeric_limits<std::int64_t>::max(), -100, 100) ==
              int128{std::numeric_limits<std::int64_t>::max()} * 200);  // beyond 64 bits, exact
}

}  // namespace
}  // namespace braid::query
