// The row-at-a-time TPC-H reference: hand-written tables with hand-computed answers (each
// predicate's boundary days, LIMIT ties, rounding of averages and ratios, empty results), its
// refusals, and properties of all eight queries at scale 0.01 checked against independent
// recomputations from the raw text.
// braid-test: workload
#include "tpch_reference.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "braid/join/tbl_reader.hpp"
#include "tpch.hpp"

namespace {

namespace tpch = braid::bench::tpch;
using braid::query::cell;
using braid::query::int128;
using braid::query::result;
using braid::query::tpch_parameters;

cell dec(int128 scaled, std::uint8_t scale) { return cell::decimal(scaled, scale); }
cell txt(std::string value) { return cell::text(std::move(value)); }
cell num(int128 value) { return cell::integer(value); }
cell day(int y, unsigned m, unsigned d) {
  return cell::date(std::chrono::sys_days{std::chrono::year{y} / m / d}.time_since_epoch().count());
}

// A fresh directory per test, removed afterwards.
class ReferenceTables : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    directory_ = std::filesystem::temp_directory_path() /
                 ("braid-tpch-reference-" + std::to_string(::getpid()) + "-" + info->name());
    std::filesystem::remove_all(directory_);
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  void write(const std::string& table, const std::vector<std::string>& lines) const {
    std::ofstream out(directory_ / (table + ".tbl"), std::ios::binary);
    for (const std::string& line : lines) out << line << '\n';
    ASSERT_TRUE(out.good());
  }
  [[nodiscard]] result run(int number, const tpch_parameters& parameters = {}) const {
    return tpch::reference_query(number, directory_, parameters);
  }

  std::filesystem::path directory_;
};

// lineitem columns: orderkey|partkey|suppkey|linenumber|quantity|extendedprice|discount|tax|
// returnflag|linestatus|shipdate|commitdate|receiptdate|shipinstruct|shipmode|comment|

// ---- parsing ----------------------------------------------------------------------------------

TEST(ReferenceParsing, HundredthsAreExactFromTheText) {
  EXPECT_EQ(tpch::parse_reference_hundredths("23"), 2300);
  EXPECT_EQ(tpch::parse_reference_hundredths("23.5"), 2350);
  EXPECT_EQ(tpch::parse_reference_hundredths("24521.68"), 2452168);
  EXPECT_EQ(tpch::parse_reference_hundredths("0.04"), 4);
  EXPECT_EQ(tpch::parse_reference_hundredths("-999.99"), -99999);
  EXPECT_EQ(tpch::parse_reference_hundredths("007.10"), 710);
  for (const char* bad : {"", "-", ".5", "23.", "1.234", "1e3", " 1", "+1", "1,5", "--1", "99999999999999999999"}) {
    EXPECT_EQ(tpch::parse_reference_hundredths(bad), std::nullopt) << bad;
  }
}

TEST(ReferenceParsing, DatesAreCalendarDaysSinceTheEpoch) {
  EXPECT_EQ(tpch::parse_reference_date("1970-01-01"), 0);
  EXPECT_EQ(tpch::parse_reference_date("1970-01-02"), 1);
  EXPECT_EQ(tpch::parse_reference_date("1969-12-31"), -1);
  EXPECT_EQ(tpch::parse_reference_date("1998-12-01"), 10561);
  EXPECT_EQ(tpch::parse_reference_date("1996-02-29"), 9555);
  for (const char* bad : {"", "1998-12-1", "1998/12/01", "1997-02-29", "1998-13-01", "1998-00-10", "19981201xx"}) {
    EXPECT_EQ(tpch::parse_reference_date(bad), std::nullopt) << bad;
  }
}

TEST(ReferenceParsing, Integers) {
  EXPECT_EQ(tpch::parse_reference_integer("0"), 0);
  EXPECT_EQ(tpch::parse_reference_integer("6000000"), 6000000);
  EXPECT_EQ(tpch::parse_reference_integer("-3"), -3);
  for (const char* bad : {"", "-", "1.0", "+1", "1 ", "9223372036854775808"}) {
    EXPECT_EQ(tpch::parse_reference_integer(bad), std::nullopt) << bad;
  }
}

// ---- Q1 ---------------------------------------------------------------------------------------

