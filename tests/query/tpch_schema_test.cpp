#include "braid/query/tpch_schema.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "braid/column/table.hpp"
#include "tpch.hpp"

namespace braid::query {
namespace {

namespace gen = braid::bench::tpch;

// ---- an independent reading of .tbl text: split by hand, values parsed another way ----

std::vector<std::vector<std::string>> split_tbl(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '|') line.pop_back();
    std::vector<std::string> fields;
    std::size_t start = 0;
    while (true) {
      const std::size_t bar = line.find('|', start);
      fields.push_back(line.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
      if (bar == std::string::npos) break;
      start = bar + 1;
    }
    rows.push_back(fields);
  }
  return rows;
}

// Days since 1970-01-01 by the civil-calendar formula (no std::chrono).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

cell expected_cell(const std::string& field, column_type type) {
  switch (type.kind) {
    case value_kind::integer:
      return cell::integer(std::stoll(field));
    case value_kind::decimal: {
      // Scale 2: the digits without the point, fraction padded to two digits.
      const std::size_t point = field.find('.');
      std::string whole = field.substr(0, point);
      std::string fraction = point == std::string::npos ? "" : field.substr(point + 1);
      while (fraction.size() < 2) fraction += '0';
      const bool negative = !whole.empty() && whole[0] == '-';
      if (negative) whole.erase(0, 1);
      const long long magnitude = std::stoll(whole) * 100 + std::stoll(fraction);
      return cell::decimal(negative ? -magnitude : magnitude, 2);
    }
    case value_kind::date:
      return cell::date(days_from_civil(std::stoll(field.substr(0, 4)), static_cast<unsigned>(std::stoul(field.substr(5, 2))),
                                        static_cast<unsigned>(std::stoul(field.substr(8, 2)))));
    case value_kind::text:
      return cell::text(field);
  }
  return {};
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class TpchSchema : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    directory() = std::filesystem::temp_directory_path() / ("braid-query-tpch-" + std::to_string(::getpid()));
    std::filesystem::create_directories(directory());
    generated() = gen::generate({.scale_factor = 0.01, .seed = 5, .out = directory(), .tables = {}});
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(directory()); }

  static std::filesystem::path& directory() {
    static std::filesystem::path path;
    return path;
  }
  static std::vector<gen::generated_table>& generated() {
    static std::vector<gen::generated_table> tables;
    return tables;
  }
  static std::filesystem::path file(tpch_table which) { return directory() / (std::string(name_of(which)) + ".tbl"); }
};

constexpr tpch_table all_tables[] = {tpch_table::region, tpch_table::nation,   tpch_table::supplier, tpch_table::customer,
                                     tpch_table::part,   tpch_table::partsupp, tpch_table::orders,   tpch_table::lineitem};

