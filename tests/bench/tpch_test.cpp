// tpch: the generator at SF 0.01, read back with the join layer's .tbl reader: cardinalities,
// schema widths, every key and foreign key, the custkey mod 3 rule, the date, flag, status and
// price rules, O_TOTALPRICE against its lineitems, comment lengths; determinism (same seed, same
// bytes, whichever tables are written; another seed, other bytes); the scale's rounding and the
// refusals of bad arguments.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "braid/join/tbl_reader.hpp"
#include "tpch.hpp"

namespace braid::bench::tpch {
namespace {

using table_rows = std::vector<std::vector<std::string>>;

table_rows read_table(const std::filesystem::path& path) {
  table_rows rows;
  join::read_tbl_file(path.string(), [&](std::span<const std::string_view> fields, std::uint64_t) {
    rows.emplace_back(fields.begin(), fields.end());
  });
  return rows;
}

std::uint64_t integer(const std::string& text) {
  std::string problem;
  const std::optional<std::uint64_t> value = join::parse_tbl_unsigned(text, problem);
  EXPECT_TRUE(value.has_value()) << text << ": " << problem;
  return value.value_or(0);
}

// "-123.45" -> -12345; exactly two decimals.
std::int64_t cents(const std::string& text) {
  const std::size_t dot = text.find('.');
  EXPECT_TRUE(dot != std::string::npos && dot + 3 == text.size()) << text;
  const bool negative = text.starts_with('-');
  const std::int64_t whole = static_cast<std::int64_t>(integer(text.substr(negative ? 1 : 0, dot - (negative ? 1 : 0))));
  const std::int64_t value = whole * 100 + static_cast<std::int64_t>(integer(text.substr(dot + 1)));
  return negative ? -value : value;
}

// "1995-06-17" -> days after start_date.
std::int64_t day(const std::string& text) {
  EXPECT_EQ(text.size(), 10u) << text;
  const std::chrono::year_month_day date{std::chrono::year{static_cast<int>(integer(text.substr(0, 4)))},
                                         std::chrono::month{static_cast<unsigned>(integer(text.substr(5, 2)))},
                                         std::chrono::day{static_cast<unsigned>(integer(text.substr(8, 2)))}};
  EXPECT_TRUE(date.ok()) << text;
  return (std::chrono::sys_days{date} - start_date).count();
}

std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void expect_length_in(const std::string& text, std::size_t low, std::size_t high) {
  EXPECT_GE(text.size(), low) << text;
  EXPECT_LE(text.size(), high) << text;
}

class Tpch : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("braid-tpch-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  std::filesystem::path generate_into(const std::string& name, double scale, std::uint64_t seed,
                                      std::vector<table_id> tables = {}) const {
    const std::filesystem::path out = root_ / name;
    std::filesystem::create_directories(out);
    const std::vector<generated_table> written = generate({.scale_factor = scale, .seed = seed, .out = out, .tables = tables});
    EXPECT_EQ(written.size(), tables.empty() ? 8u : tables.size());
    for (const generated_table& table : written) {
      EXPECT_EQ(table.path, out / (std::string(name_of(table.table)) + ".tbl"));
      EXPECT_EQ(table.bytes, std::filesystem::file_size(table.path));
    }
    return out;
  }

