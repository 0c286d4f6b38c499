// TPC-C and TPC-CH on the transaction engine (bench/tpcc.hpp) and `braid-bench run tpcc`: the
// spec's population counts (REGION, NATION and SUPPLIER too), consistency conditions 1-4 after
// the load and after runs of every execution (plain, interleaved strict and refill, hybrid,
// batches 1, 4, 16) on one and two threads, TPC-CH runs included, batch-1 interleaved and
// hybrid runs of the TPC-CH mix that end in the plain run's exact state, each transaction
// (Q2* on a hand-made store, hybrid New-Order with a repeated item) on hand-made inputs
// checked against what it must write, the checker catching broken databases, the input
// distributions of every mix, and the experiment's settings end to end with bad values
// refused. The real population (one warehouse loads in about a second).
// braid-test: concurrent
// braid-test: workload
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "bench_program.hpp"
#include "braid/core/task.hpp"
#include "braid/txn/transaction_scheduler.hpp"
#include "tpcc.hpp"

// The ThreadSanitizer build runs this file for its two-thread runs; the single-threaded tests,
// whose loads take ten times as long there, run in the other builds.
#if defined(__SANITIZE_THREAD__)
#define BRAID_TPCC_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BRAID_TPCC_UNDER_TSAN 1
#endif
#endif
#ifndef BRAID_TPCC_UNDER_TSAN
#define BRAID_TPCC_UNDER_TSAN 0
#endif

namespace braid::bench::tpcc {
namespace {

using txn::status;

constexpr bool under_thread_sanitizer = BRAID_TPCC_UNDER_TSAN != 0;
#define SKIP_UNDER_TSAN()                                                        \
  if (under_thread_sanitizer) GTEST_SKIP() << "single-threaded: run in the other builds"

std::unique_ptr<store> loaded(std::uint32_t warehouses, std::uint64_t seed = 42) {
  auto shop = std::make_unique<store>(txn::database_options{}, warehouses);
  load(*shop, seed, 2);
  return shop;
}

// One attempt of `input` as a batch of one interleaved transaction (hybrid: `reads`).
status run_interleaved(store& shop, const transaction_input& input, transaction_output& out, row_reads reads) {
  status result = status::invalid_argument;
  EXPECT_EQ(txn::run_transactions({.size = 1, .policy = txn::batch_policy::strict}, 1,
                                  [&](std::size_t) { return attempt<interleaved>(shop, input, out, reads); },
                                  [&](std::size_t, status s) { result = s; }),
            status::ok);
  return result;
}

// One attempt of `input`, run plainly.
status run_plain(store& shop, const transaction_input& input, transaction_output& out) {
  task<status> one = attempt<sequential>(shop, input, out);
  one.resume();
  EXPECT_TRUE(one.done());
  return one.take_result();
}

template <class Row>
bool read(store& shop, txn::table_handle table, const key_bytes& key, Row& row) {
  txn::transaction tx = shop.db().begin();
  std::string value;
  const bool found = tx.get(table, key.view(), value) == status::ok && decode(value, row);
  tx.commit();
  return found;
}

// Every row of `table` whose key starts with `prefix`, in key order.
template <class Row>
std::vector<Row> rows_with_prefix(store& shop, txn::table_handle table, std::string_view prefix) {
  std::vector<Row> out;
  txn::transaction tx = shop.db().begin();
  EXPECT_EQ(tx.scan(table, prefix, SIZE_MAX, [&](std::string_view key, std::string_view value) {
    Row row;
    if (key.substr(0, prefix.size()) == prefix && decode(value, row)) out.push_back(row);
  }), status::ok);
  tx.commit();
  return out;
}

std::string describe(const consistency_report& report) {
  std::string text;
  for (const std::string& line : report.violations) text += line + "\n";
  return text;
}

workload stream_of(const store& shop, std::uint64_t seed, mix which = mix::tpcc) {
  return {.warehouses = shop.warehouses(), .mix = which, .seed = seed, .constants = shop.constants()};
}

// One warehouse, loaded once for the tests that read it or make changes they account for.
class TpccStore : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!under_thread_sanitizer) shop_ = loaded(1).release();
  }
  void SetUp() override { SKIP_UNDER_TSAN(); }
  static void TearDownTestSuite() {
    delete shop_;
    shop_ = nullptr;
  }
  static store* shop_;
};
store* TpccStore::shop_ = nullptr;

TEST_F(TpccStore, PopulationCountsFollowTheSpec) {
  const std::array<std::uint64_t, 12> counts = row_counts(*shop_);
  EXPECT_EQ(counts[0], 1u);
  EXPECT_EQ(counts[1], 10u);
  EXPECT_EQ(counts[2], 30000u);
  EXPECT_EQ(counts[3], 30000u);
  EXPECT_EQ(counts[4], 9000u);
  EXPECT_EQ(counts[5], 30000u);
  EXPECT_GE(counts[6], 30000u * 5);  // 5..15 lines per order, ~10 on average
  EXPECT_LE(counts[6], 30000u * 15);
  EXPECT_NEAR(static_cast<double>(counts[6]) / 30000, 10.0, 0.2);
  EXPECT_EQ(counts[7], 100000u);
  EXPECT_EQ(counts[8], 100000u);
  EXPECT_EQ(counts[9], region_count);
  EXPECT_EQ(counts[10], nation_count);
  EXPECT_EQ(counts[11], default_suppliers);
  EXPECT_EQ(row_count(*shop_, shop_->tables().supplier), default_suppliers);
  // Every nation in its region (k mod 5) under its code; every supplier of nation s mod 62.
  const std::vector<nation_row> nations = rows_with_prefix<nation_row>(*shop_, shop_->tables().nation, "");
  ASSERT_EQ(nations.size(), nation_count);
  for (std::uint32_t k = 0; k < nation_count; ++k) {
    EXPECT_EQ(nations[k].n_nationkey, nation_code(k)) << k;  // '0' < 'A' < 'a': key order is number order
    EXPECT_EQ(nations[k].n_regionkey, k % 5) << k;
  }
  EXPECT_EQ(nation_code(0), std::uint32_t{'0'});
  EXPECT_EQ(nation_code(10), std::uint32_t{'A'});
  EXPECT_EQ(nation_code(61), std::uint32_t{'z'});
  const std::vector<region_row> regions = rows_with_prefix<region_row>(*shop_, shop_->tables().region, "");
  ASSERT_EQ(regions.size(), region_count);
  EXPECT_EQ(text_of(regions[4].name), "MIDDLE EAST");
  const std::vector<supplier_row> suppliers = rows_with_prefix<supplier_row>(*shop_, shop_->tables().supplier, "");
  ASSERT_EQ(suppliers.size(), default_suppliers);
  for (std::uint32_t s = 0; s < default_suppliers; ++s) {
    EXPECT_EQ(suppliers[s].su_suppkey, s);
    EXPECT_EQ(suppliers[s].su_nationkey, nation_code(s % 62));
    EXPECT_EQ(text_of(suppliers[s].phone).size(), 15u);
    EXPECT_TRUE(suppliers[s].acctbal >= -99999 && suppliers[s].acctbal <= 999999);
  }
  // Supplier s supplies the stock rows with (w * i) mod 10000 == s: i = s, s + 10000, ... (w = 1).
  ASSERT_EQ(shop_->supplier_stock(7).size(), 10u);
  for (std::size_t n = 0; n < 10; ++n) EXPECT_EQ(shop_->supplier_stock(7)[n].i, 7 + 10000 * n);
  ASSERT_EQ(shop_->supplier_stock(0).size(), 10u);
  EXPECT_EQ(shop_->supplier_stock(0)[0].i, 10000u);
  const consistency_report report = check_consistency(*shop_);
  EXPECT_TRUE(report.ok()) << describe(report);
}

