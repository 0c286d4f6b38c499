// braid-test: concurrent
// braid-test: workload
#include "braid/query/tpch_queries.hpp"
#include "braid/query/operators.hpp"

#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include <unistd.h>

#include "query_runs.hpp"
#include "tpch.hpp"
#include "tpch_reference.hpp"

namespace braid::query {
namespace {

namespace fs = std::filesystem;

// SF 0.01 generated once, loaded as query tables (fragments of 32, 1,024 and 65,536 tuples)
// and as the reference's rows.
class tpch_queries : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    directory_ = new fs::path(fs::temp_directory_path() / ("braid_tpch_queries_" + std::to_string(::getpid())));
    fs::create_directories(*directory_);
    bench::tpch::generate({.scale_factor = 0.01, .seed = 11, .out = *directory_, .tables = {}});
    reference_ = new bench::tpch::reference_data(bench::tpch::load_reference_data(*directory_));
    databases_ = new std::map<std::size_t, tpch_database>();
    (*databases_)[1024] = load_tpch(*directory_, {.tuples_per_fragment = 1024});
    for (const std::size_t size : {std::size_t{32}, std::size_t{65536}}) {
      tpch_database copy;
      for (std::size_t t = 0; t < tpch_table_count; ++t) {
        const auto which = static_cast<tpch_table>(t);
        copy.put(which, (*databases_)[1024].get(which).with_tuples_per_fragment(size));
      }
      (*databases_)[size] = std::move(copy);
    }
    runtimes_[0] = new tasks::runtime({.workers = 1});
    runtimes_[1] = new tasks::runtime({.workers = 2});
  }
  static void TearDownTestSuite() {
    delete runtimes_[0];
    delete runtimes_[1];
    delete databases_;
    delete reference_;
    std::error_code ignored;
    fs::remove_all(*directory_, ignored);
    delete directory_;
  }

  static const tpch_database& database(std::size_t tuples_per_fragment) { return databases_->at(tuples_per_fragment); }
  static tasks::runtime& runtime(unsigned workers) { return *runtimes_[workers - 1]; }

  static inline fs::path* directory_ = nullptr;
  static inline bench::tpch::reference_data* reference_ = nullptr;
  static inline std::map<std::size_t, tpch_database>* databases_ = nullptr;
  static inline tasks::runtime* runtimes_[2] = {nullptr, nullptr};
};

void expect_same(const result& engine, const result& reference, const std::string& where) {
  ASSERT_EQ(engine.columns, reference.columns) << where;
  ASSERT_EQ(engine.rows.size(), reference.rows.size()) << where << "\n" << engine.to_string() << "vs\n" << reference.to_string();
  for (std::size_t r = 0; r < engine.rows.size(); ++r) {
    ASSERT_TRUE(engine.rows[r] == reference.rows[r]) << where << " row " << r << "\n" << engine.to_string() << "vs\n"
                                                     << reference.to_string();
  }
}

TEST_F(tpch_queries, every_query_equals_the_reference_in_every_configuration) {
  for (const int number : tpch_query_numbers) {
    const result expected = bench::tpch::reference_query(number, *reference_);
    ASSERT_FALSE(expected.rows.empty()) << "Q" << number;
    for (const std::size_t fragment : {std::size_t{32}, std::size_t{1024}, std::size_t{65536}}) {
      for (const unsigned workers : {1U, 2U}) {
        for (auto prefetch : {prefetch_strategy::none, prefetch_strategy::first_lines, prefetch_strategy::whole_column,
                              prefetch_strategy::automatic}) {
          for (auto finalize : {finalize_mode::sequential, finalize_mode::parallel, finalize_mode::reduce}) {
            for (const bool bloom : {true, false}) {
              if (!bloom && (prefetch != prefetch_strategy::automatic || finalize != finalize_mode::reduce)) continue;
              const std::string where = "Q" + std::to_string(number) + " fragment " + std::to_string(fragment) + " workers " +
                                        std::to_string(workers) + " " + std::string(to_string(prefetch)) + " " +
                                        std::string(to_string(finalize)) + (bloom ? "" : " no bloom");
              const query_run run = run_tpch_query(number, database(fragment), runtime(workers), {},
                                                   {.prefetch = prefetch, .finalize = finalize, .bloom_filters = bloom});
              expect_same(run.rows, expected, where);
              EXPECT_GE(run.statistics.pipelines, 1U) << where;
              EXPECT_GE(run.statistics.fragments, database(fragment).get(tpch_table::lineitem).fragment_count()) << where;
              if (HasFatalFailure()) return;
            }
          }
        }
      }
    }
  }
}