TEST_F(ReferenceTables, Q1SumsAveragesAndTheShipDateBoundary) {
  std::vector<std::string> lines = {
      // A|F: three lines; the first ships exactly on the cutoff 1998-12-01 - 90 days = 1998-09-02.
      "1|1|1|1|17|1000.00|0.05|0.02|A|F|1998-09-02|1998-09-01|1998-09-03|NONE|TRUCK|x|",
      "1|1|1|2|3|200.01|0.00|0.00|A|F|1992-01-01|1992-01-02|1992-01-03|NONE|TRUCK|x|",
      "2|1|1|1|2|0.04|0.10|0.08|A|F|1994-06-01|1994-06-02|1994-06-03|NONE|TRUCK|x|",
      // N|O: one line one day past the cutoff (excluded), one inside.
      "3|1|1|1|1|0.01|0.10|0.08|N|O|1998-09-03|1998-09-04|1998-09-05|NONE|TRUCK|x|",
      "3|1|1|2|2|10.00|0.01|0.00|N|O|1995-01-01|1995-01-02|1995-01-03|NONE|TRUCK|x|",
      // N|F sorts before N|O although written after.
      "4|1|1|1|1|1.00|0.00|0.00|N|F|1995-06-01|1995-06-02|1995-06-03|NONE|TRUCK|x|",
  };
  // R|F: eight lines whose average price and discount end on an exact half.
  for (int i = 0; i < 7; ++i) lines.push_back("5|1|1|1|1|1.00|0.00|0.00|R|F|1993-03-03|1993-03-04|1993-03-05|NONE|MAIL|x|");
  lines.push_back("5|1|1|8|2|1.01|0.01|0.00|R|F|1993-03-03|1993-03-04|1993-03-05|NONE|MAIL|x|");
  write("lineitem", lines);

  const result expected{
      .columns = {"l_returnflag", "l_linestatus", "sum_qty", "sum_base_price", "sum_disc_price", "sum_charge", "avg_qty",
                  "avg_price", "avg_disc", "count_order"},
      .rows = {
          // sum_qty 22.00 / 3 = 7.3333 (down); 1200.05 / 3 = 400.016666.. -> 400.0167 (up);
          // disc_price 100000*95 + 20001*100 + 4*90; charge x (100 + tax) each.
          {txt("A"), txt("F"), dec(2200, 2), dec(120005, 2), dec(11500460, 4), dec(1169048880, 6), dec(73333, 4),
           dec(4000167, 4), dec(500, 4), num(3)},
          {txt("N"), txt("F"), dec(100, 2), dec(100, 2), dec(10000, 4), dec(1000000, 6), dec(10000, 4), dec(10000, 4),
           dec(0, 4), num(1)},
          {txt("N"), txt("O"), dec(200, 2), dec(1000, 2), dec(99000, 4), dec(9900000, 6), dec(20000, 4), dec(100000, 4),
           dec(100, 4), num(1)},
          // 8.01 / 8 = 1.00125 -> 1.0013 and 0.01 / 8 = 0.00125 -> 0.0013: halves away from zero.
          {txt("R"), txt("F"), dec(900, 2), dec(801, 2), dec(79999, 4), dec(7999900, 6), dec(11250, 4), dec(10013, 4),
           dec(13, 4), num(8)},
      }};
  const result actual = run(1);
  EXPECT_EQ(actual, expected) << actual.to_string();
  EXPECT_EQ(braid::query::to_string(actual.rows[0][5]), "1169.048880");

  tpch_parameters one_day_later;
  one_day_later.q1_delta_days = 89;  // cutoff 1998-09-03: the excluded N|O line joins
  const result later = run(1, one_day_later);
  ASSERT_EQ(later.rows.size(), 4U);
  EXPECT_EQ(later.rows[2][9], num(2));
  EXPECT_EQ(later.rows[2][2], dec(300, 2));

  tpch_parameters nothing;
  nothing.q1_delta_days = 20000;  // before every ship date
  const result empty = run(1, nothing);
  EXPECT_EQ(empty.columns, expected.columns);
  EXPECT_TRUE(empty.rows.empty());
}

// ---- Q3 ---------------------------------------------------------------------------------------

TEST_F(ReferenceTables, Q3DatesSegmentAndTiesAtTheLimit) {
  write("customer", {"1|Customer#1|a|1|11-1|1.00|BUILDING|c|", "2|Customer#2|a|1|11-2|1.00|AUTOMOBILE|c|"});
  // Orders written in descending key order; all of customer 1 unless said otherwise.
  std::vector<std::string> orders;
  for (int key = 15; key >= 1; --key) {
    std::string customer = key == 13 ? "2" : "1";
    std::string date = "1995-03-14";  // the day before 1995-03-15
    if (key == 1) date = "1995-01-01";
    if (key == 2) date = "1995-01-02";
    if (key == 3 || key == 4) date = "1994-01-01";
    if (key == 12) date = "1993-06-01";  // the earliest of the ties: ahead of lower keys
    if (key == 14) date = "1995-03-15";  // not before the date: excluded
    const std::string priority = key == 2 ? "7" : "0";
    orders.push_back(std::to_string(key) + "|" + customer + "|O|1.00|" + date + "|1-URGENT|Clerk#1|" + priority + "|c|");
  }
  write("orders", orders);
  std::vector<std::string> lines = {
      "1|1|1|1|1|625.00|0.20|0.00|N|O|1995-03-16|1995-03-16|1995-03-17|NONE|MAIL|x|",      // 500.0000
      "2|1|1|1|1|300.00|0.00|0.00|N|O|1995-04-01|1995-03-16|1995-04-17|NONE|MAIL|x|",      // 400.0000 in two lines
      "2|1|1|2|1|100.00|0.00|0.00|N|O|1995-04-02|1995-03-16|1995-04-17|NONE|MAIL|x|",
      "13|1|1|1|1|90000.00|0.00|0.00|N|O|1995-04-01|1995-03-16|1995-04-17|NONE|MAIL|x|",   // AUTOMOBILE
      "14|1|1|1|1|90000.00|0.00|0.00|N|O|1995-04-01|1995-03-16|1995-04-17|NONE|MAIL|x|",   // ordered on the date
      "15|1|1|1|1|90000.00|0.00|0.00|N|O|1995-03-15|1995-03-16|1995-04-17|NONE|MAIL|x|",   // shipped on the date
      "15|1|1|2|1|100.00|0.00|0.00|N|O|1995-03-16|1995-03-16|1995-04-17|NONE|MAIL|x|",
  };
  for (int key = 3; key <= 12; ++key) {
    lines.push_back(std::to_string(key) + "|1|1|1|1|100.00|0.00|0.00|N|O|1995-03-16|1995-03-16|1995-04-17|NONE|MAIL|x|");
  }
  write("lineitem", lines);

  // Eleven orders of revenue 100.0000: 12 ordered first, then 3 and 4, then 5..11 and 15 by
  // key; the LIMIT keeps 12, 3, ..., 9.
  result expected{.columns = {"l_orderkey", "revenue", "o_orderdate", "o_shippriority"},
                  .rows = {{num(1), dec(5000000, 4), day(1995, 1, 1), num(0)},
                           {num(2), dec(4000000, 4), day(1995, 1, 2), num(7)},
                           {num(12), dec(1000000, 4), day(1993, 6, 1), num(0)},
                           {num(3), dec(1000000, 4), day(1994, 1, 1), num(0)},
                           {num(4), dec(1000000, 4), day(1994, 1, 1), num(0)}}};
  for (int key = 5; key <= 9; ++key) expected.rows.push_back({num(key), dec(1000000, 4), day(1995, 3, 14), num(0)});
  const result actual = run(3);
  EXPECT_EQ(actual, expected) << actual.to_string();

  tpch_parameters other_segment;
  other_segment.q3_segment = "AUTOMOBILE";
  EXPECT_EQ(run(3, other_segment).rows,
            (std::vector<std::vector<cell>>{{num(13), dec(900000000, 4), day(1995, 3, 14), num(0)}}));
  tpch_parameters no_segment;
  no_segment.q3_segment = "MACHINERY";
  EXPECT_TRUE(run(3, no_segment).rows.empty());
}

