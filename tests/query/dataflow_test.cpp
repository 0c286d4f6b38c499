// braid-test: concurrent
#include "braid/query/dataflow.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "braid/query/operators.hpp"
#include "braid/tasks/runtime.hpp"

namespace braid::query {
namespace {

// Rows 1..rows in an integer column "v" and a date column "d" (d = v mod 100).
table numbers(std::int64_t rows, std::size_t tuples_per_fragment) {
  table_builder builder("numbers", {{"v", {value_kind::integer, 0}}, {"d", {value_kind::date, 0}}});
  for (std::int64_t v = 1; v <= rows; ++v) {
    const cell values[] = {cell::integer(v), cell::date(v % 100)};
    builder.append_row(values);
  }
  return std::move(builder).finish(tuples_per_fragment);
}

// Sums v per worker; records how it was finalized.
class sum_sink final : public sink {
 public:
  explicit sum_sink(unsigned workers) : partials_(workers, 0), parts_(workers, 0) {}
  void add(unsigned worker, std::int64_t value) { partials_[worker] += value; }
  void merge(unsigned into, unsigned from) override {
    partials_[into] += partials_[from];
    partials_[from] = 0;
    merges_.fetch_add(1);
  }
  void finalize_part(unsigned part, unsigned parts) override {
    for (unsigned w = part; w < partials_.size(); w += parts) parts_[part] += partials_[w];
    finalized_parts_.fetch_add(1);
  }
  void complete(finalize_mode mode) override {
    total = 0;
    if (mode == finalize_mode::parallel && partials_.size() > 1) {
      for (const auto part : parts_) total += part;
    } else {
      total = partials_[0];
    }
    completions.fetch_add(1);
  }
  std::int64_t total = -1;
  std::atomic<int> completions{0};
  std::atomic<int> merges_{0};
  std::atomic<int> finalized_parts_{0};