TEST_F(TpccStore, PopulationFieldsFollowTheSpec) {
  const std::vector<customer_row> customers = rows_with_prefix<customer_row>(*shop_, shop_->tables().customer, district_key(1, 3).view());
  ASSERT_EQ(customers.size(), 3000u);
  std::size_t bad_credit = 0;
  for (const customer_row& c : customers) {
    if (c.c_id <= 1000) {
      EXPECT_EQ(text_of(c.last), last_name(c.c_id - 1)) << c.c_id;
    }
    EXPECT_EQ(c.balance, -1000);
    EXPECT_GE(c.data_length, 300u);
    bad_credit += text_of(c.credit) == "BC" ? 1 : 0;
  }
  EXPECT_NEAR(static_cast<double>(bad_credit) / 3000, 0.10, 0.03);
  const std::vector<item_row> items = rows_with_prefix<item_row>(*shop_, shop_->tables().item, "");
  const std::size_t original = static_cast<std::size_t>(std::count_if(items.begin(), items.end(), [](const item_row& i) {
    return text_of(i.data).find("ORIGINAL") != std::string_view::npos;
  }));
  EXPECT_NEAR(static_cast<double>(original) / 100000, 0.10, 0.01);
  const std::vector<order_row> orders = rows_with_prefix<order_row>(*shop_, shop_->tables().order, district_key(1, 7).view());
  ASSERT_EQ(orders.size(), 3000u);
  std::set<std::uint32_t> buyers;
  for (const order_row& o : orders) {
    buyers.insert(o.c_id);
    EXPECT_EQ(o.carrier_id == 0, o.o_id >= first_new_order) << o.o_id;
  }
  EXPECT_EQ(buyers.size(), 3000u) << "the orders' customers are a permutation";
  const std::vector<new_order_row> fresh = rows_with_prefix<new_order_row>(*shop_, shop_->tables().new_order, district_key(1, 7).view());
  ASSERT_EQ(fresh.size(), 900u);
  EXPECT_EQ(fresh.front().o_id, first_new_order);
  EXPECT_EQ(fresh.back().o_id, 3000u);
}

transaction_input new_order_input(std::uint32_t d, std::uint32_t c, std::vector<order_item> items) {
  transaction_input in;
  in.what = kind::new_order;
  in.w = in.c_w = 1;
  in.d = in.c_d = d;
  in.c_id = c;
  in.ol_cnt = static_cast<std::uint32_t>(items.size());
  std::copy(items.begin(), items.end(), in.items.begin());
  in.date = 777;
  return in;
}

TEST_F(TpccStore, NewOrderInsertsItsRowsAndBumpsTheDistrict) {
  store& shop = *shop_;
  district_row before{};
  ASSERT_TRUE(read(shop, shop.tables().district, district_key(1, 4), before));
  stock_row stock_before{};
  ASSERT_TRUE(read(shop, shop.tables().stock, stock_key(1, 17), stock_before));
  const std::vector<order_item> items = {{17, 1, 3}, {18, 1, 9}, {19, 1, 1}, {20, 1, 2}, {21, 1, 5}};
  transaction_output out;
  ASSERT_EQ(run_plain(shop, new_order_input(4, 123, items), out), status::ok);
  EXPECT_EQ(out.o_id, before.next_o_id);
  district_row after{};
  ASSERT_TRUE(read(shop, shop.tables().district, district_key(1, 4), after));
  EXPECT_EQ(after.next_o_id, before.next_o_id + 1);
  order_row order{};
  ASSERT_TRUE(read(shop, shop.tables().order, order_key(1, 4, out.o_id), order));
  EXPECT_EQ(order.c_id, 123u);
  EXPECT_EQ(order.ol_cnt, 5u);
  EXPECT_EQ(order.all_local, 1u);
  EXPECT_EQ(order.carrier_id, 0u);
  new_order_row fresh{};
  EXPECT_TRUE(read(shop, shop.tables().new_order, new_order_key(1, 4, out.o_id), fresh));
  const std::vector<order_line_row> lines =
      rows_with_prefix<order_line_row>(shop, shop.tables().order_line, order_key(1, 4, out.o_id).view());
  ASSERT_EQ(lines.size(), 5u);
  std::int64_t sum = 0;
  for (std::size_t n = 0; n < lines.size(); ++n) {
    item_row item{};
    ASSERT_TRUE(read(shop, shop.tables().item, item_key(items[n].i_id), item));
    EXPECT_EQ(lines[n].i_id, items[n].i_id);
    EXPECT_EQ(lines[n].amount, item.price * items[n].quantity);
    sum += lines[n].amount;
  }
  EXPECT_GT(out.total, 0);
  EXPECT_LE(out.total, sum * 12 / 10 + 1);  // at most 20 % tax on a discounted sum
  stock_row stock_after{};
  ASSERT_TRUE(read(shop, shop.tables().stock, stock_key(1, 17), stock_after));
  const std::int32_t expected = stock_before.quantity >= 13 ? stock_before.quantity - 3 : stock_before.quantity - 3 + 91;
  EXPECT_EQ(stock_after.quantity, expected);
  EXPECT_EQ(stock_after.ytd, stock_before.ytd + 3);
  EXPECT_EQ(stock_after.order_cnt, stock_before.order_cnt + 1);
  // The order is the customer's newest: Order-Status finds it.
  transaction_input status_input;
  status_input.what = kind::order_status;
  status_input.w = status_input.c_w = 1;
  status_input.d = status_input.c_d = 4;
  status_input.c_id = 123;
  transaction_output seen;
  ASSERT_EQ(run_plain(shop, status_input, seen), status::ok);
  EXPECT_EQ(seen.o_id, out.o_id);
  EXPECT_EQ(seen.lines, 5u);
  EXPECT_EQ(seen.total, sum);
  EXPECT_TRUE(check_consistency(shop).ok());
}