// ---- Q5 ---------------------------------------------------------------------------------------

TEST_F(ReferenceTables, Q5SameNationRegionAndYear) {
  write("region", {"2|ASIA|c|", "3|EUROPE|c|", "4|MIDDLE EAST|c|"});
  write("nation", {"8|INDIA|2|c|", "12|JAPAN|2|c|", "18|CHINA|2|c|", "6|FRANCE|3|c|"});
  write("customer", {"1|C1|a|8|18-1|0.00|BUILDING|c|", "2|C2|a|12|22-1|0.00|BUILDING|c|",
                     "3|C3|a|6|16-1|0.00|BUILDING|c|", "4|C4|a|18|28-1|0.00|BUILDING|c|"});
  write("supplier", {"1|S1|a|8|18-2|0.00|c|", "2|S2|a|12|22-2|0.00|c|", "3|S3|a|6|16-2|0.00|c|", "4|S4|a|18|28-2|0.00|c|"});
  write("orders", {"1|1|O|1.00|1994-01-01|1-URGENT|Clerk#1|0|c|",   // first day of the year
                   "2|2|O|1.00|1994-12-31|1-URGENT|Clerk#1|0|c|",   // last day
                   "3|3|O|1.00|1994-06-01|1-URGENT|Clerk#1|0|c|",   // EUROPE
                   "4|1|O|1.00|1995-01-01|1-URGENT|Clerk#1|0|c|",   // a year later: excluded
                   "5|4|O|1.00|1994-05-05|1-URGENT|Clerk#1|0|c|",
                   "6|1|O|1.00|1993-12-31|1-URGENT|Clerk#1|0|c|"});  // the day before: excluded
  write("lineitem", {
                        "1|1|1|1|1|100.00|0.00|0.00|N|O|1994-02-01|1994-02-01|1994-02-02|NONE|MAIL|x|",
                        "1|1|2|2|1|1000.00|0.00|0.00|N|O|1994-02-01|1994-02-01|1994-02-02|NONE|MAIL|x|",  // s in JAPAN, c in INDIA
                        "2|1|2|1|1|50.00|0.10|0.00|N|O|1995-02-01|1995-02-01|1995-02-02|NONE|MAIL|x|",
                        "2|1|2|2|1|55.00|0.00|0.00|N|O|1995-02-01|1995-02-01|1995-02-02|NONE|MAIL|x|",
                        "3|1|3|1|1|999.00|0.00|0.00|N|O|1994-07-01|1994-07-01|1994-07-02|NONE|MAIL|x|",
                        "4|1|1|1|1|777.00|0.00|0.00|N|O|1995-02-01|1995-02-01|1995-02-02|NONE|MAIL|x|",
                        "5|1|4|1|1|300.00|0.00|0.00|N|O|1994-06-01|1994-06-01|1994-06-02|NONE|MAIL|x|",
                        "6|1|1|1|1|666.00|0.00|0.00|N|O|1994-01-05|1994-01-05|1994-01-06|NONE|MAIL|x|",
                    });
  // INDIA and JAPAN tie at 100.0000 (JAPAN's 45 + 55): n_name breaks the tie.
  const result expected{.columns = {"n_name", "revenue"},
                        .rows = {{txt("CHINA"), dec(3000000, 4)},
                                 {txt("INDIA"), dec(1000000, 4)},
                                 {txt("JAPAN"), dec(1000000, 4)}}};
  const result actual = run(5);
  EXPECT_EQ(actual, expected) << actual.to_string();

  tpch_parameters europe;
  europe.q5_region = "EUROPE";
  EXPECT_EQ(run(5, europe).rows, (std::vector<std::vector<cell>>{{txt("FRANCE"), dec(9990000, 4)}}));
  tpch_parameters no_nations;
  no_nations.q5_region = "MIDDLE EAST";
  const result empty = run(5, no_nations);
  EXPECT_EQ(empty.columns, expected.columns);
  EXPECT_TRUE(empty.rows.empty());
}

// ---- Q6 ---------------------------------------------------------------------------------------