TEST_F(tpch_queries, other_parameters_agree_with_the_reference_too) {
  tpch_parameters changed;
  changed.q1_delta_days = 60;
  changed.q3_segment = "MACHINERY";
  changed.q3_date = std::chrono::sys_days{std::chrono::year{1995} / 3 / 31};
  changed.q5_region = "EUROPE";
  changed.q5_date = std::chrono::sys_days{std::chrono::year{1996} / 1 / 1};
  changed.q6_date = std::chrono::sys_days{std::chrono::year{1995} / 1 / 1};
  changed.q6_discount_hundredths = 3;
  changed.q6_quantity = 25;
  changed.q10_date = std::chrono::sys_days{std::chrono::year{1994} / 1 / 31};  // + 3 months clamps to April 30
  changed.q12_shipmode1 = "AIR";
  changed.q12_shipmode2 = "TRUCK";
  changed.q14_date = std::chrono::sys_days{std::chrono::year{1996} / 1 / 31};
  changed.q19_brands = {"Brand#11", "Brand#22", "Brand#33"};
  changed.q19_quantities = {5, 15, 25};
  for (const int number : tpch_query_numbers) {
    const result expected = bench::tpch::reference_query(number, *reference_, changed);
    for (const unsigned workers : {1U, 2U}) {
      const query_run run = run_tpch_query(number, database(1024), runtime(workers), changed, {});
      const std::string where = "Q" + std::to_string(number) + " changed parameters, workers " + std::to_string(workers);
      expect_same(run.rows, expected, where);
    }
  }
}

TEST_F(tpch_queries, nothing_qualifies) {
  tpch_parameters never;
  never.q1_delta_days = 3000;
  never.q3_date = std::chrono::sys_days{std::chrono::year{1980} / 1 / 1};
  never.q5_region = "ATLANTIS";
  never.q6_date = std::chrono::sys_days{std::chrono::year{1980} / 1 / 1};
  never.q10_date = std::chrono::sys_days{std::chrono::year{1980} / 1 / 1};
  never.q12_shipmode1 = "CAMEL";
  never.q12_shipmode2 = "CAMEL";
  never.q14_date = std::chrono::sys_days{std::chrono::year{1980} / 1 / 1};
  never.q19_brands = {"Brand#99", "Brand#99", "Brand#99"};
  for (const int number : tpch_query_numbers) {
    for (const unsigned workers : {1U, 2U}) {
      if (number == 14) {
        EXPECT_THROW(run_tpch_query(number, database(1024), runtime(workers), never, {}), std::domain_error);
        EXPECT_THROW(bench::tpch::reference_query(number, *reference_, never), std::domain_error);
        continue;
      }
      const query_run run = run_tpch_query(number, database(1024), runtime(workers), never, {});
      expect_same(run.rows, bench::tpch::reference_query(number, *reference_, never), "Q" + std::to_string(number) + " empty");
      if (number == 6 || number == 19) {
        ASSERT_EQ(run.rows.rows.size(), 1U);
        EXPECT_EQ(run.rows.rows[0][0], cell::decimal(0, 4));
      } else {
        EXPECT_TRUE(run.rows.rows.empty()) << "Q" << number;
      }
    }
  }
  // The runtime still works after a query threw.
  const query_run after = run_tpch_query(6, database(1024), runtime(2), {}, {});
  expect_same(after.rows, bench::tpch::reference_query(6, *reference_), "Q6 after a throw");
}

TEST_F(tpch_queries, micro_queries) {
  const table& lineitem = database(1024).get(tpch_table::lineitem);
  int128 quantity = 0;
  for (std::uint64_t row = 0; row < lineitem.rows(); ++row) quantity += lineitem.at(row, lineitem.column_index("l_quantity")).number;
  tpch_parameters everything;
  everything.q1_delta_days = -100000;  // the shipdate bound is far in the future
  const result q1_all = bench::tpch::reference_query(1, *reference_, everything);
  for (const std::size_t fragment : {std::size_t{32}, std::size_t{1024}, std::size_t{65536}}) {
    for (const unsigned workers : {1U, 2U}) {
      for (auto finalize : {finalize_mode::sequential, finalize_mode::parallel, finalize_mode::reduce}) {
        const execution_options options{.prefetch = prefetch_strategy::first_lines, .finalize = finalize, .bloom_filters = true};
        const query_run sum = run_micro_query(micro_query::sum_quantity, database(fragment), runtime(workers), options);
        ASSERT_EQ(sum.rows.columns, std::vector<std::string>{"sum_quantity"});
        ASSERT_EQ(sum.rows.rows.size(), 1U);
        EXPECT_EQ(sum.rows.rows[0][0], cell::decimal(quantity, 2));
        EXPECT_EQ(sum.statistics.bytes_accessed, lineitem.rows() * 8);
        EXPECT_EQ(sum.statistics.fragments, database(fragment).get(tpch_table::lineitem).fragment_count());
        EXPECT_EQ(sum.statistics.pipelines, 1U);
        const query_run q1 = run_micro_query(micro_query::q1_unfiltered, database(fragment), runtime(workers), options);
        expect_same(q1.rows, q1_all, "q1_unfiltered");
      }
    }
  }
}