TEST_F(TpccStore, NewOrderRollbackLeavesNothing) {
  const std::uint64_t before = state_digest(*shop_);
  transaction_output out;
  const transaction_input in = new_order_input(2, 55, {{100, 1, 2}, {200, 1, 3}, {unused_item, 1, 1}});
  EXPECT_EQ(run_plain(*shop_, in, out), status::abort_user);
  EXPECT_EQ(state_digest(*shop_), before);
}

// Hybrid New-Order reads every line's stock before it writes any: a repeated item's second line
// must take the first line's update, as the one-read-per-line form does.
TEST_F(TpccStore, HybridNewOrderChainsARepeatedItemsStock) {
  store& shop = *shop_;
  stock_row before{};
  ASSERT_TRUE(read(shop, shop.tables().stock, stock_key(1, 31), before));
  const auto take = [](std::int32_t q, std::int32_t n) { return q >= n + 10 ? q - n : q - n + 91; };
  const std::vector<order_item> items = {{31, 1, 3}, {32, 1, 2}, {31, 1, 9}};
  transaction_output out;
  ASSERT_EQ(run_interleaved(shop, new_order_input(6, 9, items), out, row_reads::multi_get), status::ok);
  stock_row after{};
  ASSERT_TRUE(read(shop, shop.tables().stock, stock_key(1, 31), after));
  EXPECT_EQ(after.quantity, take(take(before.quantity, 3), 9));
  EXPECT_EQ(after.ytd, before.ytd + 12);
  EXPECT_EQ(after.order_cnt, before.order_cnt + 2);
  const std::vector<order_line_row> lines =
      rows_with_prefix<order_line_row>(shop, shop.tables().order_line, order_key(1, 6, out.o_id).view());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2].i_id, 31u);
  EXPECT_EQ(lines[2].quantity, 9u);
  // The hybrid rollback leaves nothing either.
  const std::uint64_t digest = state_digest(shop);
  const transaction_input rollback = new_order_input(2, 55, {{100, 1, 2}, {200, 1, 3}, {unused_item, 1, 1}});
  EXPECT_EQ(run_interleaved(shop, rollback, out, row_reads::multi_get), status::abort_user);
  EXPECT_EQ(state_digest(shop), digest);
  EXPECT_TRUE(check_consistency(shop).ok());
}

TEST_F(TpccStore, PaymentUpdatesTheYearToDateAndInsertsHistory) {
  store& shop = *shop_;
  warehouse_row house{};
  district_row district{};
  customer_row customer{};
  ASSERT_TRUE(read(shop, shop.tables().warehouse, warehouse_key(1), house));
  ASSERT_TRUE(read(shop, shop.tables().district, district_key(1, 6), district));
  ASSERT_TRUE(read(shop, shop.tables().customer, customer_key(1, 6, 42), customer));
  const std::uint64_t histories = row_counts(shop)[3];
  transaction_input in;
  in.what = kind::payment;
  in.w = in.c_w = 1;
  in.d = in.c_d = 6;
  in.c_id = 42;
  in.amount = 12345;
  transaction_output out;
  ASSERT_EQ(run_plain(shop, in, out), status::ok);
  warehouse_row house_after{};
  district_row district_after{};
  customer_row customer_after{};
  ASSERT_TRUE(read(shop, shop.tables().warehouse, warehouse_key(1), house_after));
  ASSERT_TRUE(read(shop, shop.tables().district, district_key(1, 6), district_after));
  ASSERT_TRUE(read(shop, shop.tables().customer, customer_key(1, 6, 42), customer_after));
  EXPECT_EQ(house_after.ytd, house.ytd + 12345);
  EXPECT_EQ(district_after.ytd, district.ytd + 12345);
  EXPECT_EQ(customer_after.balance, customer.balance - 12345);
  EXPECT_EQ(customer_after.ytd_payment, customer.ytd_payment + 12345);
  EXPECT_EQ(customer_after.payment_cnt, customer.payment_cnt + 1);
  if (text_of(customer.credit) == "BC") {
    EXPECT_EQ(text_of(customer_after.data).substr(0, 14), "42 6 1 6 1 123");
  }
  EXPECT_EQ(row_counts(shop)[3], histories + 1);
  EXPECT_TRUE(check_consistency(shop).ok());
}

// By last name: of the district's customers with the name, ordered by first name, the one at
// position ceil(n / 2), as a plain loop over the district finds it.
TEST_F(TpccStore, PaymentAndOrderStatusByLastNameTakeTheMiddleCustomer) {
  store& shop = *shop_;
  const std::vector<customer_row> all = rows_with_prefix<customer_row>(shop, shop.tables().customer, district_key(1, 9).view());
  std::map<std::string, std::vector<customer_row>> by_name;
  for (const customer_row& c : all) by_name[std::string(text_of(c.last))].push_back(c);
  std::size_t checked = 0;
  for (auto& [name, group] : by_name) {
    if (group.size() < 2 || checked >= 5) continue;
    std::sort(group.begin(), group.end(), [](const customer_row& a, const customer_row& b) {
      return text_of(a.first) < text_of(b.first);
    });
    const std::uint32_t expected = group[(group.size() + 1) / 2 - 1].c_id;
    transaction_input in;
    in.what = kind::order_status;
    in.w = in.c_w = 1;
    in.d = in.c_d = 9;
    in.by_name = true;
    in.c_last = name;
    transaction_output out;
    ASSERT_EQ(run_plain(shop, in, out), status::ok);
    EXPECT_EQ(out.c_id, expected) << name << " among " << group.size();
    in.what = kind::payment;
    in.amount = 100;
    ASSERT_EQ(run_plain(shop, in, out), status::ok);
    EXPECT_EQ(out.c_id, expected) << name;
    ++checked;
  }
  EXPECT_EQ(checked, 5u);
}