TEST_F(ReferenceTables, Q6EveryBoundary) {
  write("lineitem", {
                        // first day, lowest discount 0.05, quantity 23 < 24: 1000.00 x 0.05
                        "1|1|1|1|23|1000.00|0.05|0.00|N|O|1994-01-01|1994-01-01|1994-01-02|NONE|MAIL|x|",
                        // last day, highest discount 0.07: 12.34 x 0.07 = 0.8638
                        "1|1|1|2|1|12.34|0.07|0.00|N|O|1994-12-31|1994-12-31|1995-01-02|NONE|MAIL|x|",
                        // a fractional quantity just below 24: 0.01 x 0.06
                        "1|1|1|3|23.99|0.01|0.06|0.00|N|O|1994-06-01|1994-06-01|1994-06-02|NONE|MAIL|x|",
                        "2|1|1|1|1|99999.00|0.06|0.00|N|O|1995-01-01|1995-01-01|1995-01-02|NONE|MAIL|x|",  // a year later
                        "2|1|1|2|1|99999.00|0.06|0.00|N|O|1993-12-31|1994-01-01|1994-01-02|NONE|MAIL|x|",  // the day before
                        "2|1|1|3|1|99999.00|0.04|0.00|N|O|1994-06-01|1994-06-01|1994-06-02|NONE|MAIL|x|",  // discount low
                        "2|1|1|4|1|99999.00|0.08|0.00|N|O|1994-06-01|1994-06-01|1994-06-02|NONE|MAIL|x|",  // discount high
                        "2|1|1|5|24|99999.00|0.06|0.00|N|O|1994-06-01|1994-06-01|1994-06-02|NONE|MAIL|x|",  // quantity 24
                    });
  const result expected{.columns = {"revenue"}, .rows = {{dec(500000 + 8638 + 6, 4)}}};
  EXPECT_EQ(run(6), expected);

  tpch_parameters later;
  later.q6_date = std::chrono::sys_days{std::chrono::year{2000} / 1 / 1};
  EXPECT_EQ(run(6, later), (result{.columns = {"revenue"}, .rows = {{dec(0, 4)}}}));
  tpch_parameters more_quantity;
  more_quantity.q6_quantity = 25;  // quantity 24 now qualifies: + 99999.00 x 0.06
  EXPECT_EQ(run(6, more_quantity).rows[0][0], dec(500000 + 8638 + 6 + 59999400, 4));
}

// ---- Q10 --------------------------------------------------------------------------------------

TEST_F(ReferenceTables, Q10ReturnedItemsAndTiesAtTheLimit) {
  write("nation", {"3|CANADA|1|c|", "7|GERMANY|3|c|"});
  std::vector<std::string> customers;
  std::vector<std::string> orders;
  std::vector<std::string> lines;
  for (int key = 23; key >= 1; --key) {
    const std::string k = std::to_string(key);
    const std::string nation = key % 2 == 1 ? "3" : "7";
    const std::string balance = key == 1 ? "-5.50" : k + ".00";
    customers.push_back(k + "|Customer#" + k + "|street " + k + "|" + nation + "|13-" + k + "|" + balance +
                        "|BUILDING|comment " + k + "|");
    const std::string date = key == 1 ? "1993-10-01" : "1993-12-31";  // the first and last day of the quarter
    orders.push_back(k + "|" + k + "|F|1.00|" + date + "|1-URGENT|Clerk#1|0|c|");
    lines.push_back(k + "|1|1|1|1|10.00|0.00|0.00|R|F|1994-01-05|1994-01-05|1994-01-06|NONE|MAIL|x|");
  }
  write("customer", customers);
  orders.push_back("24|22|F|1.00|1994-01-01|1-URGENT|Clerk#1|0|c|");  // the next quarter
  orders.push_back("25|21|F|1.00|1993-09-30|1-URGENT|Clerk#1|0|c|");  // the previous one
  write("orders", orders);
  lines.push_back("23|1|1|2|1|90.00|0.50|0.00|R|F|1994-01-05|1994-01-05|1994-01-06|NONE|MAIL|x|");
  lines.push_back("23|1|1|3|1|1000.00|0.00|0.00|A|F|1994-01-05|1994-01-05|1994-01-06|NONE|MAIL|x|");  // not returned
  lines.push_back("24|1|1|1|1|1000.00|0.00|0.00|R|F|1994-02-05|1994-02-05|1994-02-06|NONE|MAIL|x|");
  lines.push_back("25|1|1|1|1|1000.00|0.00|0.00|R|F|1993-10-05|1993-10-05|1993-10-06|NONE|MAIL|x|");
  write("lineitem", lines);

  const result actual = run(10);
  ASSERT_EQ(actual.columns, (std::vector<std::string>{"c_custkey", "c_name", "revenue", "c_acctbal", "n_name",
                                                      "c_address", "c_phone", "c_comment"}));
  ASSERT_EQ(actual.rows.size(), 20U) << actual.to_string();
  // Customer 23: 10.00 + 90.00 x 0.50.
  EXPECT_EQ(actual.rows[0], (std::vector<cell>{num(23), txt("Customer#23"), dec(550000, 4), dec(2300, 2), txt("CANADA"),
                                               txt("street 23"), txt("13-23"), txt("comment 23")}));
  EXPECT_EQ(actual.rows[1], (std::vector<cell>{num(1), txt("Customer#1"), dec(100000, 4), dec(-550, 2), txt("CANADA"),
                                               txt("street 1"), txt("13-1"), txt("comment 1")}));
  // The other 22 tie at 10.0000; keys ascend numerically (2 before 10) and the cut keeps 1..19.
  for (std::size_t i = 1; i < 20; ++i) {
    EXPECT_EQ(actual.rows[i][0], num(static_cast<int128>(i))) << i;
    EXPECT_EQ(actual.rows[i][2], dec(100000, 4)) << i;
  }
  EXPECT_EQ(actual.rows[2][4], txt("GERMANY"));

  tpch_parameters earlier;
  earlier.q10_date = std::chrono::sys_days{std::chrono::year{1993} / 7 / 1};  // 1993-09-30 is its last day
  EXPECT_EQ(run(10, earlier).rows.size(), 1U);
  EXPECT_EQ(run(10, earlier).rows[0][0], num(21));
  tpch_parameters nothing;
  nothing.q10_date = std::chrono::sys_days{std::chrono::year{1980} / 1 / 1};
  EXPECT_TRUE(run(10, nothing).rows.empty());
}

// ---- Q12 --------------------------------------------------------------------------------------

