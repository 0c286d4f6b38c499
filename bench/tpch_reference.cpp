#include "tpch_reference.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <initializer_list>
#include <limits>
#include <map>
#include <span>
#include <stdexcept>
#include <utility>

#include "braid/join/tbl_reader.hpp"

namespace braid::bench::tpch {
namespace {

using braid::query::cell;
using braid::query::int128;
using braid::query::result;
using braid::query::tpch_parameters;
using row_cells = std::vector<cell>;

// ---- reading -----------------------------------------------------------------------------------

// One row's fields, with the file and line for error messages.
struct field_reader {
  const std::string& path;
  std::uint64_t line;
  std::span<const std::string_view> fields;

  [[noreturn]] void fail(const char* column, const char* what, std::size_t index) const {
    throw braid::join::tbl_error(path, line,
                                 std::string("column ") + column + ": " + what + " \"" + std::string(fields[index]) + "\"");
  }
  [[nodiscard]] std::int64_t integer(std::size_t index, const char* column) const {
    const auto value = parse_reference_integer(fields[index]);
    if (!value) fail(column, "not an integer", index);
    return *value;
  }
  [[nodiscard]] std::int64_t hundredths(std::size_t index, const char* column) const {
    const auto value = parse_reference_hundredths(fields[index]);
    if (!value) fail(column, "not a decimal with at most 2 fraction digits", index);
    return *value;
  }
  [[nodiscard]] std::int64_t date(std::size_t index, const char* column) const {
    const auto value = parse_reference_date(fields[index]);
    if (!value) fail(column, "not a date YYYY-MM-DD", index);
    return *value;
  }
  [[nodiscard]] std::string text(std::size_t index) const { return std::string(fields[index]); }
};

// Calls on_row(field_reader) for every row of <directory>/<table>.tbl, after checking the
// row has exactly field_count fields.
template <class OnRow>
void read_table(const std::filesystem::path& directory, table_id table, std::size_t field_count, OnRow on_row) {
  const std::string path = (directory / (std::string(name_of(table)) + ".tbl")).string();
  braid::join::read_tbl_file(path, [&](std::span<const std::string_view> fields, std::uint64_t line) {
    if (fields.size() != field_count) {
      throw braid::join::tbl_error(path, line, "expected " + std::to_string(field_count) + " fields, found " +
                                                   std::to_string(fields.size()));
    }
    on_row(field_reader{path, line, fields});
  });
}

template <class Row>
void insert_unique(std::unordered_map<std::int64_t, Row>& rows, std::int64_t key, Row row, const field_reader& at,
                   const char* column) {
  if (!rows.emplace(key, std::move(row)).second) {
    throw braid::join::tbl_error(at.path, at.line, std::string("column ") + column + ": repeated key " + std::to_string(key));
  }
}

// Field positions follow the specification's column order (clause 1.4).
void load_lineitems(const std::filesystem::path& directory, reference_data& data) {
  read_table(directory, table_id::lineitem, 16, [&](const field_reader& row) {
    data.lineitems.push_back(reference_lineitem{
        .orderkey = row.integer(0, "l_orderkey"),
        .partkey = row.integer(1, "l_partkey"),
        .suppkey = row.integer(2, "l_suppkey"),
        .quantity = row.hundredths(4, "l_quantity"),
        .extendedprice = row.hundredths(5, "l_extendedprice"),
        .discount = row.hundredths(6, "l_discount"),
        .tax = row.hundredths(7, "l_tax"),
        .returnflag = row.text(8),
        .linestatus = row.text(9),
        .shipdate = row.date(10, "l_shipdate"),
        .commitdate = row.date(11, "l_commitdate"),
        .receiptdate = row.date(12, "l_receiptdate"),
        .shipinstruct = row.text(13),
        .shipmode = row.text(14),
    });
  });
}

void load_orders(const std::filesystem::path& directory, reference_data& data) {
  read_table(directory, table_id::orders, 9, [&](const field_reader& row) {
    insert_unique(data.orders, row.integer(0, "o_orderkey"),
                  reference_order{.custkey = row.integer(1, "o_custkey"),
                                  .orderdate = row.date(4, "o_orderdate"),
                                  .orderpriority = row.text(5),
                                  .shippriority = row.integer(7, "o_shippriority")},
                  row, "o_orderkey");
  });
}

void load_customers(const std::filesystem::path& directory, reference_data& data) {
  read_table(directory, table_id::customer, 8, [&](const field_reader& row) {
    insert_unique(data.customers, row.integer(0, "c_custkey"),
                  reference_customer{.name = row.text(1),
                                     .address = row.text(2),
                                     .nationkey = row.integer(3, "c_nationkey"),
                                     .phone = row.text(4),
                                     .acctbal = row.hundredths(5, "c_acctbal"),
                                     .mktsegment = row.text(6),
                                     .comment = row.text(7)},
                  row, "c_custkey");
  });
}

void load_parts(const std::filesystem::path& directory, reference_data& data) {
  read_table(directory, table_id::part, 9, [&](const field_reader& row) {
    insert_unique(data.parts, row.integer(0, "p_partkey"),
                  reference_part{.brand = row.text(3),
                                 .type = row.text(4),
                                 .size = row.integer(5, "p_size"),
                                 .container = row.text(6)},
                  row, "p_partkey");
  });
}

void load_suppliers(const std::filesystem::path& directory, reference_data& data) {
  read_table(directory, table_id::supplier, 7, [&](const field_reader& row) {
    insert_unique(data.suppliers, row.integer(0, "s_suppkey"),
                  reference_supplier{.nationkey = row.integer(3, "s_nationkey")}, row, "s_suppkey");
  });
}

void load_nations(const std::filesystem::path& directory, reference_data& data) {
  read_table(directory, table_id::nation, 4, [&](const field_reader& row) {
    insert_unique(data.nations, row.integer(0, "n_nationkey"),
                  reference_nation{.name = row.text(1), .regionkey = row.integer(2, "n_regionkey")}, row, "n_nationkey");
  });
}

void load_regions(const std::filesystem::path& directory, reference_data& data) {
  read_table(directory, table_id::region, 3, [&](const field_reader& row) {
    insert_unique(data.regions, row.integer(0, "r_regionkey"), reference_region{.name = row.text(1)}, row,
                  "r_regionkey");
  });
}

void load_table(const std::filesystem::path& directory, table_id table, reference_data& data) {
  switch (table) {
    case table_id::lineitem: return load_lineitems(directory, data);
    case table_id::orders: return load_orders(directory, data);
    case table_id::customer: return load_customers(directory, data);
    case table_id::part: return load_parts(directory, data);
    case table_id::supplier: return load_suppliers(directory, data);
    case table_id::nation: return load_nations(directory, data);
    case table_id::region: return load_regions(directory, data);
    case table_id::partsupp: break;
  }
  throw std::invalid_argument("tpch reference: no query reads partsupp, so it is not loaded");
}

// ---- dates -------------------------------------------------------------------------------------

std::int64_t days_of(std::chrono::sys_days day) { return day.time_since_epoch().count(); }

// The same day of the month `months` later, clamped to that month's last day.
std::int64_t plus_months(std::chrono::sys_days day, int months) {
  const std::chrono::year_month_day start{day};
  const std::chrono::year_month target = std::chrono::year_month{start.year(), start.month()} + std::chrono::months{months};
  const std::chrono::year_month_day_last last{target.year(), std::chrono::month_day_last{target.month()}};
  const std::chrono::day clamped = std::min(start.day(), last.day());
  return days_of(std::chrono::sys_days{std::chrono::year_month_day{target.year(), target.month(), clamped}});
}

// ---- ordering ----------------------------------------------------------------------------------

// Cells of one column: numbers by value, text by bytes.
int compare_cells(const cell& a, const cell& b) {
  if (a.kind == braid::query::value_kind::text) return a.string < b.string ? -1 : (b.string < a.string ? 1 : 0);
  return a.number < b.number ? -1 : (b.number < a.number ? 1 : 0);
}

struct sort_key {
  std::size_t column;
  bool descending;
};

// Sorts by `keys`, then by every column not among them, left to right, ascending (the total
// order of tpch_parameters.hpp), and keeps the first `limit` rows.
void sort_and_limit(std::vector<row_cells>& rows, std::vector<sort_key> keys, std::size_t limit) {
  const std::size_t width = rows.empty() ? 0 : rows.front().size();
  for (std::size_t column = 0; column < width; ++column) {
    const bool listed = std::any_of(keys.begin(), keys.end(), [&](const sort_key& key) { return key.column == column; });
    if (!listed) keys.push_back({column, false});
  }
  std::sort(rows.begin(), rows.end(), [&](const row_cells& a, const row_cells& b) {
    for (const sort_key& key : keys) {
      const int order = compare_cells(a[key.column], b[key.column]);
      if (order != 0) return key.descending ? order > 0 : order < 0;
    }
    return false;
  });
  if (rows.size() > limit) rows.resize(limit);
}

constexpr std::size_t no_limit = std::numeric_limits<std::size_t>::max();

// ---- shared expressions ------------------------------------------------------------------------

// l_extendedprice * (1 - l_discount): scale 2 + 2.
int128 discounted_price(const reference_lineitem& line) {
  return int128{line.extendedprice} * (100 - line.discount);
}

template <class Row>
const Row* find_row(const std::unordered_map<std::int64_t, Row>& rows, std::int64_t key) {
  const auto found = rows.find(key);
  return found == rows.end() ? nullptr : &found->second;
}

cell revenue_cell(int128 scaled4) { return cell::decimal(scaled4, 4); }

// ---- the queries -------------------------------------------------------------------------------

// Q1 pricing summary report.
result query1(const reference_data& data, const tpch_parameters& parameters) {
  const std::int64_t cutoff = days_of(std::chrono::sys_days{std::chrono::year{1998} / 12 / 1}) - parameters.q1_delta_days;
  struct group {
    int128 quantity = 0, base_price = 0, disc_price = 0, charge = 0, discount = 0;
    std::int64_t count = 0;
  };
  std::map<std::pair<std::string, std::string>, group> groups;
  for (const reference_lineitem& line : data.lineitems) {
    if (line.shipdate > cutoff) continue;
    group& g = groups[{line.returnflag, line.linestatus}];
    g.quantity += line.quantity;
    g.base_price += line.extendedprice;
    g.disc_price += discounted_price(line);
    g.charge += discounted_price(line) * (100 + line.tax);
    g.discount += line.discount;
    ++g.count;
  }
  result out{.columns = {"l_returnflag", "l_linestatus", "sum_qty", "sum_base_price", "sum_disc_price", "sum_charge",
                         "avg_qty", "avg_price", "avg_disc", "count_order"},
             .rows = {}};
  for (const auto& [flags, g] : groups) {
    out.rows.push_back({cell::text(flags.first), cell::text(flags.second), cell::decimal(g.quantity, 2),
                        cell::decimal(g.base_price, 2), cell::decimal(g.disc_price, 4), cell::decimal(g.charge, 6),
                        braid::query::average(g.quantity, 2, g.count), braid::query::average(g.base_price, 2, g.count),
                        braid::query::average(g.discount, 2, g.count), cell::integer(g.count)});
  }
  sort_and_limit(out.rows, {{0, false}, {1, false}}, no_limit);
  return out;
}

// Q3 shipping priority, LIMIT 10.
result query3(const reference_data& data, const tpch_parameters& parameters) {
  const std::int64_t date = days_of(parameters.q3_date);
  std::map<std::int64_t, int128> revenue_by_order;  // o_orderdate, o_shippriority follow o_orderkey
  for (const reference_lineitem& line : data.lineitems) {
    if (!(line.shipdate > date)) continue;
    const reference_order* order = find_row(data.orders, line.orderkey);
    if (order == nullptr || !(order->orderdate < date)) continue;
    const reference_customer* customer = find_row(data.customers, order->custkey);
    if (customer == nullptr || customer->mktsegment != parameters.q3_segment) continue;
    revenue_by_order[line.orderkey] += discounted_price(line);
  }
  result out{.columns = {"l_orderkey", "revenue", "o_orderdate", "o_shippriority"}, .rows = {}};
  for (const auto& [orderkey, revenue] : revenue_by_order) {
    const reference_order& order = data.orders.at(orderkey);
    out.rows.push_back({cell::integer(orderkey), revenue_cell(revenue), cell::date(order.orderdate),
                        cell::integer(order.shippriority)});
  }
  sort_and_limit(out.rows, {{1, true}, {2, false}}, 10);
  return out;
}

// Q5 local supplier volume.
result query5(const reference_data& data, const tpch_parameters& parameters) {
  const std::int64_t from = days_of(parameters.q5_date);
  const std::int64_t to = plus_months(parameters.q5_date, 12);
  std::map<std::string, int128> revenue_by_nation;
  for (const reference_lineitem& line : data.lineitems) {
    const reference_order* order = find_row(data.orders, line.orderkey);
    if (order == nullptr || !(order->orderdate >= from && order->orderdate < to)) continue;
    const reference_customer* customer = find_row(data.customers, order->custkey);
    const reference_supplier* supplier = find_row(data.suppliers, line.suppkey);
    if (customer == nullptr || supplier == nullptr || customer->nationkey != supplier->nationkey) continue;
    const reference_nation* nation = find_row(data.nations, supplier->nationkey);
    if (nation == nullptr) continue;
    const reference_region* region = find_row(data.regions, nation->regionkey);
    if (region == nullptr || region->name != parameters.q5_region) continue;
    revenue_by_nation[nation->name] += discounted_price(line);
  }
  result out{.columns = {"n_name", "revenue"}, .rows = {}};
  for (const auto& [name, revenue] : revenue_by_nation) out.rows.push_back({cell::text(name), revenue_cell(revenue)});
  sort_and_limit(out.rows, {{1, true}}, no_limit);
  return out;
}

// Q6 forecasting revenue change.
result query6(const reference_data& data, const tpch_parameters& parameters) {
  const std::int64_t from = days_of(parameters.q6_date);
  const std::int64_t to = plus_months(parameters.q6_date, 12);
  const std::int64_t low_discount = parameters.q6_discount_hundredths - 1;
  const std::int64_t high_discount = parameters.q6_discount_hundredths + 1;
  const int128 quantity_bound = int128{parameters.q6_quantity} * 100;
  int128 revenue = 0;
  for (const reference_lineitem& line : data.lineitems) {
    if (!(line.shipdate >= from && line.shipdate < to)) continue;
    if (!(line.discount >= low_discount && line.discount <= high_discount)) continue;
    if (!(line.quantity < quantity_bound)) continue;
    revenue += int128{line.extendedprice} * line.discount;
  }
  return result{.columns = {"revenue"}, .rows = {{revenue_cell(revenue)}}};
}

// Q10 returned item reporting, LIMIT 20.
result query10(const reference_data& data, const tpch_parameters& parameters) {
  const std::int64_t from = days_of(parameters.q10_date);
  const std::int64_t to = plus_months(parameters.q10_date, 3);
  std::map<std::int64_t, int128> revenue_by_customer;  // the other grouped columns follow c_custkey
  for (const reference_lineitem& line : data.lineitems) {
    if (line.returnflag != "R") continue;
    const reference_order* order = find_row(data.orders, line.orderkey);
    if (order == nullptr || !(order->orderdate >= from && order->orderdate < to)) continue;
    const reference_customer* customer = find_row(data.customers, order->custkey);
    if (customer == nullptr || find_row(data.nations, customer->nationkey) == nullptr) continue;
    revenue_by_customer[order->custkey] += discounted_price(line);
  }
  result out{.columns = {"c_custkey", "c_name", "revenue", "c_acctbal", "n_name", "c_address", "c_phone", "c_comment"},
             .rows = {}};
  for (const auto& [custkey, revenue] : revenue_by_customer) {
    const reference_customer& customer = data.customers.at(custkey);
    const reference_nation& nation = data.nations.at(customer.nationkey);
    out.rows.push_back({cell::integer(custkey), cell::text(customer.name), revenue_cell(revenue),
                        cell::decimal(customer.acctbal, 2), cell::text(nation.name), cell::text(customer.address),
                        cell::text(customer.phone), cell::text(customer.comment)});
  }
  sort_and_limit(out.rows, {{2, true}}, 20);
  return out;
}

// Q12 shipping modes and order priority.
result query12(const reference_data& data, const tpch_parameters& parameters) {
  const std::int64_t from = days_of(parameters.q12_date);
  const std::int64_t to = plus_months(parameters.q12_date, 12);
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> counts_by_mode;  // high, low
  for (const reference_lineitem& line : data.lineitems) {
    if (line.shipmode != parameters.q12_shipmode1 && line.shipmode != parameters.q12_shipmode2) continue;
    if (!(line.commitdate < line.receiptdate) || !(line.shipdate < line.commitdate)) continue;
    if (!(line.receiptdate >= from && line.receiptdate < to)) continue;
    const reference_order* order = find_row(data.orders, line.orderkey);
    if (order == nullptr) continue;
    const bool high = order->orderpriority == "1-URGENT" || order->orderpriority == "2-HIGH";
    auto& counts = counts_by_mode[line.shipmode];
    ++(high ? counts.first : counts.second);
  }
  result out{.columns = {"l_shipmode", "high_line_count", "low_line_count"}, .rows = {}};
  for (const auto& [mode, counts] : counts_by_mode) {
    out.rows.push_back({cell::text(mode), cell::integer(counts.first), cell::integer(counts.second)});
  }
  sort_and_limit(out.rows, {{0, false}}, no_limit);
  return out;
}

// Q14 promotion effect.
result query14(const reference_data& data, const tpch_parameters& parameters) {
  const std::int64_t from = days_of(parameters.q14_date);
  const std::int64_t to = plus_months(parameters.q14_date, 1);
  int128 promo = 0;
  int128 total = 0;
  for (const reference_lineitem& line : data.lineitems) {
    if (!(line.shipdate >= from && line.shipdate < to)) continue;
    const reference_part* part = find_row(data.parts, line.partkey);
    if (part == nullptr) continue;
    if (part->type.starts_with("PROMO")) promo += discounted_price(line);
    total += discounted_price(line);
  }
  if (total == 0) throw std::domain_error("tpch reference: Q14's total revenue is 0, so promo_revenue divides by zero");
  return result{.columns = {"promo_revenue"}, .rows = {{braid::query::ratio(100 * promo, total, 2)}}};
}

bool is_one_of(const std::string& value, std::initializer_list<std::string_view> choices) {
  return std::find(choices.begin(), choices.end(), value) != choices.end();
}

// Q19 discounted revenue: three disjuncts of brand, containers, quantity range and size.
bool q19_disjunct(const reference_lineitem& line, const reference_part& part, const std::string& brand,
                  std::initializer_list<std::string_view> containers, std::int64_t quantity, std::int64_t max_size) {
  return part.brand == brand && is_one_of(part.container, containers) && line.quantity >= quantity * 100 &&
         line.quantity <= (quantity + 10) * 100 && part.size >= 1 && part.size <= max_size &&
         is_one_of(line.shipmode, {"AIR", "AIR REG"}) && line.shipinstruct == "DELIVER IN PERSON";
}

result query19(const reference_data& data, const tpch_parameters& parameters) {
  const auto& brands = parameters.q19_brands;
  const auto& quantities = parameters.q19_quantities;
  int128 revenue = 0;
  for (const reference_lineitem& line : data.lineitems) {
    const reference_part* part = find_row(data.parts, line.partkey);
    if (part == nullptr) continue;
    const bool small = q19_disjunct(line, *part, brands[0], {"SM CASE", "SM BOX", "SM PACK", "SM PKG"}, quantities[0], 5);
    const bool medium =
        q19_disjunct(line, *part, brands[1], {"MED BAG", "MED BOX", "MED PKG", "MED PACK"}, quantities[1], 10);
    const bool large = q19_disjunct(line, *part, brands[2], {"LG CASE", "LG BOX", "LG PACK", "LG PKG"}, quantities[2], 15);
    if (small || medium || large) revenue += discounted_price(line);
  }
  return result{.columns = {"revenue"}, .rows = {{revenue_cell(revenue)}}};
}

void require_tables(int number, const reference_data& data) {
  for (table_id table : reference_tables(number)) {
    if (!data.has(table)) {
      throw std::invalid_argument("tpch reference: Q" + std::to_string(number) + " reads " + std::string(name_of(table)) +
                                  ", which was not loaded");
    }
  }
}

}  // namespace

// ---- parsing -----------------------------------------------------------------------------------

std::optional<std::int64_t> parse_reference_integer(std::string_view text) {
  if (text.empty() || text == "-") return std::nullopt;
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<std::int64_t> parse_reference_hundredths(std::string_view text) {
  const bool negative = text.starts_with('-');
  if (negative) text.remove_prefix(1);
  const std::size_t point = text.find('.');
  const std::string_view whole = text.substr(0, point);
  const std::string_view fraction = point == std::string_view::npos ? std::string_view{} : text.substr(point + 1);
  const auto all_digits = [](std::string_view digits) {
    return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (whole.empty() || !all_digits(whole) || !all_digits(fraction) || fraction.size() > 2) return std::nullopt;
  if (point != std::string_view::npos && fraction.empty()) return std::nullopt;  // "23." is refused
  std::int64_t units = 0;
  const auto [end, error] = std::from_chars(whole.data(), whole.data() + whole.size(), units);
  if (error != std::errc{} || units > (std::numeric_limits<std::int64_t>::max() - 99) / 100) return std::nullopt;
  std::int64_t cents = 0;
  for (std::size_t i = 0; i < 2; ++i) cents = cents * 10 + (i < fraction.size() ? fraction[i] - '0' : 0);
  const std::int64_t magnitude = units * 100 + cents;
  return negative ? -magnitude : magnitude;
}

std::optional<std::int64_t> parse_reference_date(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
  const auto number = [&](std::size_t from, std::size_t length) -> std::optional<int> {
    int value = 0;
    for (std::size_t i = from; i < from + length; ++i) {
      if (text[i] < '0' || text[i] > '9') return std::nullopt;
      value = value * 10 + (text[i] - '0');
    }
    return value;
  };
  const auto year = number(0, 4), month = number(5, 2), day = number(8, 2);
  if (!year || !month || !day) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year{*year}, std::chrono::month{static_cast<unsigned>(*month)},
                                         std::chrono::day{static_cast<unsigned>(*day)}};
  if (!date.ok()) return std::nullopt;
  return days_of(std::chrono::sys_days{date});
}

// ---- entry points ------------------------------------------------------------------------------

std::vector<table_id> reference_tables(int number) {
  using enum table_id;
  switch (number) {
    case 1: return {lineitem};
    case 3: return {customer, orders, lineitem};
    case 5: return {customer, orders, lineitem, supplier, nation, region};
    case 6: return {lineitem};
    case 10: return {customer, orders, lineitem, nation};
    case 12: return {orders, lineitem};
    case 14: return {lineitem, part};
    case 19: return {lineitem, part};
    default: break;
  }
  throw std::invalid_argument("tpch reference: query " + std::to_string(number) +
                              " is not one of 1, 3, 5, 6, 10, 12, 14, 19");
}

reference_data load_reference_data(const std::filesystem::path& directory, const std::vector<table_id>& tables) {
  std::vector<table_id> wanted = tables;
  if (wanted.empty()) {
    for (table_id table : all_tables) {
      if (table != table_id::partsupp) wanted.push_back(table);
    }
  }
  reference_data data;
  for (table_id table : wanted) {
    if (table == table_id::partsupp) {
      throw std::invalid_argument("tpch reference: no query reads partsupp, so it is not loaded");
    }
    if (data.has(table)) {
      throw std::invalid_argument("tpch reference: table " + std::string(name_of(table)) + " asked for twice");
    }
    data.loaded[static_cast<std::size_t>(table)] = true;
  }
  for (table_id table : wanted) load_table(directory, table, data);
  return data;
}

result reference_query(int number, const reference_data& data, const tpch_parameters& parameters) {
  require_tables(number, data);  // also checks the number
  switch (number) {
    case 1: return query1(data, parameters);
    case 3: return query3(data, parameters);
    case 5: return query5(data, parameters);
    case 6: return query6(data, parameters);
    case 10: return query10(data, parameters);
    case 12: return query12(data, parameters);
    case 14: return query14(data, parameters);
    case 19: return query19(data, parameters);
    default: break;
  }
  throw std::logic_error("tpch reference: query " + std::to_string(number) + " has tables but no evaluation");
}

result reference_query(int number, const std::filesystem::path& tbl_directory, const tpch_parameters& parameters) {
  return reference_query(number, load_reference_data(tbl_directory, reference_tables(number)), parameters);
}

}  // namespace braid::bench::tpch