TEST_F(TpccStore, DeliveryDeliversEachDistrictsOldestNewOrder) {
  store& shop = *shop_;
  struct expected_delivery {
    std::uint32_t o_id, c_id;
    std::int64_t amount, balance;
    std::uint32_t deliveries;
  };
  std::vector<expected_delivery> expected;
  for (std::uint32_t d = 1; d <= districts_per_warehouse; ++d) {
    const std::vector<new_order_row> fresh = rows_with_prefix<new_order_row>(shop, shop.tables().new_order, district_key(1, d).view());
    ASSERT_FALSE(fresh.empty());
    order_row order{};
    ASSERT_TRUE(read(shop, shop.tables().order, order_key(1, d, fresh.front().o_id), order));
    std::int64_t amount = 0;
    for (const order_line_row& line : rows_with_prefix<order_line_row>(shop, shop.tables().order_line, order_key(1, d, order.o_id).view())) {
      amount += line.amount;
    }
    customer_row customer{};
    ASSERT_TRUE(read(shop, shop.tables().customer, customer_key(1, d, order.c_id), customer));
    expected.push_back({order.o_id, order.c_id, amount, customer.balance, customer.delivery_cnt});
  }
  transaction_input in;
  in.what = kind::delivery;
  in.w = 1;
  in.carrier = 7;
  in.date = 4242;
  transaction_output out;
  ASSERT_EQ(run_plain(shop, in, out), status::ok);
  EXPECT_EQ(out.delivered, districts_per_warehouse);
  for (std::uint32_t d = 1; d <= districts_per_warehouse; ++d) {
    const expected_delivery& e = expected[d - 1];
    new_order_row gone{};
    EXPECT_FALSE(read(shop, shop.tables().new_order, new_order_key(1, d, e.o_id), gone));
    order_row order{};
    ASSERT_TRUE(read(shop, shop.tables().order, order_key(1, d, e.o_id), order));
    EXPECT_EQ(order.carrier_id, 7u);
    for (const order_line_row& line : rows_with_prefix<order_line_row>(shop, shop.tables().order_line, order_key(1, d, e.o_id).view())) {
      EXPECT_EQ(line.delivery_d, 4242u);
    }
    customer_row customer{};
    ASSERT_TRUE(read(shop, shop.tables().customer, customer_key(1, d, e.c_id), customer));
    EXPECT_EQ(customer.balance, e.balance + e.amount);
    EXPECT_EQ(customer.delivery_cnt, e.deliveries + 1);
  }
  // The next Delivery takes each district's next order.
  in.carrier = 3;
  ASSERT_EQ(run_plain(shop, in, out), status::ok);
  for (std::uint32_t d = 1; d <= districts_per_warehouse; ++d) {
    order_row order{};
    ASSERT_TRUE(read(shop, shop.tables().order, order_key(1, d, expected[d - 1].o_id + 1), order));
    EXPECT_EQ(order.carrier_id, 3u) << "district " << d;
    const std::vector<new_order_row> left = rows_with_prefix<new_order_row>(shop, shop.tables().new_order, district_key(1, d).view());
    ASSERT_FALSE(left.empty());
    EXPECT_EQ(left.front().o_id, expected[d - 1].o_id + 2);
  }
  EXPECT_TRUE(check_consistency(shop).ok());
}

TEST_F(TpccStore, StockLevelCountsWhatAPlainLoopCounts) {
  store& shop = *shop_;
  for (std::uint32_t d : {1u, 5u, 10u}) {
    district_row district{};
    ASSERT_TRUE(read(shop, shop.tables().district, district_key(1, d), district));
    std::set<std::uint32_t> items;
    for (std::uint32_t o = district.next_o_id - 20; o < district.next_o_id; ++o) {
      for (const order_line_row& line : rows_with_prefix<order_line_row>(shop, shop.tables().order_line, order_key(1, d, o).view())) {
        items.insert(line.i_id);
      }
    }
    std::vector<std::int32_t> quantities;
    for (std::uint32_t item : items) {
      stock_row stock{};
      ASSERT_TRUE(read(shop, shop.tables().stock, stock_key(1, item), stock));
      quantities.push_back(stock.quantity);
    }
    for (std::uint32_t threshold : {10u, 15u, 20u, 60u}) {
      const auto low = static_cast<std::uint32_t>(std::count_if(quantities.begin(), quantities.end(), [&](std::int32_t q) {
        return q < static_cast<std::int32_t>(threshold);
      }));
      transaction_input in;
      in.what = kind::stock_level;
      in.w = 1;
      in.d = d;
      in.threshold = threshold;
      transaction_output out;
      ASSERT_EQ(run_plain(shop, in, out), status::ok);
      EXPECT_EQ(out.low_stock, low) << "district " << d << ", threshold " << threshold;
      if (threshold == 60) {
        EXPECT_GT(low, 0u);
      }
    }
  }
}

// TPC-CR writes nothing, so every execution and batch reads exactly what the plain run reads.
TEST_F(TpccStore, TheReadOnlyMixReadsTheSameInEveryExecution) {
  const workload stream = stream_of(*shop_, 5, mix::tpcc_r);
  const worker_tally plain = run_range(*shop_, stream, execution::plain, 1, 0, 300);
  EXPECT_EQ(plain.commits, 300u);
  for (const auto& [how, batch] : {std::pair{execution::interleaved, std::size_t{8}},
                                   std::pair{execution::interleaved_refill, std::size_t{16}}, std::pair{execution::hybrid, std::size_t{8}}}) {
    const worker_tally mixed = run_range(*shop_, stream, how, batch, 0, 300);
    EXPECT_EQ(mixed.commits, 300u) << to_string(how);
    EXPECT_EQ(mixed.output_digest, plain.output_digest) << to_string(how);
    for (std::uint64_t aborts : mixed.aborts) EXPECT_EQ(aborts, 0u);
  }
}