TEST_F(ReferenceTables, Q12PrioritiesModesAndDateOrder) {
  write("orders", {"1|1|O|1.00|1993-11-01|1-URGENT|Clerk#1|0|c|", "2|1|O|1.00|1993-11-01|2-HIGH|Clerk#1|0|c|",
                   "3|1|O|1.00|1993-11-01|3-MEDIUM|Clerk#1|0|c|", "4|1|O|1.00|1993-11-01|5-LOW|Clerk#1|0|c|",
                   "5|1|O|1.00|1993-11-01|4-NOT SPECIFIED|Clerk#1|0|c|"});
  write("lineitem", {
                        // columns 11..13: ship, commit, receipt
                        "1|1|1|1|1|1.00|0.00|0.00|N|O|1993-12-01|1993-12-15|1994-01-01|NONE|MAIL|x|",  // first day: high
                        "2|1|1|1|1|1.00|0.00|0.00|N|O|1994-05-01|1994-05-02|1994-05-03|NONE|MAIL|x|",  // high
                        "3|1|1|1|1|1.00|0.00|0.00|N|O|1994-05-01|1994-05-02|1994-05-03|NONE|SHIP|x|",  // low
                        "4|1|1|1|1|1.00|0.00|0.00|N|O|1994-05-01|1994-05-02|1994-05-03|NONE|MAIL|x|",  // low
                        "5|1|1|1|1|1.00|0.00|0.00|N|O|1994-12-01|1994-12-02|1994-12-31|NONE|SHIP|x|",  // last day: low
                        "1|1|1|2|1|1.00|0.00|0.00|N|O|1994-12-01|1994-12-02|1995-01-01|NONE|SHIP|x|",  // a year later
                        "1|1|1|3|1|1.00|0.00|0.00|N|O|1994-05-01|1994-05-02|1994-05-02|NONE|MAIL|x|",  // commit = receipt
                        "1|1|1|4|1|1.00|0.00|0.00|N|O|1994-05-02|1994-05-02|1994-05-03|NONE|MAIL|x|",  // ship = commit
                        "1|1|1|5|1|1.00|0.00|0.00|N|O|1994-05-01|1994-05-02|1994-05-03|NONE|AIR|x|",   // other mode
                        "3|1|1|2|1|1.00|0.00|0.00|N|O|1993-12-01|1993-12-02|1993-12-31|NONE|SHIP|x|",  // the day before
                    });
  const result expected{.columns = {"l_shipmode", "high_line_count", "low_line_count"},
                        .rows = {{txt("MAIL"), num(2), num(1)}, {txt("SHIP"), num(0), num(2)}}};
  const result actual = run(12);
  EXPECT_EQ(actual, expected) << actual.to_string();

  tpch_parameters air_only;
  air_only.q12_shipmode1 = "AIR";
  air_only.q12_shipmode2 = "AIR";
  EXPECT_EQ(run(12, air_only).rows, (std::vector<std::vector<cell>>{{txt("AIR"), num(1), num(0)}}));
  tpch_parameters none;
  none.q12_shipmode1 = "RAIL";
  none.q12_shipmode2 = "FOB";
  EXPECT_TRUE(run(12, none).rows.empty());
}

// ---- Q14 --------------------------------------------------------------------------------------

TEST_F(ReferenceTables, Q14PromotionShareRoundsHalfAwayFromZero) {
  write("part", {"1|p|Manufacturer#1|Brand#11|PROMO BURNISHED COPPER|1|SM BOX|1.00|c|",
                 "2|p|Manufacturer#1|Brand#11|STANDARD POLISHED TIN|1|SM BOX|1.00|c|",
                 "3|p|Manufacturer#1|Brand#11|ECONOMY PROMO BRASS|1|SM BOX|1.00|c|"});  // PROMO not first
  write("lineitem", {
                        "1|1|1|1|1|123.45|0.00|0.00|N|O|1995-09-01|1995-09-01|1995-09-02|NONE|MAIL|x|",   // first day
                        "1|2|1|2|1|500.00|0.00|0.00|N|O|1995-09-30|1995-09-30|1995-10-02|NONE|MAIL|x|",   // last day
                        "1|3|1|3|1|376.55|0.00|0.00|N|O|1995-09-15|1995-09-15|1995-09-16|NONE|MAIL|x|",
                        "1|1|1|4|1|5000.00|0.00|0.00|N|O|1995-10-01|1995-10-01|1995-10-02|NONE|MAIL|x|",  // next month
                        "1|1|1|5|1|5000.00|0.00|0.00|N|O|1995-08-31|1995-08-31|1995-09-02|NONE|MAIL|x|",  // the day before
                    });
  // 123.45 / 1000.00 = 12.345 % -> 12.35.
  EXPECT_EQ(run(14), (result{.columns = {"promo_revenue"}, .rows = {{dec(1235, 2)}}}));

  tpch_parameters august;
  august.q14_date = std::chrono::sys_days{std::chrono::year{1995} / 8 / 1};
  EXPECT_EQ(run(14, august).rows[0][0], dec(10000, 2));
  tpch_parameters nothing;
  nothing.q14_date = std::chrono::sys_days{std::chrono::year{2000} / 1 / 1};
  EXPECT_THROW((void)run(14, nothing), std::domain_error);
}

// ---- Q19 --------------------------------------------------------------------------------------

