// tpch_schema: the eight TPC-H tables' columns (clause 1.4) as query tables, and their loading
// from `.tbl` files (the join layer's reader) or from braid's column store.
//
//   braid::query::tpch_database db = braid::query::load_tpch("data", {.tuples_per_fragment = 1024});
//   const braid::query::table& lineitem = db.get(braid::query::tpch_table::lineitem);
//
// Types: identifiers and integers (keys, sizes, availqty, nationkey, shippriority) integer;
// money, quantities, discounts and taxes decimal with scale 2 (a field "23" or "23.5" or
// "23.50" loads as 2350); dates date (YYYY-MM-DD); every CHAR / VARCHAR column text.
// Decimal fields: optional '-', digits, optional '.' and at most `scale` fraction digits (at
// least one digit on each side of a '.'), within std::int64_t once scaled.
//
// Integer fields: optional '-', digits, within std::int64_t. Dates: exactly YYYY-MM-DD, a
// real calendar day (std::chrono), loaded as days since 1970-01-01. Text: the field as it is.
// Only the kept columns' fields are parsed; every row must still have exactly the table's
// number of fields.
//
// Errors: a missing file, a malformed field or a row with the wrong number of fields throws
// join::tbl_error "FILE:LINE: column NAME: what" (a row with too many fields names the column
// after which the extra field follows); nothing is returned half-loaded.
//
// Complexity: O(file size) time; memory as table_builder (the kept columns only) plus the
// reader's block.
#pragma once

#include <array>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "braid/join/tbl_reader.hpp"
#include "braid/query/table.hpp"

namespace braid {
class table;  // column/table.hpp
}

namespace braid::query {

enum class tpch_table : std::uint8_t { region, nation, supplier, customer, part, partsupp, orders, lineitem };
inline constexpr std::size_t tpch_table_count = 8;

std::string_view name_of(tpch_table which) noexcept;
// "lineitem" -> lineitem; std::invalid_argument for an unknown name.
tpch_table parse_tpch_table(std::string_view name);
// The table's columns in file order, with their types.
const std::vector<column_spec>& tpch_columns(tpch_table which);

struct tpch_load_options {
  std::size_t tuples_per_fragment = 1024;
  // Columns to keep, by name, in this order; empty: all. A name the table lacks is
  // std::invalid_argument. (Dropping unused text columns saves most of the load's memory.)
  std::vector<std::string> columns{};
  join::tbl_read_options read{};
};

// `path` is the table's .tbl file.
table load_tpch_table(const std::filesystem::path& path, tpch_table which, const tpch_load_options& options = {});
// The same over text in memory; `name` stands for the file in error messages (tests, fuzzing).
table load_tpch_table_text(std::string_view text, const std::string& name, tpch_table which,
                           const tpch_load_options& options = {});

// The tables of a directory holding <name>.tbl files.
class tpch_database {
 public:
  [[nodiscard]] bool has(tpch_table which) const noexcept { return tables_[static_cast<std::size_t>(which)].has_value(); }
  // std::invalid_argument naming the table when it was not loaded.
  [[nodiscard]] const table& get(tpch_table which) const;
  void put(tpch_table which, table loaded) { tables_[static_cast<std::size_t>(which)] = std::move(loaded); }

 private:
  std::array<std::optional<table>, tpch_table_count> tables_;
};

struct tpch_database_options {
  std::size_t tuples_per_fragment = 1024;
  // Tables to load with the columns to keep of each (empty list: all columns); empty: all
  // tables, all columns. A table listed twice is std::invalid_argument.
  std::vector<std::pair<tpch_table, std::vector<std::string>>> tables{};
};
tpch_database load_tpch(const std::filesystem::path& directory, const tpch_database_options& options = {});

// A column-store table (column/table.hpp, merged or not) as a query table: INTEGER columns
// integer, DECIMAL(p,s) decimal with scale s, VARCHAR text. Values are read with the
// columns' plain get (get_into). std::invalid_argument when tuples_per_fragment is out of range.
table from_column_table(const braid::table& source, std::string name, std::size_t tuples_per_fragment);

}  // namespace braid::query