// ---- Q2* on a hand-made store -------------------------------------------------------------------

template <class Row>
void put(store& shop, txn::table_handle table, const key_bytes& key, const Row& row) {
  txn::transaction tx = shop.db().begin();
  ASSERT_EQ(tx.upsert(table, key.view(), bytes_of(row)), status::ok);
  ASSERT_EQ(tx.commit(), status::ok);
}

// REGION, NATION and three suppliers (of nations 0, 1, 2: regions 0, 1, 2), each supplier's ten
// stock rows at quantity 40 and their items without a 'b'.
std::unique_ptr<store> query2_store() {
  auto shop = std::make_unique<store>(txn::database_options{}, 1, 3);
  const table_set& t = shop->tables();
  for (std::uint32_t r = 0; r < region_count; ++r) {
    region_row region = blank_row<region_row>();
    region.r_regionkey = r;
    put(*shop, t.region, region_key(r), region);
  }
  for (std::uint32_t n = 0; n < nation_count; ++n) {
    nation_row nation = blank_row<nation_row>();
    nation.n_nationkey = nation_code(n);
    nation.n_regionkey = nation_region(n);
    put(*shop, t.nation, nation_key(nation_code(n)), nation);
  }
  for (std::uint32_t su = 0; su < 3; ++su) {
    supplier_row supplier = blank_row<supplier_row>();
    supplier.su_suppkey = su;
    supplier.su_nationkey = nation_code(su);
    put(*shop, t.supplier, supplier_key(su), supplier);
    for (const stock_ref& ref : shop->supplier_stock(su)) {
      stock_row stock = blank_row<stock_row>();
      stock.w_id = ref.w;
      stock.i_id = ref.i;
      stock.quantity = 40;
      put(*shop, t.stock, stock_key(ref.w, ref.i), stock);
      item_row item = blank_row<item_row>();
      item.i_id = ref.i;
      set_text(item.data, "ORIGINAL DATA WITHOUT IT");
      put(*shop, t.item, item_key(ref.i), item);
    }
  }
  return shop;
}

void set_quantity(store& shop, std::uint32_t i, std::int32_t quantity) {
  stock_row stock{};
  ASSERT_TRUE(read(shop, shop.tables().stock, stock_key(1, i), stock));
  stock.quantity = quantity;
  put(shop, shop.tables().stock, stock_key(1, i), stock);
}

std::int32_t quantity_of(store& shop, std::uint32_t i) {
  stock_row stock{};
  EXPECT_TRUE(read(shop, shop.tables().stock, stock_key(1, i), stock));
  return stock.quantity;
}

transaction_input query2_input(std::uint32_t region) {
  transaction_input in;
  in.what = kind::query2;
  in.region = region;
  return in;
}

TEST(Tpcc, Query2RestocksEachSuppliersLeastStockedItemUnlessItsDataHasAB) {
  SKIP_UNDER_TSAN();
  std::unique_ptr<store> shop = query2_store();
  ASSERT_EQ(shop->supplier_stock(0).size(), 10u);  // i = 10000, 20000, ..., 100000
  // Supplier 0 (region 0): the least quantity (12) at its 3rd row, item without a 'b': +50.
  set_quantity(*shop, 30000, 12);
  set_quantity(*shop, 90000, 14);
  // Supplier 1 (region 1): the least (5) at i = 20001 whose item has a 'b': nothing, though
  // i = 1 (8) is low too and has no 'b' (only the minimum counts).
  set_quantity(*shop, 20001, 5);
  set_quantity(*shop, 1, 8);
  item_row flagged{};
  ASSERT_TRUE(read(*shop, shop->tables().item, item_key(20001), flagged));
  set_text(flagged.data, "ORIGINAL abc");
  put(*shop, shop->tables().item, item_key(20001), flagged);
  // Supplier 2 (region 2): the least is exactly 15: not below the threshold.
  set_quantity(*shop, 50002, 15);
  transaction_output out;
  ASSERT_EQ(run_plain(*shop, query2_input(0), out), status::ok);
  EXPECT_EQ(out.restocked, 1u);
  EXPECT_EQ(quantity_of(*shop, 30000), 62);
  EXPECT_EQ(quantity_of(*shop, 90000), 14) << "only the minimum is restocked";
  out = {};
  ASSERT_EQ(run_interleaved(*shop, query2_input(0), out, row_reads::one_by_one), status::ok);
  EXPECT_EQ(out.restocked, 1u) << "the minimum is now 14, at the 9th row";
  EXPECT_EQ(quantity_of(*shop, 90000), 64);
  out = {};
  ASSERT_EQ(run_plain(*shop, query2_input(0), out), status::ok);
  EXPECT_EQ(out.restocked, 0u) << "every row now at 40 or more";
  for (const std::uint32_t region : {1u, 2u, 3u, 4u}) {
    out = {};
    ASSERT_EQ(run_plain(*shop, query2_input(region), out), status::ok);
    EXPECT_EQ(out.restocked, 0u) << region;
  }
  EXPECT_EQ(quantity_of(*shop, 20001), 5);
  EXPECT_EQ(quantity_of(*shop, 1), 8);
  EXPECT_EQ(quantity_of(*shop, 50002), 15);
  // A population without its nations is corrupt, not silently empty.
  txn::transaction tx = shop->db().begin();
  ASSERT_EQ(tx.remove(shop->tables().nation, nation_key('z').view()), status::ok);
  ASSERT_EQ(tx.commit(), status::ok);
  EXPECT_EQ(run_plain(*shop, query2_input(0), out), status::corrupt);
}