 private:
  std::vector<std::int64_t> partials_;
  std::vector<std::int64_t> parts_;
};

pipeline summing(const table& source, sum_sink& into, std::vector<std::atomic<int>>* visits = nullptr) {
  return {.name = "sum",
          .source = &source,
          .columns = {0},
          .consume =
              [&source, &into, visits](unsigned worker, std::size_t f) {
                const auto* v = source.column_data<std::int64_t>(f, 0);
                std::int64_t sum = 0;
                for (std::uint32_t i = 0; i < source.header(f).tuples; ++i) sum += v[i];
                into.add(worker, sum);
                if (visits != nullptr) (*visits)[f].fetch_add(1);
              },
          .breaker = &into};
}

class dataflow_test : public ::testing::TestWithParam<unsigned> {};

TEST_P(dataflow_test, barrier_completion_sees_every_fragment_once_in_every_finalize_mode) {
  tasks::runtime runtime({.workers = GetParam()});
  for (const std::size_t fragment : {1U, 32U, 1000U}) {
    const table source = numbers(5000, fragment);
    for (auto mode : {finalize_mode::sequential, finalize_mode::parallel, finalize_mode::reduce}) {
      sum_sink sums(GetParam());
      std::vector<std::atomic<int>> visits(source.fragment_count());
      dataflow_graph graph;
      graph.add(summing(source, sums, &visits));
      const auto statistics = graph.run(runtime, {.prefetch = prefetch_strategy::none, .finalize = mode});
      EXPECT_EQ(sums.total, 5000 * 5001 / 2) << to_string(mode) << " fragment " << fragment;
      EXPECT_EQ(sums.completions.load(), 1);
      for (const auto& v : visits) ASSERT_EQ(v.load(), 1);
      const unsigned w = GetParam();
      const std::uint64_t finalize = w == 1 ? 0 : mode == finalize_mode::sequential ? 1 : mode == finalize_mode::parallel ? w : w - 1;
      EXPECT_EQ(statistics.tasks, source.fragment_count() + w + finalize);
      EXPECT_EQ(statistics.fragments, source.fragment_count());
      EXPECT_EQ(statistics.bytes_accessed, 5000U * 8U);
      EXPECT_EQ(statistics.pipelines, 1U);
      if (w > 1 && mode == finalize_mode::parallel) {
        EXPECT_EQ(sums.finalized_parts_.load(), static_cast<int>(w));
      }
      if (w > 1 && mode == finalize_mode::reduce) {
        EXPECT_EQ(sums.merges_.load(), static_cast<int>(w - 1));
      }
      if (w > 1 && mode == finalize_mode::sequential) {
        EXPECT_EQ(sums.merges_.load(), static_cast<int>(w - 1));
      }
    }
  }
}

TEST_P(dataflow_test, the_runtime_runs_exactly_the_counted_tasks_and_prefetches_only_when_asked) {
  tasks::runtime runtime({.workers = GetParam()});
  const table source = numbers(6000, 64);
  for (auto strategy : {prefetch_strategy::none, prefetch_strategy::first_lines}) {
    for (auto mode : {finalize_mode::sequential, finalize_mode::parallel, finalize_mode::reduce}) {
      sum_sink sums(GetParam());
      dataflow_graph graph;
      graph.add(summing(source, sums));
      runtime.reset_statistics();
      const auto statistics = graph.run(runtime, {.prefetch = strategy, .finalize = mode});
      const auto counted = runtime.statistics().tasks;
      EXPECT_EQ(counted.executed, statistics.tasks) << to_string(strategy) << " " << to_string(mode);
      if (strategy == prefetch_strategy::none) {
        EXPECT_EQ(counted.prefetches, 0U);
      } else {
        // The fragment tasks carry the pipeline's callback (the barriers and finalizers none).
        EXPECT_GT(counted.prefetches, 0U);
        EXPECT_LE(counted.prefetches, source.fragment_count());
      }
      EXPECT_EQ(sums.total, 6000 * 6001 / 2);
    }
  }
}

TEST_P(dataflow_test, a_pipeline_starts_after_the_pipelines_it_depends_on) {
  tasks::runtime runtime({.workers = GetParam()});
  const table source = numbers(3000, 64);
  // a -> {b, c} -> d: each consume checks that its prerequisites completed.
  std::vector<std::unique_ptr<sum_sink>> sinks;
  for (int i = 0; i < 4; ++i) sinks.push_back(std::make_unique<sum_sink>(GetParam()));
  std::atomic<int> violations{0};
  auto checked = [&](int self, std::vector<int> before) {
    pipeline stage = summing(source, *sinks[static_cast<std::size_t>(self)]);
    auto inner = stage.consume;
    stage.consume = [&, inner, before](unsigned worker, std::size_t f) {
      for (const int b : before) {
        if (sinks[static_cast<std::size_t>(b)]->completions.load() != 1) violations.fetch_add(1);
      }
      inner(worker, f);
    };
    return stage;
  };
  dataflow_graph graph;
  const auto a = graph.add(checked(0, {}));
  const auto b = graph.add(checked(1, {0}));
  const auto c = graph.add(checked(2, {0}));
  const auto d = graph.add(checked(3, {1, 2}));
  graph.depends_on(b, a);
  graph.depends_on(c, a);
  graph.depends_on(d, b);
  graph.depends_on(d, c);
  graph.run(runtime, {.prefetch = prefetch_strategy::first_lines, .finalize = finalize_mode::reduce});
  EXPECT_EQ(violations.load(), 0);
  const auto& order = graph.completion_order();
  ASSERT_EQ(order.size(), 4U);
  EXPECT_EQ(order.front(), a);
  EXPECT_EQ(order.back(), d);
  for (const auto& s : sinks) EXPECT_EQ(s->total, 3000 * 3001 / 2);
}

TEST_P(dataflow_test, an_exception_in_a_task_leaves_run_and_the_runtime_runs_the_next_graph) {
  tasks::runtime runtime({.workers = GetParam()});
  const table source = numbers(2000, 32);
  sum_sink sums(GetParam());
  dataflow_graph failing;
  pipeline stage = summing(source, sums);
  stage.consume = [](unsigned, std::size_t f) {
    if (f == 7) throw std::runtime_error("fragment 7 is bad");
  };
  failing.add(std::move(stage));
  EXPECT_THROW(failing.run(runtime, {}), std::runtime_error);
  EXPECT_EQ(prefetch_registry::slots_in_use(), 0U);

  sum_sink again(GetParam());
  dataflow_graph next;
  next.add(summing(source, again));
  next.run(runtime, {});
  EXPECT_EQ(again.total, 2000 * 2001 / 2);
}

TEST_P(dataflow_test, group_aggregation_agrees_across_finalize_modes) {
  tasks::runtime runtime({.workers = GetParam()});
  const table source = numbers(4000, 128);
  std::vector<std::vector<group_aggregate::group>> results;
  for (auto mode : {finalize_mode::sequential, finalize_mode::parallel, finalize_mode::reduce}) {
    group_aggregate groups(GetParam(), {aggregate_kind::sum, aggregate_kind::min, aggregate_kind::max});
    dataflow_graph graph;
    graph.add({.name = "group",
               .source = &source,
               .columns = {0, 1},
               .consume =
                   [&](unsigned worker, std::size_t f) {
                     const auto* v = source.column_data<std::int64_t>(f, 0);
                     const auto* d = source.column_data<std::int32_t>(f, 1);
                     for (std::uint32_t i = 0; i < source.header(f).tuples; ++i) {
                       int128* a = groups.accumulators(worker, static_cast<std::uint64_t>(d[i] % 7));
                       a[0] += v[i];
                       a[1] = std::min<int128>(a[1], v[i]);
                       a[2] = std::max<int128>(a[2], v[i]);
                     }
                   },
               .breaker = &groups});
    graph.run(runtime, {.prefetch = prefetch_strategy::automatic, .finalize = mode});
    auto found = groups.groups();
    std::sort(found.begin(), found.end(), [](const auto& x, const auto& y) { return x.key < y.key; });
    results.push_back(found);
  }
  ASSERT_EQ(results[0].size(), 7U);
  for (const auto& other : results) {
    ASSERT_EQ(other.size(), results[0].size());
    for (std::size_t g = 0; g < other.size(); ++g) {
      EXPECT_EQ(other[g].key, results[0][g].key);
      EXPECT_TRUE(other[g].values == results[0][g].values);
    }
  }
  // Key 1 holds v with v mod 100 mod 7 == 1: the smallest is 1, the largest 3999 (99 mod 7 = 1).
  EXPECT_TRUE(results[0][1].values[1] == 1);
  EXPECT_TRUE(results[0][1].values[2] == 3999);
}

TEST_P(dataflow_test, an_empty_source_still_finishes_and_releases_its_dependents) {
  tasks::runtime runtime({.workers = GetParam()});
  const table empty = numbers(0, 16);
  const table source = numbers(100, 16);
  ASSERT_EQ(empty.fragment_count(), 0U);
  for (auto mode : {finalize_mode::sequential, finalize_mode::parallel, finalize_mode::reduce}) {
    sum_sink nothing(GetParam());
    sum_sink after(GetParam());
    dataflow_graph graph;
    const auto first = graph.add(summing(empty, nothing));
    const auto second = graph.add(summing(source, after));
    graph.depends_on(second, first);
    const auto statistics = graph.run(runtime, {.prefetch = prefetch_strategy::automatic, .finalize = mode});
    EXPECT_EQ(nothing.total, 0);
    EXPECT_EQ(after.total, 5050);
    EXPECT_EQ(statistics.fragments, source.fragment_count());
    EXPECT_EQ(graph.completion_order(), (std::vector<std::size_t>{first, second}));
  }
}

INSTANTIATE_TEST_SUITE_P(workers, dataflow_test, ::testing::Values(1U, 2U));

TEST(dataflow, checks_its_arguments) {
  const table source = numbers(10, 4);
  dataflow_graph graph;
  EXPECT_THROW(graph.add({.name = "no source", .source = nullptr, .columns = {}, .consume = [](unsigned, std::size_t) {}}),
               std::invalid_argument);
  EXPECT_THROW(graph.add({.name = "no consume", .source = &source, .columns = {}, .consume = {}}), std::invalid_argument);
  EXPECT_THROW(graph.add({.name = "column", .source = &source, .columns = {2}, .consume = [](unsigned, std::size_t) {}}),
               std::invalid_argument);
  const auto a = graph.add({.name = "a", .source = &source, .columns = {0}, .consume = [](unsigned, std::size_t) {}});
  const auto b = graph.add({.name = "b", .source = &source, .columns = {0}, .consume = [](unsigned, std::size_t) {}});
  EXPECT_THROW(graph.depends_on(a, a), std::invalid_argument);
  EXPECT_THROW(graph.depends_on(a, 9), std::invalid_argument);
  graph.depends_on(b, a);
  graph.depends_on(a, b);
  tasks::runtime runtime({.workers = 1});
  EXPECT_THROW(graph.run(runtime, {}), std::invalid_argument);  // a cycle
}

TEST(dataflow, names_parse_back_and_unknown_names_are_refused) {
  for (auto s : {prefetch_strategy::none, prefetch_strategy::first_lines, prefetch_strategy::whole_column, prefetch_strategy::automatic}) {
    EXPECT_EQ(parse_prefetch_strategy(to_string(s)), s);
  }
  for (auto m : {finalize_mode::sequential, finalize_mode::parallel, finalize_mode::reduce}) EXPECT_EQ(parse_finalize_mode(to_string(m)), m);
  EXPECT_THROW(parse_prefetch_strategy("all"), std::invalid_argument);
  EXPECT_THROW(parse_finalize_mode(""), std::invalid_argument);
}

// ---- prefetching -----------------------------------------------------------------------------

TEST(prefetch_plan, first_lines_cover_the_header_and_each_columns_first_line) {
  const table source = numbers(1000, 256);
  const std::size_t columns[] = {0, 1};
  const prefetch_plan plan = make_prefetch_plan(source, columns);
  ASSERT_EQ(plan.count, 3U);
  EXPECT_EQ(plan.ranges[0].offset, 0U);
  EXPECT_EQ(plan.ranges[0].bytes, 64U);
  EXPECT_EQ(plan.ranges[1].offset, source.column_offset(0));
  EXPECT_EQ(plan.ranges[1].bytes, 64U);
  EXPECT_EQ(plan.ranges[2].offset, source.column_offset(1));
  EXPECT_EQ(plan.lines(), 3U);

  const prefetch_plan whole = make_prefetch_plan(source, columns, 1);
  EXPECT_EQ(whole.ranges[1].bytes, 64U);
  EXPECT_EQ(whole.ranges[2].bytes, 256U * 4U);  // every date of a full fragment
  EXPECT_EQ(whole.lines(), 1U + 1U + 16U);

  const table tiny = numbers(10, 2);  // columns narrower than a line
  EXPECT_EQ(make_prefetch_plan(tiny, columns).ranges[1].bytes, 16U);
  const std::size_t bad[] = {5};
  EXPECT_THROW((void)make_prefetch_plan(source, bad), std::invalid_argument);
}

TEST(prefetch_registry, slots_hold_their_plans_and_have_distinct_callbacks) {
  const table source = numbers(100, 64);
  const std::size_t columns[] = {0};
  const prefetch_plan plan = make_prefetch_plan(source, columns);
  const auto slot = prefetch_registry::claim(plan);
  ASSERT_TRUE(slot.has_value());
  EXPECT_EQ(prefetch_registry::plan(*slot).count, plan.count);
  EXPECT_EQ(prefetch_registry::plan(*slot).ranges[1].offset, plan.ranges[1].offset);
  EXPECT_NE(prefetch_registry::callback(0), prefetch_registry::callback(1));
  prefetch_registry::callback(*slot)(source.fragment(0));  // touches only the fragment's lines
  std::vector<unsigned> taken{*slot};
  while (auto more = prefetch_registry::claim(plan)) taken.push_back(*more);
  EXPECT_EQ(taken.size(), prefetch_slot_count);
  for (const unsigned s : taken) prefetch_registry::release(s);
  EXPECT_EQ(prefetch_registry::slots_in_use(), 0U);
  EXPECT_THROW((void)prefetch_registry::callback(prefetch_slot_count), std::invalid_argument);
}

TEST(prefetch_strategy_choice, automatic_takes_the_whole_column_only_for_a_selective_predicate) {
  tasks::runtime runtime({.workers = 2});
  const table source = numbers(4000, 512);
  auto run_with = [&](std::int64_t high_date, prefetch_strategy strategy) {
    auto filter = std::make_shared<predicate>(predicate::range(source, "d", 0, high_date));
    sum_sink sums(2);
    pipeline stage = summing(source, sums);
    stage.columns = {0, 1};
    stage.predicate_column = 1;
    stage.predicate_count = [filter, &source](std::size_t f) { return filter->count(source, f); };
    dataflow_graph graph;
    graph.add(std::move(stage));
    graph.run(runtime, {.prefetch = strategy, .finalize = finalize_mode::parallel});
    EXPECT_EQ(sums.total, 4000 * 4001 / 2);
    return graph.reports().front();
  };
  const auto selective = run_with(4, prefetch_strategy::automatic);  // 5 % of d values
  EXPECT_EQ(selective.strategy, prefetch_strategy::whole_column);
  EXPECT_NEAR(selective.sampled_selectivity, 0.05, 0.01);
  EXPECT_TRUE(selective.prefetched);
  EXPECT_EQ(selective.plan.ranges[2].bytes, 512U * 4U);
  const auto broad = run_with(49, prefetch_strategy::automatic);  // 50 %
  EXPECT_EQ(broad.strategy, prefetch_strategy::first_lines);
  EXPECT_EQ(broad.plan.ranges[2].bytes, 64U);
  EXPECT_EQ(run_with(49, prefetch_strategy::whole_column).strategy, prefetch_strategy::whole_column);
  const auto none = run_with(49, prefetch_strategy::none);
  EXPECT_FALSE(none.prefetched);
  EXPECT_EQ(none.plan.count, 0U);
  EXPECT_EQ(prefetch_registry::slots_in_use(), 0U);
}

// A scan of one column without a predicate: that column is dominant, so automatic (and
// whole_column) prefetch all of it; two columns without a predicate take first lines.
TEST(prefetch_strategy_choice, a_one_column_scan_prefetches_its_column_whole) {
  tasks::runtime runtime({.workers = 1});
  const table source = numbers(3000, 512);
  auto run_with = [&](std::vector<std::size_t> columns, prefetch_strategy strategy) {
    sum_sink sums(1);
    pipeline stage = summing(source, sums);
    stage.columns = std::move(columns);
    dataflow_graph graph;
    graph.add(std::move(stage));
    graph.run(runtime, {.prefetch = strategy, .finalize = finalize_mode::sequential});
    EXPECT_EQ(sums.total, 3000 * 3001 / 2);
    return graph.reports().front();
  };
  const auto scan = run_with({0}, prefetch_strategy::automatic);
  EXPECT_EQ(scan.strategy, prefetch_strategy::whole_column);
  EXPECT_EQ(scan.plan.ranges[1].bytes, 512U * 8U);
  EXPECT_EQ(run_with({0}, prefetch_strategy::whole_column).plan.ranges[1].bytes, 512U * 8U);
  const auto two = run_with({0, 1}, prefetch_strategy::automatic);
  EXPECT_EQ(two.strategy, prefetch_strategy::first_lines);
  EXPECT_EQ(two.plan.ranges[1].bytes, 64U);
  EXPECT_EQ(run_with({0, 1}, prefetch_strategy::whole_column).plan.ranges[1].bytes, 64U);  // none is dominant
  const table long_fragments = numbers(70000, 65536);  // a 512 KiB column: only its start is prefetched
  const std::size_t only[] = {0};
  EXPECT_EQ(make_prefetch_plan(long_fragments, only, 0).ranges[1].bytes, whole_column_prefetch_bytes);
}

}  // namespace
}  // namespace braid::query