TEST_F(ReferenceTables, Q19ThreeDisjuncts) {
  write("part", {"1|p|M|Brand#12|T|5|SM BOX|1.00|c|",  "2|p|M|Brand#23|T|10|MED PACK|1.00|c|",
                 "3|p|M|Brand#34|T|15|LG PKG|1.00|c|", "4|p|M|Brand#12|T|6|SM BOX|1.00|c|",
                 "5|p|M|Brand#12|T|3|MED BOX|1.00|c|", "6|p|M|Brand#34|T|1|LG CASE|1.00|c|"});
  const std::string dates = "|N|O|1995-01-01|1995-01-01|1995-01-02|";
  write("lineitem", {
                        "1|1|1|1|1|10.00|0.00|0.00" + dates + "DELIVER IN PERSON|AIR|x|",        // quantity 1, size 5
                        "1|1|1|2|11|20.00|0.00|0.00" + dates + "DELIVER IN PERSON|AIR REG|x|",   // quantity 1 + 10
                        "1|1|1|3|12|99.00|0.00|0.00" + dates + "DELIVER IN PERSON|AIR|x|",       // above the range
                        "1|2|1|4|10|30.00|0.10|0.00" + dates + "DELIVER IN PERSON|AIR REG|x|",   // 27.0000
                        "1|2|1|5|20|99.00|0.00|0.00" + dates + "TAKE BACK RETURN|AIR|x|",        // instruction
                        "1|3|1|6|30|40.00|0.00|0.00" + dates + "DELIVER IN PERSON|AIR|x|",       // 20 + 10, size 15
                        "1|3|1|7|19|99.00|0.00|0.00" + dates + "DELIVER IN PERSON|AIR|x|",       // below the range
                        "1|4|1|1|5|99.00|0.00|0.00" + dates + "DELIVER IN PERSON|AIR|x|",        // size 6
                        "1|5|1|2|5|99.00|0.00|0.00" + dates + "DELIVER IN PERSON|AIR|x|",        // container
                        "1|6|1|3|25|99.00|0.00|0.00" + dates + "DELIVER IN PERSON|RAIL|x|",      // mode
                        "1|6|1|4|25|5.00|0.00|0.00" + dates + "DELIVER IN PERSON|AIR|x|",        // size 1
                        "1|9|1|5|5|99.00|0.00|0.00" + dates + "DELIVER IN PERSON|AIR|x|",        // no such part
                    });
  EXPECT_EQ(run(19), (result{.columns = {"revenue"}, .rows = {{dec(1020000, 4)}}}));

  tpch_parameters shifted;
  shifted.q19_quantities = {2, 10, 20};  // quantity 1 leaves, 12 joins
  EXPECT_EQ(run(19, shifted).rows[0][0], dec(1020000 - 100000 + 990000, 4));
  tpch_parameters other_brands;
  other_brands.q19_brands = {"Brand#55", "Brand#55", "Brand#55"};
  EXPECT_EQ(run(19, other_brands), (result{.columns = {"revenue"}, .rows = {{dec(0, 4)}}}));
}

// ---- refusals ---------------------------------------------------------------------------------

TEST_F(ReferenceTables, RefusesUnknownQueriesBeforeReading) {
  for (int number : {0, 2, 4, 7, 22, -1}) {
    EXPECT_THROW((void)run(number), std::invalid_argument) << number;  // the directory has no tables
    EXPECT_THROW((void)tpch::reference_tables(number), std::invalid_argument) << number;
  }
  EXPECT_THROW((void)run(6), braid::join::tbl_error);  // no lineitem.tbl
}

TEST_F(ReferenceTables, RefusesMalformedTables) {
  const auto error_of = [&](int number) -> std::string {
    try {
      (void)run(number);
    } catch (const braid::join::tbl_error& error) {
      return error.what();
    }
    return "no error";
  };
  write("lineitem", {"1|1|1|1|1|1.00|0.00|0.00|N|O|1995-01-01|1995-01-01|1995-01-02|NONE|MAIL|x|",
                     "1|1|1|1|1|1.00|0.00|0.00|N|O|1995-01-01|1995-01-01|1995-01-02|NONE|MAIL|"});
  EXPECT_NE(error_of(6).find("lineitem.tbl:2: expected 16 fields, found 15"), std::string::npos) << error_of(6);
  write("lineitem", {"1|1|1|1|1|1.001|0.00|0.00|N|O|1995-01-01|1995-01-01|1995-01-02|NONE|MAIL|x|"});
  EXPECT_NE(error_of(6).find("lineitem.tbl:1: column l_extendedprice"), std::string::npos) << error_of(6);
  write("lineitem", {"1|1|1|1|1|1.00|0.00|0.00|N|O|1995-02-30|1995-01-01|1995-01-02|NONE|MAIL|x|"});
  EXPECT_NE(error_of(6).find("column l_shipdate"), std::string::npos) << error_of(6);
  write("lineitem", {"1|1|1|1|1|1.00|0.00|0.00|N|O|1995-01-01|1995-01-01|1995-01-02|NONE|MAIL|x|"});
  write("orders", {"1|1|O|1.00|1993-11-01|1-URGENT|Clerk#1|0|c|", "1|2|O|1.00|1993-11-01|1-URGENT|Clerk#1|0|c|"});
  EXPECT_NE(error_of(12).find("orders.tbl:2: column o_orderkey: repeated key 1"), std::string::npos) << error_of(12);
}

TEST_F(ReferenceTables, LoadedDataServesOnlyTheQueriesWhoseTablesItHas) {
  write("lineitem", {"1|1|1|1|1|1.00|0.06|0.00|N|O|1994-03-01|1994-03-01|1994-03-02|NONE|MAIL|x|"});
  const tpch::reference_data data = tpch::load_reference_data(directory_, {tpch::table_id::lineitem});
  EXPECT_EQ(tpch::reference_query(6, data), (result{.columns = {"revenue"}, .rows = {{dec(600, 4)}}}));
  EXPECT_THROW((void)tpch::reference_query(12, data), std::invalid_argument);  // orders not loaded
  EXPECT_THROW((void)tpch::reference_query(2, data), std::invalid_argument);
  EXPECT_THROW((void)tpch::load_reference_data(directory_, {tpch::table_id::partsupp}), std::invalid_argument);
  EXPECT_THROW((void)tpch::load_reference_data(directory_, {tpch::table_id::lineitem, tpch::table_id::lineitem}),
               std::invalid_argument);
}

