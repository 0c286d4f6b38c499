// tpch: a deterministic generator of the eight TPC-H tables as `.tbl` files, the format the
// TPC-H generator dbgen writes (fields ended by '|', one row a line), for the join and query
// layers' benchmarks and tests. `braid-bench tpch` is its command.
//
//   braid::bench::tpch::generate({.scale_factor = 0.01, .seed = 7, .out = "data", .tables = {}});
//
// Schema and cardinalities follow the TPC-H specification (clause 1.4 column order, clause
// 4.2.3 values): SF x 10,000 suppliers, 150,000 customers, 200,000 parts, 800,000 partsupp
// rows (4 suppliers a part), 1,500,000 orders with 1 to 7 lineitems each; 25 nations and 5
// regions with the spec's names and keys at every scale. Values:
//  - keys dense from 1, except O_ORDERKEY: of every 32 keys only the first 8 are used
//    (1..7, 32..39, 64..71, ... as dbgen numbers them: key = (i / 8) * 32 + i % 8, i = 1..N);
//  - O_CUSTKEY uniform over the customers whose key is not a multiple of 3 (a third of the
//    customers place no order); PS_SUPPKEY and L_SUPPKEY by the spec's formula
//    (partkey + i * (S / 4 + (partkey - 1) / S)) mod S + 1, i = 0..3 (for L_SUPPKEY uniform);
//    at scales below 0.01 that formula may give one part the same supplier twice, as the spec's
//    own formula does;
//  - dates: O_ORDERDATE uniform in [1992-01-01, 1998-12-31 - 151 days]; L_SHIPDATE = order date
//    + [1, 121], L_COMMITDATE = order date + [30, 90], L_RECEIPTDATE = ship date + [1, 30];
//    L_RETURNFLAG R or A (at random) when the receipt date <= 1995-06-17 (CURRENTDATE), else N;
//    L_LINESTATUS O when the ship date > CURRENTDATE, else F; O_ORDERSTATUS F when all its lines
//    are F, O when all are O, else P;
//  - money in cents: P_RETAILPRICE = 90000 + (partkey / 10) mod 20001 + 100 (partkey mod 1000)
//    cents; L_QUANTITY 1..50; L_EXTENDEDPRICE = quantity x retail price; L_DISCOUNT 0.00..0.10;
//    L_TAX 0.00..0.08; O_TOTALPRICE = the sum over its lines of the spec's
//    extendedprice x (1 + tax) x (1 - discount), each line's product rounded to the nearest cent
//    (line_charge_cents); account balances -999.99..9,999.99; PS_SUPPLYCOST 1.00..1,000.00;
//    PS_AVAILQTY 1..9,999;
//  - phone numbers "CC-LLL-LLL-LLLL" with CC = nation key + 10; addresses random strings of 10..40
//    characters of a 64-symbol alphabet; names "Supplier#000000001", "Customer#...", "Clerk#..."
//    (clerks 1..SF x 1,000); segments, priorities, ship modes and instructions, part names (five
//    distinct colours), types, containers, manufacturers and brands from the spec's lists;
//  - comments: random words of the spec's text grammar vocabulary (nouns, verbs, adjectives,
//    adverbs, prepositions, auxiliaries) cut to a length uniform in the spec's range for that
//    column, not the spec's sentence grammar (a known simplification); SF x 5 supplier comments
//    hold "Customer...Complaints" and SF x 5 others "Customer...Recommends".
//
// Scale: SF > 0, taken in thousandths and truncated (as dbgen does below 1): SF 0.01 gives 100
// suppliers, 1,500 customers, 2,000 parts, 15,000 orders; every count is at least 1; SF must be
// at least 0.001 and at most 100,000.
//
// Determinism: the same scale and seed give byte-identical files, whichever tables are asked
// for: every row draws from its own random stream (seed, table, row), and comments from
// streams of their own, so orders.tbl is the same whether or not lineitem.tbl is written (the
// orders' totals and statuses come from their lineitems, which are drawn either way).
//
// Complexity: O(rows) time; memory is one write buffer per file. Single-threaded.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace braid::bench::tpch {

enum class table_id : std::uint8_t { region, nation, supplier, customer, part, partsupp, orders, lineitem };

inline constexpr std::array<std::string_view, 8> table_names = {"region",   "nation",   "supplier", "customer",
                                                                "part",     "partsupp", "orders",   "lineitem"};
inline constexpr std::array<table_id, 8> all_tables = {table_id::region,   table_id::nation,   table_id::supplier,
                                                       table_id::customer, table_id::part,     table_id::partsupp,
                                                       table_id::orders,   table_id::lineitem};

std::string_view name_of(table_id table) noexcept;
// A comma-separated list of table names ("customer,orders"); std::invalid_argument for an
// unknown or repeated name or an empty list.
std::vector<table_id> parse_tables(std::string_view list);

// Rows of each scaled table at a scale (see above). Throws std::invalid_argument for a scale
// out of range (not finite, below 0.001 or above 100,000).
struct cardinalities {
  std::uint64_t suppliers;
  std::uint64_t customers;
  std::uint64_t parts;
  std::uint64_t partsupps;  // 4 x parts
  std::uint64_t orders;
  std::uint64_t clerks;
};
cardinalities cardinalities_at(double scale_factor);

// The spec's formulas, exposed for tests.
std::uint64_t order_key(std::uint64_t order_number);  // order_number 1..orders
std::int64_t retail_price_cents(std::uint64_t partkey);
std::uint64_t part_supplier(std::uint64_t partkey, std::uint64_t i, std::uint64_t suppliers);  // i = 0..3
// extended price x (1 - discount) x (1 + tax) in cents, rounded to the nearest (halves up).
std::int64_t line_charge_cents(std::int64_t extended_price_cents, std::int64_t discount_percent, std::int64_t tax_percent);

// The spec's dates as days since 1970-01-01.
inline constexpr std::chrono::sys_days start_date{std::chrono::year{1992} / 1 / 1};
inline constexpr std::chrono::sys_days current_date{std::chrono::year{1995} / 6 / 17};
inline constexpr std::chrono::sys_days end_date{std::chrono::year{1998} / 12 / 31};

struct generate_options {
  double scale_factor = 1;
  std::uint64_t seed = 0;
  std::filesystem::path out;     // an existing, writable directory
  std::vector<table_id> tables;  // empty: all eight
};

struct generated_table {
  table_id table;
  std::filesystem::path path;  // out / "<name>.tbl"
  std::uint64_t rows;
  std::uint64_t bytes;
  double seconds;
};

// Writes the tables asked for (in the order of all_tables). Throws std::invalid_argument for a
// bad scale or a directory it cannot write into, std::runtime_error when a write fails.
std::vector<generated_table> generate(const generate_options& options);

}  // namespace braid::bench::tpch