TEST(TpchColumns, NamesTypesAndOrder) {
  std::size_t total = 0;
  for (const tpch_table which : all_tables) {
    EXPECT_EQ(parse_tpch_table(name_of(which)), which);
    total += tpch_columns(which).size();
  }
  EXPECT_EQ(total, 3U + 4 + 7 + 8 + 9 + 5 + 9 + 16);
  EXPECT_THROW((void)parse_tpch_table("lineitems"), std::invalid_argument);
  EXPECT_THROW((void)tpch_columns(static_cast<tpch_table>(8)), std::invalid_argument);

  const std::vector<column_spec>& lineitem = tpch_columns(tpch_table::lineitem);
  const std::vector<std::string> names = {"l_orderkey",   "l_partkey",       "l_suppkey",    "l_linenumber",
                                          "l_quantity",   "l_extendedprice", "l_discount",   "l_tax",
                                          "l_returnflag", "l_linestatus",    "l_shipdate",   "l_commitdate",
                                          "l_receiptdate", "l_shipinstruct", "l_shipmode",   "l_comment"};
  ASSERT_EQ(lineitem.size(), names.size());
  for (std::size_t c = 0; c < names.size(); ++c) EXPECT_EQ(lineitem[c].name, names[c]);
  const column_type integer{value_kind::integer, 0};
  const column_type money{value_kind::decimal, 2};
  const column_type date{value_kind::date, 0};
  const column_type text{value_kind::text, 0};
  EXPECT_EQ(lineitem[3].type, integer);
  EXPECT_EQ(lineitem[4].type, money);
  EXPECT_EQ(lineitem[7].type, money);
  EXPECT_EQ(lineitem[8].type, text);
  EXPECT_EQ(lineitem[12].type, date);
  const std::vector<column_spec>& orders = tpch_columns(tpch_table::orders);
  EXPECT_EQ(orders[2].name, "o_orderstatus");
  EXPECT_EQ(orders[3].type, money);
  EXPECT_EQ(orders[4].type, date);
  EXPECT_EQ(orders[7].name, "o_shippriority");
  EXPECT_EQ(orders[7].type, integer);
  const std::vector<column_spec>& partsupp = tpch_columns(tpch_table::partsupp);
  EXPECT_EQ(partsupp[2].name, "ps_availqty");
  EXPECT_EQ(partsupp[2].type, integer);
  EXPECT_EQ(partsupp[3].type, money);
  EXPECT_EQ(tpch_columns(tpch_table::customer)[6].name, "c_mktsegment");
  EXPECT_EQ(tpch_columns(tpch_table::part)[5].type, integer);  // p_size
  EXPECT_EQ(tpch_columns(tpch_table::supplier)[3].name, "s_nationkey");
  EXPECT_EQ(tpch_columns(tpch_table::nation)[2].name, "n_regionkey");
  EXPECT_EQ(tpch_columns(tpch_table::region)[2].name, "r_comment");
}

TEST_F(TpchSchema, RowCountsMatchTheGenerator) {
  const gen::cardinalities expected = gen::cardinalities_at(0.01);
  const tpch_database db = load_tpch(directory());
  for (const tpch_table which : all_tables) ASSERT_TRUE(db.has(which));
  EXPECT_EQ(db.get(tpch_table::region).rows(), 5U);
  EXPECT_EQ(db.get(tpch_table::nation).rows(), 25U);
  EXPECT_EQ(db.get(tpch_table::supplier).rows(), expected.suppliers);
  EXPECT_EQ(db.get(tpch_table::customer).rows(), expected.customers);
  EXPECT_EQ(db.get(tpch_table::part).rows(), expected.parts);
  EXPECT_EQ(db.get(tpch_table::partsupp).rows(), expected.partsupps);
  EXPECT_EQ(db.get(tpch_table::orders).rows(), expected.orders);
  const std::uint64_t lineitems = db.get(tpch_table::lineitem).rows();
  EXPECT_GE(lineitems, expected.orders);
  EXPECT_LE(lineitems, 7 * expected.orders);
  for (const gen::generated_table& written : generated()) {
    EXPECT_EQ(db.get(static_cast<tpch_table>(written.table)).rows(), written.rows) << gen::name_of(written.table);
  }
  EXPECT_EQ(db.get(tpch_table::lineitem).tuples_per_fragment(), 1024U);
  EXPECT_EQ(db.get(tpch_table::lineitem).name(), "lineitem");
}

TEST_F(TpchSchema, EveryValueMatchesTheRawText) {
  for (const tpch_table which : all_tables) {
    SCOPED_TRACE(name_of(which));
    const table loaded = load_tpch_table(file(which), which, {.tuples_per_fragment = 1000});
    const std::vector<std::vector<std::string>> raw = split_tbl(read_file(file(which)));
    const std::vector<column_spec>& columns = tpch_columns(which);
    ASSERT_EQ(loaded.rows(), raw.size());
    ASSERT_EQ(loaded.columns().size(), columns.size());
    for (std::uint64_t row = 0; row < raw.size(); ++row) {
      ASSERT_EQ(raw[row].size(), columns.size()) << row;
      for (std::size_t c = 0; c < columns.size(); ++c) {
        ASSERT_EQ(loaded.at(row, c), expected_cell(raw[row][c], columns[c].type))
            << "row " << row << " column " << columns[c].name << " field '" << raw[row][c] << "'";
      }
    }
  }
}