// Q1's groups are summed per fragment in a dense array when the returnflag x linestatus codes
// are few (TPC-H has 3 x 2); with more, each line goes to the hash aggregation directly.
TEST(tpch_q1_groups, many_flag_codes_take_the_hash_path_and_agree_with_a_row_at_a_time_sum) {
  const auto& columns = tpch_columns(tpch_table::lineitem);
  table_builder builder("lineitem", columns);
  for (std::int64_t i = 0; i < 3000; ++i) {
    std::vector<cell> row;
    for (const column_spec& column : columns) {
      if (column.name == "l_returnflag") {
        row.push_back(cell::text(std::string(1, static_cast<char>('A' + i % 5))));
      } else if (column.name == "l_linestatus") {
        row.push_back(cell::text(std::string(1, static_cast<char>('K' + i % 4))));
      } else if (column.type.kind == value_kind::text) {
        row.push_back(cell::text("x"));
      } else if (column.type.kind == value_kind::date) {
        row.push_back(cell::date(9000 + i % 700));
      } else if (column.type.kind == value_kind::decimal) {
        row.push_back(cell::decimal(column.name == "l_discount" || column.name == "l_tax" ? i % 11 : 100 + i * 13 % 9000, 2));
      } else {
        row.push_back(cell::integer(i));
      }
    }
    builder.append_row(row);
  }
  tpch_database data;
  data.put(tpch_table::lineitem, std::move(builder).finish(64));
  const table& lineitem = data.get(tpch_table::lineitem);
  std::map<std::pair<std::string, std::string>, std::array<int128, 6>> sums;
  for (std::uint64_t r = 0; r < lineitem.rows(); ++r) {
    auto value = [&](const char* name) { return lineitem.at(r, lineitem.column_index(name)); };
    auto& g = sums[{value("l_returnflag").string, value("l_linestatus").string}];
    const int128 price = value("l_extendedprice").number;
    const int128 discounted = price * (100 - value("l_discount").number);
    g[0] += value("l_quantity").number;
    g[1] += price;
    g[2] += discounted;
    g[3] += discounted * (100 + value("l_tax").number);
    g[4] += value("l_discount").number;
    g[5] += 1;
  }
  ASSERT_EQ(sums.size(), 20U);
  for (const unsigned workers : {1U, 2U}) {
    tasks::runtime runtime({.workers = workers});
    const query_run run = run_micro_query(micro_query::q1_unfiltered, data, runtime, {});
    ASSERT_EQ(run.rows.rows.size(), sums.size());
    auto expected = sums.begin();
    for (const auto& row : run.rows.rows) {
      const auto& g = expected->second;
      const auto count = static_cast<std::int64_t>(g[5]);
      EXPECT_EQ(row[0], cell::text(expected->first.first));
      EXPECT_EQ(row[1], cell::text(expected->first.second));
      EXPECT_EQ(row[2], cell::decimal(g[0], 2));
      EXPECT_EQ(row[3], cell::decimal(g[1], 2));
      EXPECT_EQ(row[4], cell::decimal(g[2], 4));
      EXPECT_EQ(row[5], cell::decimal(g[3], 6));
      EXPECT_EQ(row[6], average(g[0], 2, count));
      EXPECT_EQ(row[8], average(g[4], 2, count));
      EXPECT_EQ(row[9], cell::integer(count));
      ++expected;
    }
  }
}

TEST_F(tpch_queries, statistics_follow_the_plan) {
  const tpch_database& data = database(1024);
  const table& lineitem = data.get(tpch_table::lineitem);
  const query_run q6 = run_tpch_query(6, data, runtime(2), {}, {.prefetch = prefetch_strategy::none, .finalize = finalize_mode::parallel});
  EXPECT_EQ(q6.statistics.pipelines, 1U);
  EXPECT_EQ(q6.statistics.fragments, lineitem.fragment_count());
  EXPECT_EQ(q6.statistics.tasks, lineitem.fragment_count() + 2 + 2);  // fragments, barriers, parallel finalize
  EXPECT_EQ(q6.statistics.bytes_accessed, lineitem.rows() * (4 + 8 + 8 + 8));  // shipdate, discount, quantity, price
  const query_run q5 = run_tpch_query(5, data, runtime(2), {}, {});
  EXPECT_EQ(q5.statistics.pipelines, 6U);
}