// ---- scale 0.01: properties checked against the raw text ----------------------------------------

// The rows of a .tbl file, split on '|' with plain getline (the trailing '|' dropped).
std::vector<std::vector<std::string>> raw_rows(const std::filesystem::path& file) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (std::size_t bar = line.find('|'); bar != std::string::npos; bar = line.find('|', start)) {
      fields.push_back(line.substr(start, bar - start));
      start = bar + 1;
    }
    rows.push_back(std::move(fields));
  }
  return rows;
}

// "1234.56" or "7" as hundredths, by removing the point (the generator writes 2 fraction digits
// for money and discounts, none for quantities).
std::int64_t raw_cents(const std::string& text) {
  const std::size_t point = text.find('.');
  if (point == std::string::npos) return std::stoll(text) * 100;
  return std::stoll(text.substr(0, point) + text.substr(point + 1));
}

class ReferenceAtScale : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    directory() = std::filesystem::temp_directory_path() / ("braid-tpch-reference-sf-" + std::to_string(::getpid()));
    std::filesystem::remove_all(directory());
    std::filesystem::create_directories(directory());
    tpch::generate({.scale_factor = 0.01, .seed = 7, .out = directory(), .tables = {}});
    data() = tpch::load_reference_data(directory());
    lineitems() = raw_rows(directory() / "lineitem.tbl");
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(directory());
    data() = {};
    lineitems() = {};
  }
  static std::filesystem::path& directory() {
    static std::filesystem::path path;
    return path;
  }
  static tpch::reference_data& data() {
    static tpch::reference_data loaded;
    return loaded;
  }
  static std::vector<std::vector<std::string>>& lineitems() {
    static std::vector<std::vector<std::string>> rows;
    return rows;
  }
};

TEST_F(ReferenceAtScale, Q1CountsAndQuantitiesMatchTheRawLines) {
  const result q1 = tpch::reference_query(1, data());
  std::map<std::pair<std::string, std::string>, std::pair<std::int64_t, std::int64_t>> raw;  // count, quantity
  for (const auto& fields : lineitems()) {
    if (fields[10] > "1998-09-02") continue;
    auto& group = raw[{fields[8], fields[9]}];
    ++group.first;
    group.second += raw_cents(fields[4]);
  }
  ASSERT_EQ(q1.rows.size(), raw.size());
  ASSERT_EQ(q1.rows.size(), 4U);  // A|F, N|F, N|O, R|F
  auto expected = raw.begin();
  for (const auto& row : q1.rows) {
    EXPECT_EQ(row[0], txt(expected->first.first));
    EXPECT_EQ(row[1], txt(expected->first.second));
    EXPECT_EQ(row[9], num(expected->second.first));
    EXPECT_EQ(row[2], dec(expected->second.second, 2));
    EXPECT_EQ(row[6], braid::query::average(expected->second.second, 2, expected->second.first));
    ++expected;
  }
}

TEST_F(ReferenceAtScale, Q6MatchesABruteForceOverTheText) {
  int128 revenue = 0;
  std::int64_t qualifying = 0;
  for (const auto& fields : lineitems()) {
    const std::int64_t discount = raw_cents(fields[6]);
    if (fields[10] >= "1994-01-01" && fields[10] < "1995-01-01" && discount >= 5 && discount <= 7 &&
        raw_cents(fields[4]) < 2400) {
      revenue += int128{raw_cents(fields[5])} * discount;
      ++qualifying;
    }
  }
  EXPECT_GT(qualifying, 0);
  const result q6 = tpch::reference_query(6, data());
  EXPECT_EQ(q6, (result{.columns = {"revenue"}, .rows = {{dec(revenue, 4)}}}));
  EXPECT_EQ(tpch::reference_query(6, directory()), q6);  // loading per call gives the same
}

TEST_F(ReferenceAtScale, Q12CountsSumToTheMatchingLinesByPriority) {
  std::map<std::string, std::string> priority_of_order;
  for (const auto& fields : raw_rows(directory() / "orders.tbl")) priority_of_order[fields[0]] = fields[5];
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> raw;
  for (const auto& fields : lineitems()) {
    if (fields[14] != "MAIL" && fields[14] != "SHIP") continue;
    if (!(fields[11] < fields[12] && fields[10] < fields[11] && fields[12] >= "1994-01-01" && fields[12] < "1995-01-01")) {
      continue;
    }
    const std::string& priority = priority_of_order.at(fields[0]);
    auto& counts = raw[fields[14]];
    ++(priority == "1-URGENT" || priority == "2-HIGH" ? counts.first : counts.second);
  }
  const result q12 = tpch::reference_query(12, data());
  ASSERT_EQ(q12.rows.size(), 2U);
  EXPECT_EQ(q12.rows[0], (std::vector<cell>{txt("MAIL"), num(raw["MAIL"].first), num(raw["MAIL"].second)}));
  EXPECT_EQ(q12.rows[1], (std::vector<cell>{txt("SHIP"), num(raw["SHIP"].first), num(raw["SHIP"].second)}));
  EXPECT_GT(raw["MAIL"].first + raw["SHIP"].second, 0);
}

TEST_F(ReferenceAtScale, Q14MatchesTheRawPromotionShare) {
  std::set<std::string> promo_parts;
  for (const auto& fields : raw_rows(directory() / "part.tbl")) {
    if (fields[4].rfind("PROMO", 0) == 0) promo_parts.insert(fields[0]);
  }
  int128 promo = 0;
  int128 total = 0;
  for (const auto& fields : lineitems()) {
    if (fields[10] < "1995-09-01" || fields[10] >= "1995-10-01") continue;
    const int128 revenue = int128{raw_cents(fields[5])} * (100 - raw_cents(fields[6]));
    total += revenue;
    if (promo_parts.count(fields[1]) != 0) promo += revenue;
  }
  ASSERT_GT(promo, 0);
  const result q14 = tpch::reference_query(14, data());
  EXPECT_EQ(q14.rows, (std::vector<std::vector<cell>>{{braid::query::ratio(100 * promo, total, 2)}}));
  EXPECT_EQ(tpch::reference_query(14, directory()), q14);
}