TEST_F(TpchSchema, KnownValuesOfTheSpec) {
  const table nation = load_tpch_table(file(tpch_table::nation), tpch_table::nation);
  EXPECT_EQ(nation.at(0, 0), cell::integer(0));
  EXPECT_EQ(nation.at(0, 1), cell::text("ALGERIA"));
  EXPECT_EQ(nation.at(24, 1), cell::text("UNITED STATES"));
  EXPECT_EQ(nation.at(24, 2), cell::integer(1));
  const table region = load_tpch_table(file(tpch_table::region), tpch_table::region);
  EXPECT_EQ(region.dictionary(1).values(),
            (std::vector<std::string>{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}));
  // Dates lie in the spec's range; flags are the spec's.
  const table lineitem = load_tpch_table(file(tpch_table::lineitem), tpch_table::lineitem,
                                         {.tuples_per_fragment = 4096, .columns = {"l_shipdate", "l_returnflag"}});
  const std::int64_t first = gen::start_date.time_since_epoch().count();
  const std::int64_t last = (gen::end_date + std::chrono::days{30}).time_since_epoch().count();
  for (std::size_t f = 0; f < lineitem.fragment_count(); ++f) {
    const auto* days = lineitem.column_data<std::int32_t>(f, 0);
    for (std::size_t i = 0; i < lineitem.header(f).tuples; ++i) {
      ASSERT_GE(days[i], first);
      ASSERT_LE(days[i], last);
    }
  }
  EXPECT_EQ(lineitem.dictionary(1).values(), (std::vector<std::string>{"A", "N", "R"}));
}

TEST_F(TpchSchema, ColumnSubsetsKeepTheAskedOrderAndValues) {
  const table full = load_tpch_table(file(tpch_table::orders), tpch_table::orders, {.tuples_per_fragment = 512});
  const table subset = load_tpch_table(file(tpch_table::orders), tpch_table::orders,
                                       {.tuples_per_fragment = 100, .columns = {"o_orderdate", "o_orderkey", "o_clerk"}});
  ASSERT_EQ(subset.columns().size(), 3U);
  EXPECT_EQ(subset.columns()[0].name, "o_orderdate");
  EXPECT_EQ(subset.columns()[1].name, "o_orderkey");
  EXPECT_EQ(subset.columns()[2].name, "o_clerk");
  EXPECT_EQ(subset.column_index("o_clerk"), 2U);
  EXPECT_THROW((void)subset.column_index("o_comment"), std::invalid_argument);
  ASSERT_EQ(subset.rows(), full.rows());
  for (std::uint64_t row = 0; row < full.rows(); ++row) {
    ASSERT_EQ(subset.at(row, 0), full.at(row, full.column_index("o_orderdate")));
    ASSERT_EQ(subset.at(row, 1), full.at(row, full.column_index("o_orderkey")));
    ASSERT_EQ(subset.at(row, 2), full.at(row, full.column_index("o_clerk")));
  }
  EXPECT_THROW((void)load_tpch_table(file(tpch_table::orders), tpch_table::orders, {.columns = {"l_orderkey"}}),
               std::invalid_argument);
  EXPECT_THROW((void)load_tpch_table(file(tpch_table::orders), tpch_table::orders,
                                     {.columns = {"o_orderkey", "o_orderkey"}}),
               std::invalid_argument);
  EXPECT_THROW((void)load_tpch_table(file(tpch_table::orders), tpch_table::orders, {.tuples_per_fragment = 0}),
               std::invalid_argument);

  const tpch_database db = load_tpch(directory(), {.tuples_per_fragment = 64,
                                                   .tables = {{tpch_table::nation, {"n_name"}}, {tpch_table::region, {}}}});
  EXPECT_TRUE(db.has(tpch_table::nation));
  EXPECT_TRUE(db.has(tpch_table::region));
  EXPECT_FALSE(db.has(tpch_table::lineitem));
  EXPECT_EQ(db.get(tpch_table::nation).columns().size(), 1U);
  EXPECT_EQ(db.get(tpch_table::region).columns().size(), 3U);
  EXPECT_EQ(db.get(tpch_table::nation).tuples_per_fragment(), 64U);
  try {
    (void)db.get(tpch_table::lineitem);
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("lineitem"), std::string::npos);
  }
  EXPECT_THROW((void)load_tpch(directory(), {.tables = {{tpch_table::nation, {}}, {tpch_table::nation, {}}}}),
               std::invalid_argument);
}