TEST(Tpcc, CheckerFindsBrokenDatabases) {
  SKIP_UNDER_TSAN();
  std::unique_ptr<store> shop = loaded(1, 9);
  ASSERT_TRUE(check_consistency(*shop).ok());
  const table_set& t = shop->tables();
  txn::transaction tx = shop->db().begin();
  order_line_row extra = blank_row<order_line_row>();
  extra.o_id = 5;
  extra.d_id = 3;
  extra.w_id = 1;
  extra.number = 16;  // an order has at most 15 lines
  ASSERT_EQ(tx.upsert(t.order_line, order_line_key(1, 3, 5, 16).view(), bytes_of(extra)), status::ok);
  ASSERT_EQ(tx.remove(t.new_order, new_order_key(1, 8, 2500).view()), status::ok);
  std::string value;
  warehouse_row house{};
  ASSERT_EQ(tx.get(t.warehouse, warehouse_key(1).view(), value), status::ok);
  ASSERT_TRUE(decode(value, house));
  house.ytd += 1;
  ASSERT_EQ(tx.update(t.warehouse, warehouse_key(1).view(), bytes_of(house)), status::ok);
  district_row district{};
  ASSERT_EQ(tx.get(t.district, district_key(1, 2).view(), value), status::ok);
  ASSERT_TRUE(decode(value, district));
  ++district.next_o_id;
  ASSERT_EQ(tx.update(t.district, district_key(1, 2).view(), bytes_of(district)), status::ok);
  ASSERT_EQ(tx.commit(), status::ok);
  const consistency_report report = check_consistency(*shop);
  const std::string text = describe(report);
  EXPECT_EQ(report.violations.size(), 4u) << text;
  EXPECT_NE(text.find("condition 1, warehouse 1"), std::string::npos) << text;
  EXPECT_NE(text.find("condition 2, warehouse 1 district 2"), std::string::npos) << text;
  EXPECT_NE(text.find("condition 3, warehouse 1 district 8"), std::string::npos) << text;
  EXPECT_NE(text.find("condition 4, warehouse 1 district 3"), std::string::npos) << text;
}

TEST(Tpcc, InputsFollowTheSpecsDistributions) {
  const nurand_constants constants = draw_constants(42);
  const std::uint32_t delta = constants.c_last_run > constants.c_last_load ? constants.c_last_run - constants.c_last_load
                                                                           : constants.c_last_load - constants.c_last_run;
  EXPECT_TRUE(delta >= 65 && delta <= 119 && delta != 96 && delta != 112) << delta;
  const workload two{.warehouses = 2, .mix = mix::tpcc, .seed = 5, .constants = constants};
  std::array<std::size_t, kind_count> kinds{};
  std::size_t rollbacks = 0, new_orders = 0, lines = 0, remote_lines = 0, payments = 0, remote_payments = 0, by_name = 0;
  constexpr std::size_t draws = 20000;
  for (std::uint64_t i = 0; i < draws; ++i) {
    const transaction_input in = draw_input(two, i);
    ++kinds[static_cast<std::size_t>(in.what)];
    EXPECT_TRUE(in.w >= 1 && in.w <= 2 && in.d >= 1 && in.d <= 10);
    if (in.what == kind::new_order) {
      ++new_orders;
      EXPECT_TRUE(in.ol_cnt >= 5 && in.ol_cnt <= 15);
      rollbacks += in.items[in.ol_cnt - 1].i_id == unused_item ? 1 : 0;
      for (std::uint32_t n = 0; n < in.ol_cnt; ++n) {
        ++lines;
        remote_lines += in.items[n].supply_w_id != in.w ? 1 : 0;
        EXPECT_TRUE(in.items[n].quantity >= 1 && in.items[n].quantity <= 10);
      }
    } else if (in.what == kind::payment) {
      ++payments;
      remote_payments += in.c_w != in.w ? 1 : 0;
      by_name += in.by_name ? 1 : 0;
      EXPECT_TRUE(in.amount >= 100 && in.amount <= 500000);
    }
    const transaction_input again = draw_input(two, i);
    EXPECT_EQ(again.what, in.what);
    EXPECT_EQ(again.c_id, in.c_id);
  }
  EXPECT_NEAR(static_cast<double>(kinds[0]) / draws, 0.45, 0.015);
  EXPECT_NEAR(static_cast<double>(kinds[1]) / draws, 0.43, 0.015);
  for (kind k : {kind::order_status, kind::delivery, kind::stock_level}) {
    EXPECT_NEAR(static_cast<double>(kinds[static_cast<std::size_t>(k)]) / draws, 0.04, 0.006);
  }
  EXPECT_EQ(kinds[static_cast<std::size_t>(kind::query2)], 0u) << "TPC-C has no Q2*";
  EXPECT_NEAR(static_cast<double>(rollbacks) / static_cast<double>(new_orders), 0.01, 0.005);
  EXPECT_NEAR(static_cast<double>(remote_lines) / static_cast<double>(lines), 0.01, 0.003);
  EXPECT_NEAR(static_cast<double>(remote_payments) / static_cast<double>(payments), 0.15, 0.02);
  EXPECT_NEAR(static_cast<double>(by_name) / static_cast<double>(payments), 0.60, 0.02);
  const workload reads{.warehouses = 1, .mix = mix::tpcc_r, .seed = 5, .constants = constants};
  std::size_t stock_levels = 0;
  for (std::uint64_t i = 0; i < 2000; ++i) {
    const transaction_input in = draw_input(reads, i);
    ASSERT_TRUE(in.what == kind::stock_level || in.what == kind::order_status);
    stock_levels += in.what == kind::stock_level ? 1 : 0;
    if (in.what == kind::order_status) {
      EXPECT_EQ(in.c_w, in.w) << "one warehouse: nothing remote";
    }
  }
  EXPECT_NEAR(static_cast<double>(stock_levels) / 2000, 0.5, 0.05);
}

TEST(Tpcc, TheChMixesInQuery2) {
  const workload ch{.warehouses = 2, .mix = mix::tpcc_ch, .seed = 9, .constants = draw_constants(1)};
  std::array<std::size_t, kind_count> kinds{};
  std::array<std::size_t, region_count> regions{};
  constexpr std::size_t draws = 20000;
  for (std::uint64_t i = 0; i < draws; ++i) {
    const transaction_input in = draw_input(ch, i);
    ++kinds[static_cast<std::size_t>(in.what)];
    if (in.what == kind::query2) {
      ASSERT_LT(in.region, region_count);
      ++regions[in.region];
    }
  }
  const auto share = [&](kind k) { return static_cast<double>(kinds[static_cast<std::size_t>(k)]) / draws; };
  EXPECT_NEAR(share(kind::query2), 0.10, 0.01);
  EXPECT_NEAR(share(kind::new_order), 0.40, 0.015);
  EXPECT_NEAR(share(kind::payment), 0.38, 0.015);
  for (kind k : {kind::order_status, kind::delivery, kind::stock_level}) EXPECT_NEAR(share(k), 0.04, 0.006);
  const std::size_t queries = kinds[static_cast<std::size_t>(kind::query2)];
  for (std::size_t region : regions) EXPECT_NEAR(static_cast<double>(region) / static_cast<double>(queries), 0.2, 0.04);
  EXPECT_STREQ(to_string(mix::tpcc_ch), "tpcc-ch");
  EXPECT_STREQ(to_string(execution::hybrid), "hybrid");
}

