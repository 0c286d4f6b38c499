// tpch_reference: a plain, row-at-a-time evaluation of TPC-H Q1, Q3, Q5, Q6, Q10, Q12, Q14 and
// Q19 over `.tbl` files: the oracle the task-based query engine is tested against.
//
//   braid::query::result r = braid::bench::tpch::reference_query(6, "data");   // Q6, spec parameters
//   auto data = braid::bench::tpch::load_reference_data("data");                 // every table once
//   for (int q : braid::query::tpch_query_numbers) check(q, braid::bench::tpch::reference_query(q, data));
//
// It shares nothing with the engine but the result and parameter types: its own structs per
// table (only the columns the queries read), its own field parsing, hash-map lookups of the
// dimension rows by key and one loop over the lineitems per query, written as the
// specification's SQL reads (clause 2.4.x.1), predicate by predicate.
//
// Values: money, quantities, discounts and taxes are exact hundredths parsed from the text
// (optional '-', digits, optional '.' with at most 2 fraction digits: "23" and "23.0" are 2300,
// "0.04" is 4); dates days since 1970-01-01 (YYYY-MM-DD, a real calendar day); keys and
// integers signed 64-bit decimals. Results follow braid/query/result.hpp and
// braid/query/tpch_parameters.hpp: products add scales (revenue scale 4, Q1's sum_charge 6),
// averages average(sum, 2, count), Q14 ratio(100 x promo, total, 2); ORDER BY completed by the
// remaining output columns ascending before a LIMIT cuts; Q1, Q3, Q5, Q10 and Q12 return no
// rows when nothing qualifies, Q6 and Q19 one row with revenue 0.0000, Q14 std::domain_error.
// Interval arithmetic: "date + n months / years" lands on the same day of the month, clamped
// to the month's last day when that day does not exist (1996-02-29 + 1 year = 1997-02-28).
//
// Invariants of loaded data: every row had exactly its table's field count and every used
// field parsed; primary keys (o_orderkey, c_custkey, p_partkey, s_suppkey, n_nationkey,
// r_regionkey) are unique (a repeated key is refused, so a join by key finds at most one row).
// A lineitem whose order, part, supplier or customer is missing simply joins with nothing.
//
// Complexity: loading O(rows) time and memory (text columns copied); each query O(lineitems)
// expected time plus the sort of its groups. Single-threaded. Limits: partsupp is never read
// (none of the eight queries uses it); sums are 128-bit, far beyond any scale's totals.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "braid/query/result.hpp"
#include "braid/query/tpch_parameters.hpp"
#include "tpch.hpp"

namespace braid::bench::tpch {

// The columns the eight queries read. Money, quantities, discounts, taxes and balances are
// hundredths; dates days since 1970-01-01.
struct reference_lineitem {
  std::int64_t orderkey = 0;
  std::int64_t partkey = 0;
  std::int64_t suppkey = 0;
  std::int64_t quantity = 0;
  std::int64_t extendedprice = 0;
  std::int64_t discount = 0;
  std::int64_t tax = 0;
  std::string returnflag;
  std::string linestatus;
  std::int64_t shipdate = 0;
  std::int64_t commitdate = 0;
  std::int64_t receiptdate = 0;
  std::string shipinstruct;
  std::string shipmode;
};

struct reference_order {
  std::int64_t custkey = 0;
  std::int64_t orderdate = 0;
  std::string orderpriority;
  std::int64_t shippriority = 0;
};

struct reference_customer {
  std::string name;
  std::string address;
  std::int64_t nationkey = 0;
  std::string phone;
  std::int64_t acctbal = 0;
  std::string mktsegment;
  std::string comment;
};

struct reference_part {
  std::string brand;
  std::string type;
  std::int64_t size = 0;
  std::string container;
};

struct reference_supplier {
  std::int64_t nationkey = 0;
};

struct reference_nation {
  std::string name;
  std::int64_t regionkey = 0;
};

struct reference_region {
  std::string name;
};

// The tables as loaded; dimension rows keyed by their primary key.
struct reference_data {
  std::vector<reference_lineitem> lineitems;
  std::unordered_map<std::int64_t, reference_order> orders;
  std::unordered_map<std::int64_t, reference_customer> customers;
  std::unordered_map<std::int64_t, reference_part> parts;
  std::unordered_map<std::int64_t, reference_supplier> suppliers;
  std::unordered_map<std::int64_t, reference_nation> nations;
  std::unordered_map<std::int64_t, reference_region> regions;
  std::array<bool, all_tables.size()> loaded{};  // by table_id

  [[nodiscard]] bool has(table_id table) const noexcept { return loaded[static_cast<std::size_t>(table)]; }
};

// The tables query `number` reads; std::invalid_argument for a number not in
// braid::query::tpch_query_numbers.
std::vector<table_id> reference_tables(int number);

// Loads <directory>/<name>.tbl for each table asked for (empty: the seven the eight queries
// read). std::invalid_argument for partsupp (never read) or a repeated table; join::tbl_error
// "FILE:LINE: ..." for a missing file, a wrong field count, a malformed field or a repeated key.
reference_data load_reference_data(const std::filesystem::path& directory, const std::vector<table_id>& tables = {});

// Query `number` over loaded data. std::invalid_argument for a number not in
// tpch_query_numbers or when a table the query reads was not loaded; std::domain_error for Q14
// when its total revenue is 0 (nothing qualifies).
braid::query::result reference_query(int number, const reference_data& data,
                                     const braid::query::tpch_parameters& parameters = {});

// Loads the tables query `number` reads from `tbl_directory`, then runs it. Errors as above;
// the query number is checked before anything is read.
braid::query::result reference_query(int number, const std::filesystem::path& tbl_directory,
                                     const braid::query::tpch_parameters& parameters = {});

// The field parsers, exposed for tests. std::nullopt when the text is not of the form above.
std::optional<std::int64_t> parse_reference_hundredths(std::string_view text);
std::optional<std::int64_t> parse_reference_date(std::string_view text);  // days since 1970-01-01
std::optional<std::int64_t> parse_reference_integer(std::string_view text);

}  // namespace braid::bench::tpch