// ---- malformed input ----

// The tbl_error of loading `text` as `which`, its message checked to start with "t.tbl:LINE: ".
std::string load_error(const std::string& text, tpch_table which, std::uint64_t line) {
  try {
    (void)load_tpch_table_text(text, "t.tbl", which);
  } catch (const join::tbl_error& e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_EQ(e.file(), "t.tbl");
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("t.tbl:" + std::to_string(line) + ": ", 0), 0U) << message;
    return message;
  }
  ADD_FAILURE() << "loaded: " << text;
  return {};
}

void expect_error(const std::string& text, tpch_table which, std::uint64_t line, const std::string& column,
                  const std::string& what) {
  const std::string message = load_error(text, which, line);
  EXPECT_NE(message.find("column " + column + ": "), std::string::npos) << message;
  EXPECT_NE(message.find(what), std::string::npos) << message;
}

const std::string good_order = "1|37|O|131251.81|1996-01-02|5-LOW|Clerk#000000010|0|quickly even|\n";

std::string order_with(std::size_t column, const std::string& field) {
  std::vector<std::string> fields = split_tbl(good_order)[0];
  fields[column] = field;
  std::string line;
  for (const std::string& f : fields) line += f + "|";
  return line + "\n";
}

TEST(TpchLoadErrors, BadDates) {
  expect_error(good_order + order_with(4, "1996-02-30"), tpch_table::orders, 2, "o_orderdate", "not a calendar day");
  expect_error(order_with(4, "1996-13-01"), tpch_table::orders, 1, "o_orderdate", "not a calendar day");
  expect_error(order_with(4, "1996-00-10"), tpch_table::orders, 1, "o_orderdate", "not a calendar day");
  expect_error(order_with(4, "1996-1-02"), tpch_table::orders, 1, "o_orderdate", "not a date");
  expect_error(order_with(4, "1996/01/02"), tpch_table::orders, 1, "o_orderdate", "not a date");
  expect_error(order_with(4, "1996-01-0x"), tpch_table::orders, 1, "o_orderdate", "not a date");
  expect_error(order_with(4, ""), tpch_table::orders, 1, "o_orderdate", "not a date");
  expect_error(order_with(4, "1996-01-02 "), tpch_table::orders, 1, "o_orderdate", "not a date");
  const table leap = load_tpch_table_text(order_with(4, "1996-02-29") + order_with(4, "1970-01-01") +
                                              order_with(4, "1969-12-31"),
                                          "t.tbl", tpch_table::orders);
  EXPECT_EQ(leap.at(0, 4), cell::date(days_from_civil(1996, 2, 29)));
  EXPECT_EQ(leap.at(1, 4), cell::date(0));
  EXPECT_EQ(leap.at(2, 4), cell::date(-1));
}