// A single thread with one transaction in flight commits, interleaved or hybrid, exactly what
// the plain run commits: the same final state and the same outputs (the TPC-CH mix: every
// transaction, Q2* included).
TEST(Tpcc, InterleavedBatchOfOneCommitsWhatThePlainRunCommits) {
  SKIP_UNDER_TSAN();
  constexpr std::uint64_t count = 600;
  std::unique_ptr<store> plain_store = loaded(1, 3);
  const worker_tally plain =
      run_range(*plain_store, stream_of(*plain_store, 11, mix::tpcc_ch), execution::plain, 1, 0, count);
  const std::uint64_t plain_digest = state_digest(*plain_store);
  plain_store.reset();
  EXPECT_EQ(plain.commits + plain.rollbacks, count);
  EXPECT_GT(plain.commits_by_kind[static_cast<std::size_t>(kind::delivery)], 0u);
  EXPECT_GT(plain.commits_by_kind[static_cast<std::size_t>(kind::stock_level)], 0u);
  EXPECT_GT(plain.commits_by_kind[static_cast<std::size_t>(kind::query2)], 30u);
  for (execution how : {execution::interleaved, execution::interleaved_refill, execution::hybrid}) {
    std::unique_ptr<store> shop = loaded(1, 3);
    const worker_tally mixed = run_range(*shop, stream_of(*shop, 11, mix::tpcc_ch), how, 1, 0, count);
    EXPECT_EQ(mixed.commits, plain.commits) << to_string(how);
    EXPECT_EQ(mixed.rollbacks, plain.rollbacks) << to_string(how);
    EXPECT_EQ(mixed.output_digest, plain.output_digest) << to_string(how);
    EXPECT_EQ(state_digest(*shop), plain_digest) << to_string(how);
  }
}

// Every execution and batch keeps the conditions, on one thread and on two, with remote
// New-Order lines and Payments (two warehouses; under ThreadSanitizer one, two threads only).
TEST(Tpcc, EveryExecutionKeepsTheConsistencyConditions) {
  std::unique_ptr<store> shop = loaded(under_thread_sanitizer ? 1 : 2, 4);
  const workload tpcc_stream = stream_of(*shop, 21);
  const workload ch_stream = stream_of(*shop, 21, mix::tpcc_ch);
  constexpr std::uint64_t per_run = 300;
  std::uint64_t next = 0;
  std::uint64_t engine_aborts = 0;
  struct run {
    execution how;
    std::size_t batch;
    mix which = mix::tpcc;
  };
  const std::vector<run> runs = {{execution::plain, 1},        {execution::interleaved, 1},
                                 {execution::interleaved, 4},  {execution::interleaved, 16},
                                 {execution::interleaved_refill, 1}, {execution::interleaved_refill, 4},
                                 {execution::interleaved_refill, 16}, {execution::hybrid, 16},
                                 {execution::plain, 1, mix::tpcc_ch}, {execution::interleaved, 16, mix::tpcc_ch},
                                 {execution::hybrid, 8, mix::tpcc_ch}};
  for (unsigned threads : {1u, 2u}) {
    if (under_thread_sanitizer && threads == 1) continue;
    for (const run& r : runs) {
      std::vector<worker_tally> tallies(threads);
      std::vector<std::thread> workers;
      for (unsigned t = 0; t < threads; ++t) {
        const std::uint64_t begin = next + per_run * t / threads, end = next + per_run * (t + 1) / threads;
        const workload& stream = r.which == mix::tpcc_ch ? ch_stream : tpcc_stream;
        workers.emplace_back([&, t, begin, end] { tallies[t] = run_range(*shop, stream, r.how, r.batch, begin, end); });
      }
      for (std::thread& worker : workers) worker.join();
      next += per_run;
      worker_tally total;
      for (const worker_tally& tally : tallies) total.add(tally);
      const std::string where = std::string(to_string(r.which)) + " " + to_string(r.how) + " batch " + std::to_string(r.batch) + ", " +
                                std::to_string(threads) + " threads";
      EXPECT_EQ(total.commits + total.rollbacks, per_run) << where;
      for (std::uint64_t a : total.aborts) engine_aborts += a;
      const consistency_report report = check_consistency(*shop);
      ASSERT_TRUE(report.ok()) << where << "\n" << describe(report);
    }
  }
  EXPECT_GT(engine_aborts, 0u) << "batches of 16 on two warehouses never conflicted";
}

TEST(Tpcc, RefusesWhatItCannotRun) {
  EXPECT_THROW(store({}, 0), std::invalid_argument);
  EXPECT_THROW(store({}, max_warehouses + 1), std::invalid_argument);
  EXPECT_THROW(store({}, 1, 0), std::invalid_argument);
  EXPECT_THROW(store({}, 1, max_suppliers + 1), std::invalid_argument);
  store shop({}, 1);
  EXPECT_THROW(load(shop, 1, 0), std::invalid_argument);
  EXPECT_THROW(run_range(shop, stream_of(shop, 1), execution::interleaved, 0, 0, 1), std::invalid_argument);
  EXPECT_THROW(run_range(shop, stream_of(shop, 1), execution::interleaved, 17, 0, 1), std::invalid_argument);
}

// ---- braid-bench run tpcc -----------------------------------------------------------------------

using namespace braid::bench::test_support;

class TpccProgram : public bench_program_test {};