TEST_F(ReferenceAtScale, Q3AndQ10OrderTheirRowsAndCutAtTheirLimits) {
  const result q3 = tpch::reference_query(3, data());
  ASSERT_EQ(q3.rows.size(), 10U);
  for (std::size_t i = 0; i < q3.rows.size(); ++i) {
    // Each order's revenue recomputed from its raw lines shipped after the date.
    int128 revenue = 0;
    for (const auto& fields : lineitems()) {
      if (fields[0] == braid::query::to_string(q3.rows[i][0]) && fields[10] > "1995-03-15") {
        revenue += int128{raw_cents(fields[5])} * (100 - raw_cents(fields[6]));
      }
    }
    EXPECT_EQ(q3.rows[i][1], dec(revenue, 4)) << i;
    EXPECT_LT(braid::query::to_string(q3.rows[i][2]), "1995-03-15");
    if (i > 0) {
      EXPECT_GE(q3.rows[i - 1][1].number, q3.rows[i][1].number);
    }
  }

  std::map<std::string, std::string> nation_names;
  for (const auto& fields : raw_rows(directory() / "nation.tbl")) nation_names[fields[0]] = fields[1];
  const result q10 = tpch::reference_query(10, data());
  ASSERT_EQ(q10.rows.size(), 20U);
  for (std::size_t i = 0; i < q10.rows.size(); ++i) {
    const auto& row = q10.rows[i];
    char name[32];
    std::snprintf(name, sizeof name, "Customer#%09lld", static_cast<long long>(row[0].number));
    EXPECT_EQ(row[1], txt(name));
    // The phone's country code is the nation key + 10.
    const std::string phone = row[6].string;
    EXPECT_EQ(row[4], txt(nation_names.at(std::to_string(std::stoi(phone.substr(0, 2)) - 10))));
    if (i > 0) {
      EXPECT_GE(q10.rows[i - 1][2].number, row[2].number);
    }
  }
}

TEST_F(ReferenceAtScale, Q5StaysWithinAsiaInDescendingRevenue) {
  const std::set<std::string> asia = {"CHINA", "INDIA", "INDONESIA", "JAPAN", "VIETNAM"};
  const result q5 = tpch::reference_query(5, data());
  ASSERT_FALSE(q5.rows.empty());
  for (std::size_t i = 0; i < q5.rows.size(); ++i) {
    EXPECT_EQ(asia.count(q5.rows[i][0].string), 1U) << q5.rows[i][0].string;
    EXPECT_GT(q5.rows[i][1].number, 0);
    if (i > 0) {
      EXPECT_GE(q5.rows[i - 1][1].number, q5.rows[i][1].number);
    }
  }
}

// Q19 for one brand in all three disjuncts, recomputed from the text with the spec's predicate.
int128 raw_q19(const std::vector<std::vector<std::string>>& lines, const std::map<std::string, std::vector<std::string>>& parts,
               const std::string& brand) {
  const auto in = [](const std::string& value, std::initializer_list<const char*> set) {
    return std::any_of(set.begin(), set.end(), [&](const char* member) { return value == member; });
  };
  int128 revenue = 0;
  for (const auto& fields : lines) {
    const auto& part = parts.at(fields[1]);
    const std::int64_t quantity = raw_cents(fields[4]);
    const int size = std::stoi(part[5]);
    if (part[3] != brand || !in(fields[14], {"AIR", "AIR REG"}) || fields[13] != "DELIVER IN PERSON") continue;
    const bool small = in(part[6], {"SM CASE", "SM BOX", "SM PACK", "SM PKG"}) && quantity >= 100 && quantity <= 1100 &&
                       size >= 1 && size <= 5;
    const bool medium = in(part[6], {"MED BAG", "MED BOX", "MED PKG", "MED PACK"}) && quantity >= 1000 &&
                        quantity <= 2000 && size >= 1 && size <= 10;
    const bool large = in(part[6], {"LG CASE", "LG BOX", "LG PACK", "LG PKG"}) && quantity >= 2000 && quantity <= 3000 &&
                       size >= 1 && size <= 15;
    if (small || medium || large) revenue += int128{raw_cents(fields[5])} * (100 - raw_cents(fields[6]));
  }
  return revenue;
}

TEST_F(ReferenceAtScale, Q19MatchesTheRawPredicateForEveryBrand) {
  std::map<std::string, std::vector<std::string>> parts;
  for (auto& fields : raw_rows(directory() / "part.tbl")) parts[fields[0]] = std::move(fields);
  int128 over_all_brands = 0;
  for (char m = '1'; m <= '5'; ++m) {
    for (char n = '1'; n <= '5'; ++n) {
      const std::string brand = std::string("Brand#") + m + n;
      tpch_parameters parameters;
      parameters.q19_brands = {brand, brand, brand};
      const int128 expected = raw_q19(lineitems(), parts, brand);
      EXPECT_EQ(tpch::reference_query(19, data(), parameters),
                (result{.columns = {"revenue"}, .rows = {{dec(expected, 4)}}}))
          << brand;
      over_all_brands += expected;
    }
  }
  EXPECT_GT(over_all_brands, 0);
}

TEST_F(ReferenceAtScale, AllEightRunFromTheDirectoryAsFromLoadedData) {
  for (int number : braid::query::tpch_query_numbers) {
    EXPECT_EQ(tpch::reference_query(number, directory()), tpch::reference_query(number, data())) << "Q" << number;
  }
}

}  // namespace