  std::filesystem::path root_;
};

TEST(TpchScale, CardinalitiesFollowTheScaleInThousandths) {
  const cardinalities hundredth = cardinalities_at(0.01);
  EXPECT_EQ(hundredth.suppliers, 100u);
  EXPECT_EQ(hundredth.customers, 1'500u);
  EXPECT_EQ(hundredth.parts, 2'000u);
  EXPECT_EQ(hundredth.partsupps, 8'000u);
  EXPECT_EQ(hundredth.orders, 15'000u);
  EXPECT_EQ(hundredth.clerks, 10u);
  const cardinalities one = cardinalities_at(1);
  EXPECT_EQ(one.suppliers, 10'000u);
  EXPECT_EQ(one.customers, 150'000u);
  EXPECT_EQ(one.orders, 1'500'000u);
  EXPECT_EQ(cardinalities_at(10).orders, 15'000'000u);
  EXPECT_EQ(cardinalities_at(0.0129).customers, 1'800u);  // 12 thousandths, truncated
  EXPECT_EQ(cardinalities_at(0.001).suppliers, 10u);
  EXPECT_EQ(cardinalities_at(0.001).clerks, 1u);
  for (const double bad : {0.0, -1.0, 0.0004, 100'001.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    EXPECT_THROW(cardinalities_at(bad), std::invalid_argument) << bad;
  }
}

TEST(TpchFormulas, SpecValues) {
  const std::vector<std::uint64_t> keys = {1, 2, 3, 4, 5, 6, 7, 32, 33, 34};
  for (std::uint64_t n = 1; n <= keys.size(); ++n) EXPECT_EQ(order_key(n), keys[n - 1]);
  EXPECT_EQ(order_key(1'500'000), 6'000'000u);  // SF 1's last order key: within 4 x SF x 1,500,000
  EXPECT_EQ(retail_price_cents(1), 90'100);     // 901.00
  EXPECT_EQ(retail_price_cents(1'000), 90'100);  // 90000 + 100 + 0
  EXPECT_EQ(retail_price_cents(199'999), 90'000 + 19'999 + 99'900);
  EXPECT_EQ(part_supplier(1, 0, 10'000), 2u);
  EXPECT_EQ(part_supplier(1, 1, 10'000), 2'502u);
  EXPECT_EQ(line_charge_cents(10'000, 4, 2), 9'792);  // 100.00 x 0.96 x 1.02
  EXPECT_EQ(line_charge_cents(12'345, 7, 3), 11'825);  // 123.45 x 0.93 x 1.03 = 118.2517...
  EXPECT_EQ(line_charge_cents(150, 10, 0), 135);
  EXPECT_EQ(line_charge_cents(5, 10, 0), 5);           // 4.5 cents: halves round up
  EXPECT_EQ(parse_tables("customer,orders"), (std::vector<table_id>{table_id::customer, table_id::orders}));
  EXPECT_THROW(parse_tables("customer,custard"), std::invalid_argument);
  EXPECT_THROW(parse_tables("orders,orders"), std::invalid_argument);
  EXPECT_THROW(parse_tables(""), std::invalid_argument);
}

TEST_F(Tpch, EveryRuleHoldsAtScaleOneHundredth) {
  const std::filesystem::path out = generate_into("sf", 0.01, 11);
  const table_rows region = read_table(out / "region.tbl");
  const table_rows nation = read_table(out / "nation.tbl");
  const table_rows supplier = read_table(out / "supplier.tbl");
  const table_rows customer = read_table(out / "customer.tbl");
  const table_rows part = read_table(out / "part.tbl");
  const table_rows partsupp = read_table(out / "partsupp.tbl");
  const table_rows orders = read_table(out / "orders.tbl");
  const table_rows lineitem = read_table(out / "lineitem.tbl");
  const cardinalities counts = cardinalities_at(0.01);

  ASSERT_EQ(region.size(), 5u);
  ASSERT_EQ(nation.size(), 25u);
  ASSERT_EQ(supplier.size(), counts.suppliers);
  ASSERT_EQ(customer.size(), counts.customers);
  ASSERT_EQ(part.size(), counts.parts);
  ASSERT_EQ(partsupp.size(), counts.partsupps);
  ASSERT_EQ(orders.size(), counts.orders);
  ASSERT_GE(lineitem.size(), counts.orders);
  ASSERT_LE(lineitem.size(), 7 * counts.orders);
  const std::vector<std::pair<const table_rows*, std::size_t>> widths = {
      {&region, 3}, {&nation, 4}, {&supplier, 7}, {&customer, 8}, {&part, 9}, {&partsupp, 5}, {&orders, 9}, {&lineitem, 16}};
  for (const auto& [rows, width] : widths) {
    for (const auto& row : *rows) ASSERT_EQ(row.size(), width) << row[0];
  }

  // Regions and nations: the spec's names and keys.
  EXPECT_EQ(region[4][1], "MIDDLE EAST");
  EXPECT_EQ(nation[0][1], "ALGERIA");
  EXPECT_EQ(nation[24][1], "UNITED STATES");
  EXPECT_EQ(nation[24][2], "1");
  EXPECT_EQ(nation[18][1], "CHINA");
  EXPECT_EQ(nation[18][2], "2");
  for (std::size_t i = 0; i < region.size(); ++i) {
    EXPECT_EQ(integer(region[i][0]), i);
    expect_length_in(region[i][2], 31, 115);
  }
  for (std::size_t i = 0; i < nation.size(); ++i) {
    EXPECT_EQ(integer(nation[i][0]), i);
    EXPECT_LT(integer(nation[i][2]), 5u);
    expect_length_in(nation[i][3], 31, 114);
  }

  // Suppliers and customers: dense keys, names, nations, phones, balances.
  const auto check_party = [](const std::vector<std::string>& row, std::size_t key, const std::string& prefix) {
    EXPECT_EQ(integer(row[0]), key);
    std::string number = std::to_string(key);
    EXPECT_EQ(row[1], prefix + std::string(9 - number.size(), '0') + number);
    expect_length_in(row[2], 10, 40);
    const std::uint64_t nation_key = integer(row[3]);
    EXPECT_LT(nation_key, 25u);
    ASSERT_EQ(row[4].size(), 15u) << row[4];
    EXPECT_EQ(row[4].substr(0, 3), std::to_string(nation_key + 10) + "-");
    EXPECT_EQ(row[4][6], '-');
    EXPECT_EQ(row[4][10], '-');
    const std::int64_t balance = cents(row[5]);
    EXPECT_GE(balance, -99'999);
    EXPECT_LE(balance, 999'999);
  };
  for (std::size_t i = 0; i < supplier.size(); ++i) {
    check_party(supplier[i], i + 1, "Supplier#");
    expect_length_in(supplier[i][6], 25, 100);
  }
  const std::set<std::string> segments = {"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"};
  for (std::size_t i = 0; i < customer.size(); ++i) {
    check_party(customer[i], i + 1, "Customer#");
    EXPECT_TRUE(segments.contains(customer[i][6])) << customer[i][6];
    expect_length_in(customer[i][7], 29, 116);
  }

  // Parts: names of five distinct colours, manufacturer and brand, the retail price formula.
  for (std::size_t i = 0; i < part.size(); ++i) {
    const auto& row = part[i];
    EXPECT_EQ(integer(row[0]), i + 1);
    std::istringstream words(row[1]);
    std::set<std::string> colours;
    std::string word;
    while (words >> word) colours.insert(word);
    EXPECT_EQ(colours.size(), 5u) << row[1];
    ASSERT_EQ(row[2].size(), 14u) << row[2];
    const char manufacturer = row[2].back();
    EXPECT_TRUE(manufacturer >= '1' && manufacturer <= '5') << row[2];
    ASSERT_EQ(row[3].size(), 8u) << row[3];
    EXPECT_EQ(row[3].substr(0, 7), std::string("Brand#") + manufacturer);
    EXPECT_TRUE(row[3][7] >= '1' && row[3][7] <= '5');
    EXPECT_EQ(std::count(row[4].begin(), row[4].end(), ' '), 2) << row[4];
    EXPECT_GE(integer(row[5]), 1u);
    EXPECT_LE(integer(row[5]), 50u);
    EXPECT_EQ(std::count(row[6].begin(), row[6].end(), ' '), 1) << row[6];
    EXPECT_EQ(cents(row[7]), retail_price_cents(i + 1));
    expect_length_in(row[8], 5, 22);
  }

  // Partsupp: four suppliers a part by the spec's formula, each (part, supplier) once.
  std::set<std::pair<std::uint64_t, std::uint64_t>> part_suppliers;
  for (std::size_t i = 0; i < partsupp.size(); ++i) {
    const auto& row = partsupp[i];
    const std::uint64_t part_key = integer(row[0]);
    const std::uint64_t supplier_key = integer(row[1]);
    EXPECT_EQ(part_key, i / 4 + 1);
    EXPECT_EQ(supplier_key, part_supplier(part_key, i % 4, counts.suppliers));
    EXPECT_GE(supplier_key, 1u);
    EXPECT_LE(supplier_key, counts.suppliers);
    EXPECT_TRUE(part_suppliers.emplace(part_key, supplier_key).second) << part_key << "," << supplier_key;
    EXPECT_GE(integer(row[2]), 1u);
    EXPECT_LE(integer(row[2]), 9'999u);
    EXPECT_GE(cents(row[3]), 100);
    EXPECT_LE(cents(row[3]), 100'000);
    expect_length_in(row[4], 49, 198);
  }

  // Lineitems by order: numbered 1..n, n in 1..7, every rule of clause 4.2.3.
  std::map<std::uint64_t, std::vector<const std::vector<std::string>*>> lines_of;
  for (const auto& row : lineitem) lines_of[integer(row[0])].push_back(&row);
  EXPECT_EQ(lines_of.size(), orders.size());
  const std::set<std::string> priorities = {"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"};
  const std::set<std::string> instructions = {"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"};
  const std::set<std::string> modes = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};
  const std::int64_t current = (current_date - start_date).count();
  const std::int64_t last_order = (end_date - start_date).count() - 151;
  std::set<std::uint64_t> ordering_customers;
  std::map<char, std::size_t> statuses;
  for (std::size_t i = 0; i < orders.size(); ++i) {
    const auto& order = orders[i];
    const std::uint64_t key = integer(order[0]);
    EXPECT_EQ(key, order_key(i + 1));
    const std::uint64_t customer_key = integer(order[1]);
    EXPECT_GE(customer_key, 1u);
    EXPECT_LE(customer_key, counts.customers);
    EXPECT_NE(customer_key % 3, 0u) << "customer " << customer_key << " places an order";
    ordering_customers.insert(customer_key);
    const std::int64_t order_day = day(order[4]);
    EXPECT_GE(order_day, 0);
    EXPECT_LE(order_day, last_order);
    EXPECT_TRUE(priorities.contains(order[5])) << order[5];
    EXPECT_TRUE(order[6].starts_with("Clerk#")) << order[6];
    EXPECT_GE(integer(order[6].substr(6)), 1u);
    EXPECT_LE(integer(order[6].substr(6)), counts.clerks);
    EXPECT_EQ(order[7], "0");
    expect_length_in(order[8], 19, 78);

    const auto& lines = lines_of[key];
    ASSERT_GE(lines.size(), 1u);
    ASSERT_LE(lines.size(), 7u);
    std::int64_t total = 0;
    double exact_total = 0;
    std::size_t open = 0;
    for (std::size_t n = 0; n < lines.size(); ++n) {
      const auto& line = *lines[n];
      EXPECT_EQ(integer(line[3]), n + 1);
      const std::uint64_t part_key = integer(line[1]);
      ASSERT_GE(part_key, 1u);
      ASSERT_LE(part_key, counts.parts);
      EXPECT_TRUE(part_suppliers.contains({part_key, integer(line[2])})) << "no partsupp row for a lineitem";
      const std::int64_t quantity = static_cast<std::int64_t>(integer(line[4]));
      EXPECT_GE(quantity, 1);
      EXPECT_LE(quantity, 50);
      const std::int64_t extended = cents(line[5]);
      EXPECT_EQ(extended, quantity * retail_price_cents(part_key));
      const std::int64_t discount = cents(line[6]);
      const std::int64_t tax = cents(line[7]);
      EXPECT_GE(discount, 0);
      EXPECT_LE(discount, 10);
      EXPECT_GE(tax, 0);
      EXPECT_LE(tax, 8);
      total += line_charge_cents(extended, discount, tax);
      exact_total += static_cast<double>(extended) * (1 + static_cast<double>(tax) / 100) * (1 - static_cast<double>(discount) / 100);
      const std::int64_t ship = day(line[10]);
      const std::int64_t commit = day(line[11]);
      const std::int64_t receipt = day(line[12]);
      EXPECT_GE(ship - order_day, 1);
      EXPECT_LE(ship - order_day, 121);
      EXPECT_GE(commit - order_day, 30);
      EXPECT_LE(commit - order_day, 90);
      EXPECT_GE(receipt - ship, 1);
      EXPECT_LE(receipt - ship, 30);
      if (receipt <= current) {
        EXPECT_TRUE(line[8] == "R" || line[8] == "A") << line[8];
      } else {
        EXPECT_EQ(line[8], "N");
      }
      EXPECT_EQ(line[9], ship > current ? "O" : "F");
      open += line[9] == "O" ? 1 : 0;
      EXPECT_TRUE(instructions.contains(line[13])) << line[13];
      EXPECT_TRUE(modes.contains(line[14])) << line[14];
      expect_length_in(line[15], 10, 43);
    }
    EXPECT_EQ(cents(order[3]), total);
    EXPECT_LE(std::abs(exact_total - static_cast<double>(total)), 0.5 * static_cast<double>(lines.size()) + 1e-6);
    const std::string status = open == lines.size() ? "O" : open == 0 ? "F" : "P";
    EXPECT_EQ(order[2], status);
    ++statuses[status[0]];
  }
  // Two thirds of the customers can order; 15,000 orders reach most of the 1,000 of them.
  EXPECT_GT(ordering_customers.size(), 900u);
  EXPECT_GT(statuses['F'], 0u);
  EXPECT_GT(statuses['O'], 0u);
  EXPECT_GT(statuses['P'], 0u);

  // The join layer's loader reads the generated files: o_orderkey with o_custkey.
  const std::vector<join::tuple> relation = join::load_join_relation((out / "orders.tbl").string(), 0, 1);
  ASSERT_EQ(relation.size(), orders.size());
  EXPECT_EQ(relation[7], (join::tuple{32, integer(orders[7][1])}));
}

TEST_F(Tpch, SameSeedSameBytesWhicheverTablesAreWritten) {
  const std::filesystem::path first = generate_into("first", 0.01, 5);
  const std::filesystem::path again = generate_into("again", 0.01, 5);
  const std::filesystem::path orders_only = generate_into("orders-only", 0.01, 5, {table_id::orders});
  const std::filesystem::path lineitem_only = generate_into("lineitem-only", 0.01, 5, {table_id::lineitem, table_id::nation});
  const std::filesystem::path other_seed = generate_into("other-seed", 0.01, 6);
  for (const std::string_view name : table_names) {
    const std::string file = std::string(name) + ".tbl";
    EXPECT_EQ(file_bytes(first / file), file_bytes(again / file)) << file;
    EXPECT_NE(file_bytes(first / file), file_bytes(other_seed / file)) << file;  // comments differ even in region, nation
  }
  EXPECT_EQ(file_bytes(first / "orders.tbl"), file_bytes(orders_only / "orders.tbl"));
  EXPECT_EQ(file_bytes(first / "lineitem.tbl"), file_bytes(lineitem_only / "lineitem.tbl"));
  EXPECT_EQ(file_bytes(first / "nation.tbl"), file_bytes(lineitem_only / "nation.tbl"));
  EXPECT_FALSE(std::filesystem::exists(orders_only / "lineitem.tbl"));
  EXPECT_FALSE(std::filesystem::exists(lineitem_only / "orders.tbl"));
}

TEST_F(Tpch, SupplierCommentsHoldTheComplaintsAndRecommendations) {
  // SF 1: 10,000 suppliers, 5 with "Customer...Complaints" and 5 with "Customer...Recommends".
  const std::filesystem::path out = generate_into("suppliers", 1, 3, {table_id::supplier});
  const table_rows supplier = read_table(out / "supplier.tbl");
  ASSERT_EQ(supplier.size(), 10'000u);
  std::size_t complaints = 0, recommends = 0;
  for (const auto& row : supplier) {
    const std::string& comment = row[6];
    expect_length_in(comment, 25, 100);
    const std::size_t customer = comment.find("Customer ");
    if (customer == std::string::npos) continue;
    complaints += comment.find("Complaints", customer + 9) != std::string::npos ? 1 : 0;
    recommends += comment.find("Recommends", customer + 9) != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(complaints, 5u);
  EXPECT_EQ(recommends, 5u);
}

TEST_F(Tpch, RefusesBadArguments) {
  EXPECT_THROW(generate({.scale_factor = 0, .seed = 0, .out = root_, .tables = {}}), std::invalid_argument);
  EXPECT_THROW(generate({.scale_factor = -1, .seed = 0, .out = root_, .tables = {}}), std::invalid_argument);
  EXPECT_THROW(generate({.scale_factor = 0.01, .seed = 0, .out = root_ / "missing", .tables = {}}), std::invalid_argument);
  std::ofstream(root_ / "a-file") << "x";
  EXPECT_THROW(generate({.scale_factor = 0.01, .seed = 0, .out = root_ / "a-file", .tables = {}}), std::invalid_argument);
}

}  // namespace
}  // namespace braid::bench::tpch