TEST(TpchLoadErrors, BadDecimals) {
  expect_error(order_with(3, "12a.5"), tpch_table::orders, 1, "o_totalprice", "not a decimal");
  expect_error(order_with(3, ""), tpch_table::orders, 1, "o_totalprice", "empty field");
  expect_error(order_with(3, "-"), tpch_table::orders, 1, "o_totalprice", "not a decimal");
  expect_error(order_with(3, ".5"), tpch_table::orders, 1, "o_totalprice", "not a decimal");
  expect_error(order_with(3, "5."), tpch_table::orders, 1, "o_totalprice", "not a decimal");
  expect_error(order_with(3, "+5"), tpch_table::orders, 1, "o_totalprice", "not a decimal");
  expect_error(order_with(3, "1.2.3"), tpch_table::orders, 1, "o_totalprice", "not a decimal");
  expect_error(order_with(3, "92233720368547758.08"), tpch_table::orders, 1, "o_totalprice", "outside int64");
  expect_error(good_order + good_order + order_with(3, "1.234"), tpch_table::orders, 3, "o_totalprice",
               "more than 2 fraction digits");
  const table exact = load_tpch_table_text(order_with(3, "23") + order_with(3, "23.5") + order_with(3, "23.50") +
                                               order_with(3, "-0.05") + order_with(3, "007.1") +
                                               order_with(3, "92233720368547758.07") +
                                               order_with(3, "-92233720368547758.08"),
                                           "t.tbl", tpch_table::orders, {.columns = {"o_totalprice"}});
  EXPECT_EQ(exact.at(0, 0), cell::decimal(2300, 2));
  EXPECT_EQ(exact.at(1, 0), cell::decimal(2350, 2));
  EXPECT_EQ(exact.at(2, 0), cell::decimal(2350, 2));
  EXPECT_EQ(exact.at(3, 0), cell::decimal(-5, 2));
  EXPECT_EQ(exact.at(4, 0), cell::decimal(710, 2));
  EXPECT_EQ(exact.at(5, 0), cell::decimal(INT64_MAX, 2));
  EXPECT_EQ(exact.at(6, 0), cell::decimal(INT64_MIN, 2));
}

TEST(TpchLoadErrors, BadIntegers) {
  expect_error(order_with(0, "x1"), tpch_table::orders, 1, "o_orderkey", "not an integer");
  expect_error(order_with(1, "1.0"), tpch_table::orders, 1, "o_custkey", "not an integer");
  expect_error(order_with(7, "9223372036854775808"), tpch_table::orders, 1, "o_shippriority", "outside int64");
  expect_error(order_with(7, "-"), tpch_table::orders, 1, "o_shippriority", "not an integer");
  const table extremes = load_tpch_table_text(order_with(0, "-9223372036854775808") + order_with(0, "9223372036854775807"),
                                              "t.tbl", tpch_table::orders, {.columns = {"o_orderkey"}});
  EXPECT_EQ(extremes.at(0, 0), cell::integer(INT64_MIN));
  EXPECT_EQ(extremes.at(1, 0), cell::integer(INT64_MAX));
}

TEST(TpchLoadErrors, OnlyKeptColumnsAreParsed) {
  // A bad date in a dropped column loads; kept in, it is refused.
  const std::string text = order_with(4, "not a date");
  EXPECT_EQ(load_tpch_table_text(text, "t.tbl", tpch_table::orders, {.columns = {"o_orderkey"}}).rows(), 1U);
  EXPECT_THROW((void)load_tpch_table_text(text, "t.tbl", tpch_table::orders, {.columns = {"o_orderdate"}}),
               join::tbl_error);
}

TEST(TpchLoadErrors, WrongFieldCount) {
  expect_error("0|AFRICA|\n", tpch_table::region, 1, "r_comment", "missing (2 fields, region has 3 columns)");
  expect_error("0|AFRICA|c|\n1|AMERICA|\n", tpch_table::region, 2, "r_comment", "missing");
  const std::string extra = load_error("0|AFRICA|c|d|\n", tpch_table::region, 1);
  EXPECT_NE(extra.find("after column r_comment: extra field (4 fields, region has 3 columns)"), std::string::npos) << extra;
  // A missing field is found even among columns that are not kept.
  EXPECT_THROW((void)load_tpch_table_text("0|AFRICA|\n", "t.tbl", tpch_table::region, {.columns = {"r_name"}}),
               join::tbl_error);
  // The reader's own refusals keep their FILE:LINE.
  EXPECT_NE(load_error("0|AFRICA|c|\n\n", tpch_table::region, 2).find("empty line"), std::string::npos);
  const table trailing = load_tpch_table_text("0|AFRICA|c\n1|AMERICA||", "t.tbl", tpch_table::region);
  EXPECT_EQ(trailing.at(0, 2), cell::text("c"));
  EXPECT_EQ(trailing.at(1, 2), cell::text(""));
}