TEST_F(TpccProgram, EverySettingReachesTheRun) {
  const std::vector<row> rows = run_rows("tpcc", {"--quick", "--threads", "2", "--seed", "7", "--set",
                                                  "execution=plain,interleaved,interleaved-refill", "--set", "batch=2,4",
                                                  "--set", "transactions=200", "--set", "log=none"});
  ASSERT_EQ(rows.size(), 5u);  // plain, and each interleaved execution at batches 2 and 4
  EXPECT_EQ(values_of(rows, "execution"), (std::set<std::string>{"plain", "interleaved", "interleaved-refill"}));
  EXPECT_EQ(values_of(rows, "batch"), (std::set<std::string>{"1", "2", "4"}));
  EXPECT_EQ(values_of(rows, "threads"), (std::set<std::string>{"2"}));
  EXPECT_EQ(values_of(rows, "warehouses"), (std::set<std::string>{"1"}));
  EXPECT_EQ(values_of(rows, "mix"), (std::set<std::string>{"tpcc"}));
  EXPECT_EQ(values_of(rows, "log"), (std::set<std::string>{"none"}));
  EXPECT_EQ(values_of(rows, "consistency"), (std::set<std::string>{"ok"}));
  EXPECT_EQ(values_of(rows, "ops"), (std::set<std::string>{"200"}));
  for (const row& r : rows) {
    EXPECT_GT(number(r, "commits_per_s"), 0);
    EXPECT_GT(number(r, "new_orders_per_s"), 0);
    EXPECT_LT(number(r, "new_orders_per_s"), number(r, "commits_per_s"));
    EXPECT_GT(number(r, "latency_p99_us"), 0);
    EXPECT_GE(number(r, "abort_rate"), 0);
    EXPECT_GT(number(r, "logged_commits"), 0) << "log=none: a durable database whose log counts commits";
    if (r.at("execution") == "plain") {
      EXPECT_DOUBLE_EQ(number(r, "speedup_vs_plain"), 1.0);
    }
  }
  // One thread, two warehouses, the default log; the seed is the stream's: New-Order's
  // rollbacks (1 %) are those of the same stream in the two-thread run.
  const std::vector<row> again = run_rows("tpcc", {"--quick", "--threads", "1", "--seed", "7", "--set", "warehouses=2",
                                                   "--set", "execution=plain", "--set", "transactions=200"});
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].at("threads"), "1");
  EXPECT_EQ(again[0].at("rollbacks"), rows[0].at("rollbacks"));
  EXPECT_EQ(number(again[0], "aborts_write_conflict"), 0) << "one transaction at a time never conflicts";
  EXPECT_EQ(again[0].at("log"), "memory");
  EXPECT_EQ(number(again[0], "logged_commits"), 0) << "in memory nothing is logged";
  EXPECT_EQ(again[0].at("warehouses"), "2");
  // TPC-CH with 250 suppliers (counted in the store), hybrid beside plain.
  const std::vector<row> ch = run_rows("tpcc", {"--quick", "--seed", "7", "--set", "mix=tpcc-ch", "--set", "suppliers=250",
                                                "--set", "execution=plain,hybrid", "--set", "batch=4", "--set",
                                                "transactions=300"});
  ASSERT_EQ(ch.size(), 2u);
  EXPECT_EQ(values_of(ch, "mix"), (std::set<std::string>{"tpcc-ch"}));
  EXPECT_EQ(values_of(ch, "suppliers"), (std::set<std::string>{"250"}));
  EXPECT_EQ(values_of(ch, "execution"), (std::set<std::string>{"plain", "hybrid"}));
  EXPECT_EQ(values_of(ch, "consistency"), (std::set<std::string>{"ok"}));
  for (const row& r : ch) EXPECT_GT(number(r, "query2_per_s"), 0) << r.at("execution");
  EXPECT_EQ(number(rows[0], "query2_per_s"), 0) << "TPC-C runs no Q2*";
  EXPECT_EQ(rows[0].at("suppliers"), "100");
  const std::vector<row> other_seed = run_rows("tpcc", {"--quick", "--seed", "8", "--set", "execution=plain",
                                                        "--set", "transactions=1000"});
  const std::vector<row> same_seed = run_rows("tpcc", {"--quick", "--seed", "7", "--set", "execution=plain",
                                                       "--set", "transactions=1000"});
  ASSERT_EQ(other_seed.size(), 1u);
  ASSERT_EQ(same_seed.size(), 1u);
  EXPECT_NE(other_seed[0].at("rollbacks"), same_seed[0].at("rollbacks")) << "--seed did not reach the stream";
}

TEST_F(TpccProgram, TheReadOnlyMixNeverAborts) {
  const run_output output = run_experiment_csv("tpcc", {"--quick", "--set", "mix=tpcc-r", "--set", "execution=interleaved",
                                                        "--set", "batch=8", "--set", "transactions=300", "--repetitions", "2"});
  ASSERT_EQ(output.exit_status, 0) << output.text;
  const std::vector<row>& rows = output.rows;
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("mix"), "tpcc-r");
  EXPECT_EQ(rows[0].at("timed_passes"), "2");
  EXPECT_EQ(number(rows[0], "new_orders_per_s"), 0);
  EXPECT_EQ(number(rows[0], "abort_rate"), 0);
  EXPECT_EQ(number(rows[0], "rollbacks"), 0);
}

TEST_F(TpccProgram, RefusesBadValues) {
  expect_refused("tpcc", {{{"--quick", "--set", "warehouses=0"}, "--set warehouses"},
                          {{"--quick", "--set", "warehouses=501"}, "--set warehouses"},
                          {{"--quick", "--set", "mix=tpch"}, "--set mix"},
                          {{"--quick", "--set", "execution=fast"}, "--set execution"},
                          {{"--quick", "--set", "execution=plain,plain"}, "given twice"},
                          {{"--quick", "--set", "batch=0"}, "--set batch"},
                          {{"--quick", "--set", "batch=17"}, "--set batch"},
                          {{"--quick", "--set", "execution=plain", "--set", "batch=4"}, "--set batch"},
                          {{"--quick", "--set", "transactions=0"}, "--set transactions"},
                          {{"--quick", "--set", "log=sync"}, "--set log"},
                          {{"--quick", "--set", "suppliers=0"}, "--set suppliers"},
                          {{"--quick", "--set", "suppliers=10001"}, "--set suppliers"},
                          {{"--quick", "--set", "execution=hybrid,hybrid"}, "given twice"},
                          {{"--quick", "--set", "colour=red"}, "colour"},
                          {{"--quick", "--keys", "10"}, "--keys"}});
}

}  // namespace
}  // namespace braid::bench::tpcc