TEST_F(tpch_queries, argument_errors) {
  for (const int number : {0, 2, 4, 7, 22, -1}) {
    EXPECT_THROW(run_tpch_query(number, database(1024), runtime(1)), std::invalid_argument) << number;
  }
  EXPECT_THROW(run_micro_query(static_cast<micro_query>(7), database(1024), runtime(1)), std::invalid_argument);
  EXPECT_THROW(run_tpch_query(6, tpch_database{}, runtime(1)), std::invalid_argument);  // lineitem not loaded
  EXPECT_THROW(parse_prefetch_strategy("sometimes"), std::invalid_argument);
  EXPECT_THROW(parse_finalize_mode("tree"), std::invalid_argument);
  EXPECT_EQ(parse_prefetch_strategy("whole_column"), prefetch_strategy::whole_column);
  EXPECT_EQ(parse_finalize_mode("reduce"), finalize_mode::reduce);
}

// Probing one key at a time and in groups of every size returns the same rows.
TEST_F(tpch_queries, every_probe_group_returns_the_reference_rows) {
  for (const int number : tpch_query_numbers) {
    const result expected = bench::tpch::reference_query(number, *reference_);
    for (const std::size_t group : {std::size_t{1}, std::size_t{3}, join_table::max_probe_group}) {
      for (const unsigned workers : {1U, 2U}) {
        expect_same(run_tpch_query(number, database(32), runtime(workers), {}, {.probe_group = group}).rows, expected,
                    "Q" + std::to_string(number) + " probe group " + std::to_string(group));
      }
    }
  }
  EXPECT_THROW((void)run_tpch_query(3, database(1024), runtime(1), {}, {.probe_group = 0}), std::invalid_argument);
  EXPECT_THROW((void)run_micro_query(micro_query::sum_quantity, database(1024), runtime(1),
                                     {.probe_group = join_table::max_probe_group + 1}),
               std::invalid_argument);
}

// Each plan reads only the columns tpch_query_columns names: loaded with exactly those, it
// still returns the reference's rows (a missing column would throw).
TEST_F(tpch_queries, each_query_needs_only_the_columns_it_names) {
  for (const int number : tpch_query_numbers) {
    const tpch_database narrow = load_tpch(*directory_, {.tuples_per_fragment = 1024, .tables = tpch_query_columns(number)});
    expect_same(run_tpch_query(number, narrow, runtime(2)).rows, bench::tpch::reference_query(number, *reference_),
                "Q" + std::to_string(number) + " on its own columns");
  }
  for (const micro_query which : {micro_query::sum_quantity, micro_query::q1_unfiltered}) {
    const tpch_database narrow = load_tpch(*directory_, {.tuples_per_fragment = 1024, .tables = micro_query_columns(which)});
    EXPECT_EQ(run_micro_query(which, narrow, runtime(1)).rows, run_micro_query(which, database(1024), runtime(1)).rows);
  }
  const table_columns both = merge_columns({tpch_query_columns(6), tpch_query_columns(14)});
  ASSERT_EQ(both.size(), 2U);
  EXPECT_EQ(both[0].first, tpch_table::part);
  EXPECT_EQ(both[1].second, (std::vector<std::string>{"l_shipdate", "l_discount", "l_quantity", "l_extendedprice", "l_partkey"}));
  EXPECT_THROW((void)tpch_query_columns(2), std::invalid_argument);
}

// Scale factor 0.1 (600,000 lineitems, ten times the fragments and groups of 0.01): every
// query on 1 and 2 workers, prefetching and not, against the reference.
TEST(tpch_queries_at_scale_0_1, every_query_equals_the_reference) {
  const fs::path directory = fs::temp_directory_path() / ("braid_tpch_queries_sf01_" + std::to_string(::getpid()));
  fs::create_directories(directory);
  bench::tpch::generate({.scale_factor = 0.1, .seed = 23, .out = directory, .tables = {}});
  const bench::tpch::reference_data reference = bench::tpch::load_reference_data(directory);
  const tpch_database data = load_tpch(directory, bench::query_columns(bench::parse_query_choices("all"), 1024));
  std::error_code ignored;
  fs::remove_all(directory, ignored);
  tasks::runtime one({.workers = 1});
  tasks::runtime two({.workers = 2});
  for (const int number : tpch_query_numbers) {
    const result expected = bench::tpch::reference_query(number, reference);
    ASSERT_FALSE(expected.rows.empty()) << "Q" << number;
    expect_same(run_tpch_query(number, data, one, {}, {.prefetch = prefetch_strategy::none,
                                                        .finalize = finalize_mode::sequential}).rows,
                expected, "Q" + std::to_string(number) + " at SF 0.1, 1 worker");
    expect_same(run_tpch_query(number, data, two, {}, {}).rows, expected,
                "Q" + std::to_string(number) + " at SF 0.1, 2 workers");
  }
}

}  // namespace
}  // namespace braid::query