TEST(TpchLoadErrors, MissingFile) {
  const std::filesystem::path missing = std::filesystem::temp_directory_path() / "braid-query-no-such-dir" / "region.tbl";
  try {
    (void)load_tpch_table(missing, tpch_table::region);
    FAIL() << "no throw";
  } catch (const join::tbl_error& e) {
    EXPECT_EQ(e.line(), 0U);
    EXPECT_EQ(std::string(e.what()).rfind(missing.string() + ":0: ", 0), 0U) << e.what();
  }
  EXPECT_THROW((void)load_tpch(missing.parent_path()), join::tbl_error);
}

TEST(TpchLoadErrors, EmptyTextIsAnEmptyTable) {
  const table empty = load_tpch_table_text("", "t.tbl", tpch_table::lineitem);
  EXPECT_EQ(empty.rows(), 0U);
  EXPECT_EQ(empty.fragment_count(), 0U);
  EXPECT_EQ(empty.columns().size(), 16U);
}

// ---- the column store ----

TEST(FromColumnTable, RoundTripsEveryType) {
  braid::table source(column_schema::parse("id:int64,qty:int32,price:decimal(8,2),name:varchar(12)", "id"));
  source.append_columns({{1, 2, 3}, {10, -20, 30}, {1250, -5, 99999999}, {"pear", "apple", ""}});
  source.merge();
  source.append_columns({{4, 5}, {INT32_MIN, INT32_MAX}, {0, -99999999}, {"apple", "zucchini"}});  // in the delta
  const table t = from_column_table(source, "fruit", 2);
  EXPECT_EQ(t.name(), "fruit");
  ASSERT_EQ(t.rows(), 5U);
  EXPECT_EQ(t.fragment_count(), 3U);
  ASSERT_EQ(t.columns().size(), 4U);
  EXPECT_EQ(t.columns()[0].name, "id");
  EXPECT_EQ(t.columns()[1].type, (column_type{value_kind::integer, 0}));
  EXPECT_EQ(t.columns()[2].type, (column_type{value_kind::decimal, 2}));
  EXPECT_EQ(t.columns()[3].type, (column_type{value_kind::text, 0}));
  const std::vector<std::vector<cell>> expected = {
      {cell::integer(1), cell::integer(10), cell::decimal(1250, 2), cell::text("pear")},
      {cell::integer(2), cell::integer(-20), cell::decimal(-5, 2), cell::text("apple")},
      {cell::integer(3), cell::integer(30), cell::decimal(99999999, 2), cell::text("")},
      {cell::integer(4), cell::integer(INT32_MIN), cell::decimal(0, 2), cell::text("apple")},
      {cell::integer(5), cell::integer(INT32_MAX), cell::decimal(-99999999, 2), cell::text("zucchini")}};
  for (std::uint64_t row = 0; row < 5; ++row) {
    for (std::size_t c = 0; c < 4; ++c) EXPECT_EQ(t.at(row, c), expected[row][c]) << row << " " << c;
  }
  EXPECT_EQ(t.dictionary(3).values(), (std::vector<std::string>{"", "apple", "pear", "zucchini"}));
  EXPECT_THROW((void)from_column_table(source, "fruit", 0), std::invalid_argument);

  braid::table generated(column_schema::parse("k:int32,v:decimal(12,4),s:varchar(20)", "k"));
  generated.generate(3000, 50, 7);
  const table big = from_column_table(generated, "generated", 1024);
  ASSERT_EQ(big.rows(), 3000U);
  for (std::uint64_t row = 0; row < 3000; row += 7) {
    EXPECT_EQ(big.at(row, 0), cell::integer(generated.at(0).get(row).integer()));
    EXPECT_EQ(big.at(row, 1), cell::decimal(generated.at(1).get(row).integer(), 4));
    EXPECT_EQ(big.at(row, 2), cell::text(generated.at(2).get(row).text()));
  }
}

}  // namespace
}  // namespace braid::query
