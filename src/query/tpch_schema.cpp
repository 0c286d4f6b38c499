#include "braid/query/tpch_schema.hpp"

#include <chrono>
#include <limits>
#include <stdexcept>

#include "braid/column/table.hpp"

namespace braid::query {
namespace {

constexpr std::array<std::string_view, tpch_table_count> table_names = {"region",   "nation",   "supplier", "customer",
                                                                         "part",     "partsupp", "orders",   "lineitem"};

constexpr column_type integer_type{value_kind::integer, 0};
constexpr column_type money_type{value_kind::decimal, 2};
constexpr column_type date_type{value_kind::date, 0};
constexpr column_type text_type{value_kind::text, 0};

std::vector<column_spec> region_columns() {
  return {{"r_regionkey", integer_type}, {"r_name", text_type}, {"r_comment", text_type}};
}
std::vector<column_spec> nation_columns() {
  return {{"n_nationkey", integer_type}, {"n_name", text_type}, {"n_regionkey", integer_type}, {"n_comment", text_type}};
}
std::vector<column_spec> supplier_columns() {
  return {{"s_suppkey", integer_type}, {"s_name", text_type},    {"s_address", text_type}, {"s_nationkey", integer_type},
          {"s_phone", text_type},      {"s_acctbal", money_type}, {"s_comment", text_type}};
}
std::vector<column_spec> customer_columns() {
  return {{"c_custkey", integer_type}, {"c_name", text_type},      {"c_address", text_type},
          {"c_nationkey", integer_type}, {"c_phone", text_type},   {"c_acctbal", money_type},
          {"c_mktsegment", text_type},  {"c_comment", text_type}};
}
std::vector<column_spec> part_columns() {
  return {{"p_partkey", integer_type}, {"p_name", text_type},      {"p_mfgr", text_type},
          {"p_brand", text_type},      {"p_type", text_type},      {"p_size", integer_type},
          {"p_container", text_type},  {"p_retailprice", money_type}, {"p_comment", text_type}};
}
std::vector<column_spec> partsupp_columns() {
  return {{"ps_partkey", integer_type},
          {"ps_suppkey", integer_type},
          {"ps_availqty", integer_type},
          {"ps_supplycost", money_type},
          {"ps_comment", text_type}};
}
std::vector<column_spec> orders_columns() {
  return {{"o_orderkey", integer_type},   {"o_custkey", integer_type}, {"o_orderstatus", text_type},
          {"o_totalprice", money_type},   {"o_orderdate", date_type},  {"o_orderpriority", text_type},
          {"o_clerk", text_type},         {"o_shippriority", integer_type}, {"o_comment", text_type}};
}
std::vector<column_spec> lineitem_columns() {
  return {{"l_orderkey", integer_type},  {"l_partkey", integer_type},     {"l_suppkey", integer_type},
          {"l_linenumber", integer_type}, {"l_quantity", money_type},     {"l_extendedprice", money_type},
          {"l_discount", money_type},     {"l_tax", money_type},          {"l_returnflag", text_type},
          {"l_linestatus", text_type},    {"l_shipdate", date_type},      {"l_commitdate", date_type},
          {"l_receiptdate", date_type},   {"l_shipinstruct", text_type},  {"l_shipmode", text_type},
          {"l_comment", text_type}};
}

std::size_t index_of(tpch_table which) {
  const auto index = static_cast<std::size_t>(which);
  if (index >= tpch_table_count) throw std::invalid_argument("tpch: unknown table " + std::to_string(index));
  return index;
}


bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// A magnitude with its sign as std::int64_t; false when it does not fit.
bool signed_value(bool negative, std::uint64_t magnitude, std::int64_t& out) noexcept {
  constexpr auto largest = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (magnitude > largest + (negative ? 1 : 0)) return false;
  out = negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
  return true;
}

// Each parser returns nullptr and sets `out`, or returns what is wrong with the field.
const char* parse_integer(std::string_view field, std::int64_t& out) {
  if (field.empty()) return "empty field";
  const bool negative = field.front() == '-';
  if (negative) field.remove_prefix(1);
  if (field.empty()) return "not an integer";
  std::uint64_t magnitude = 0;
  for (const char c : field) {
    if (!is_digit(c)) return "not an integer";
    if (__builtin_mul_overflow(magnitude, std::uint64_t{10}, &magnitude) ||
        __builtin_add_overflow(magnitude, static_cast<std::uint64_t>(c - '0'), &magnitude)) {
      return "integer outside int64";
    }
  }
  return signed_value(negative, magnitude, out) ? nullptr : "integer outside int64";
}

const char* parse_decimal(std::string_view field, unsigned scale, std::int64_t& out) {
  if (field.empty()) return "empty field";
  const bool negative = field.front() == '-';
  if (negative) field.remove_prefix(1);
  const std::size_t point = field.find('.');
  const std::string_view whole = field.substr(0, point);
  const std::string_view fraction = point == std::string_view::npos ? std::string_view{} : field.substr(point + 1);
  if (whole.empty() || (point != std::string_view::npos && fraction.empty())) return "not a decimal";
  std::uint64_t magnitude = 0;
  const auto add_digit = [&magnitude](char c) {
    return !__builtin_mul_overflow(magnitude, std::uint64_t{10}, &magnitude) &&
           !__builtin_add_overflow(magnitude, static_cast<std::uint64_t>(c - '0'), &magnitude);
  };
  for (const char c : whole) {
    if (!is_digit(c)) return "not a decimal";
    if (!add_digit(c)) return "decimal outside int64";
  }
  for (const char c : fraction) {
    if (!is_digit(c)) return "not a decimal";
  }
  if (fraction.size() > scale) return scale == 2 ? "more than 2 fraction digits" : "more fraction digits than the scale";
  for (std::size_t digit = 0; digit < scale; ++digit) {
    if (!add_digit(digit < fraction.size() ? fraction[digit] : '0')) return "decimal outside int64";
  }
  return signed_value(negative, magnitude, out) ? nullptr : "decimal outside int64";
}

const char* parse_date(std::string_view field, std::int64_t& out) {
  if (field.size() != 10 || field[4] != '-' || field[7] != '-') return "not a date YYYY-MM-DD";
  unsigned parts[3] = {0, 0, 0};
  const std::size_t starts[3] = {0, 5, 8};
  const std::size_t lengths[3] = {4, 2, 2};
  for (std::size_t part = 0; part < 3; ++part) {
    for (std::size_t i = starts[part]; i < starts[part] + lengths[part]; ++i) {
      if (!is_digit(field[i])) return "not a date YYYY-MM-DD";
      parts[part] = parts[part] * 10 + static_cast<unsigned>(field[i] - '0');
    }
  }
  const std::chrono::year_month_day day{std::chrono::year{static_cast<int>(parts[0])}, std::chrono::month{parts[1]},
                                        std::chrono::day{parts[2]}};
  if (!day.ok()) return "not a calendar day";
  out = std::chrono::sys_days{day}.time_since_epoch().count();
  return nullptr;
}

std::vector<column_spec> kept_specs(const std::vector<column_spec>& all, const std::vector<std::size_t>& kept) {
  std::vector<column_spec> specs;
  specs.reserve(kept.size());
  for (const std::size_t c : kept) specs.push_back(all[c]);
  return specs;
}

// The file columns to keep, in the order asked for (all when none are named).
std::vector<std::size_t> kept_columns(tpch_table which, const std::vector<std::string>& names) {
  const std::vector<column_spec>& all = tpch_columns(which);
  std::vector<std::size_t> kept;
  if (names.empty()) {
    for (std::size_t c = 0; c < all.size(); ++c) kept.push_back(c);
    return kept;
  }
  for (const std::string& name : names) {
    std::size_t c = 0;
    while (c < all.size() && all[c].name != name) ++c;
    if (c == all.size()) {
      throw std::invalid_argument("tpch: table " + std::string(name_of(which)) + " has no column " + name);
    }
    kept.push_back(c);
  }
  return kept;
}

// The row handler of both load forms: checks the field count, parses the kept fields into a
// reused row and appends it.
class tpch_loader {
 public:
  tpch_loader(const std::string& name, tpch_table which, const tpch_load_options& options)
      : name_(name),
        which_(which),
        all_(tpch_columns(which)),
        kept_(kept_columns(which, options.columns)),
        builder_(std::string(name_of(which)), kept_specs(all_, kept_)),
        row_(kept_.size()),
        tuples_per_fragment_(options.tuples_per_fragment) {
    if (tuples_per_fragment_ < table::min_tuples_per_fragment || tuples_per_fragment_ > table::max_tuples_per_fragment) {
      throw std::invalid_argument("tpch: tuples per fragment " + std::to_string(tuples_per_fragment_) + " outside [" +
                                  std::to_string(table::min_tuples_per_fragment) + ", " +
                                  std::to_string(table::max_tuples_per_fragment) + "]");
    }
  }

  void operator()(std::span<const std::string_view> fields, std::uint64_t line) {
    if (fields.size() != all_.size()) refuse_field_count(fields.size(), line);
    for (std::size_t k = 0; k < kept_.size(); ++k) {
      const std::size_t c = kept_[k];
      const std::string_view field = fields[c];
      raw_value& value = row_[k];
      const char* problem = nullptr;
      switch (all_[c].type.kind) {
        case value_kind::integer:
          problem = parse_integer(field, value.number);
          break;
        case value_kind::decimal:
          problem = parse_decimal(field, all_[c].type.scale, value.number);
          break;
        case value_kind::date:
          problem = parse_date(field, value.number);
          break;
        case value_kind::text:
          value.text = field;
          break;
      }
      if (problem != nullptr) {
        throw join::tbl_error(name_, line, "column " + all_[c].name + ": " + problem + " (" + join::quote_tbl_field(field) + ")");
      }
    }
    builder_.append_raw(row_);
  }

  table finish() && { return std::move(builder_).finish(tuples_per_fragment_); }

 private:
  [[noreturn]] void refuse_field_count(std::size_t count, std::uint64_t line) const {
    const std::string counts = std::to_string(count) + (count == 1 ? " field, " : " fields, ") +
                               std::string(name_of(which_)) + " has " + std::to_string(all_.size()) + " columns";
    if (count < all_.size()) throw join::tbl_error(name_, line, "column " + all_[count].name + ": missing (" + counts + ")");
    throw join::tbl_error(name_, line, "after column " + all_.back().name + ": extra field (" + counts + ")");
  }

  const std::string& name_;
  tpch_table which_;
  const std::vector<column_spec>& all_;
  std::vector<std::size_t> kept_;  // file column of each kept column
  table_builder builder_;
  std::vector<raw_value> row_;  // reused: text fields point into the reader's buffer during a row
  std::size_t tuples_per_fragment_;
};

}  // namespace

std::string_view name_of(tpch_table which) noexcept {
  const auto index = static_cast<std::size_t>(which);
  return index < tpch_table_count ? table_names[index] : std::string_view("unknown");
}

tpch_table parse_tpch_table(std::string_view name) {
  for (std::size_t i = 0; i < tpch_table_count; ++i) {
    if (table_names[i] == name) return static_cast<tpch_table>(i);
  }
  throw std::invalid_argument("tpch: unknown table '" + std::string(name) + "'");
}

const std::vector<column_spec>& tpch_columns(tpch_table which) {
  static const std::array<std::vector<column_spec>, tpch_table_count> columns = {
      region_columns(), nation_columns(),   supplier_columns(), customer_columns(),
      part_columns(),   partsupp_columns(), orders_columns(),   lineitem_columns()};
  return columns[index_of(which)];
}

table load_tpch_table(const std::filesystem::path& path, tpch_table which, const tpch_load_options& options) {
  const std::string name = path.string();
  tpch_loader loader(name, which, options);
  join::read_tbl_file(name, loader, options.read);
  return std::move(loader).finish();
}

table load_tpch_table_text(std::string_view text, const std::string& name, tpch_table which,
                           const tpch_load_options& options) {
  tpch_loader loader(name, which, options);
  join::read_tbl_text(text, name, loader, options.read);
  return std::move(loader).finish();
}

const table& tpch_database::get(tpch_table which) const {
  const std::optional<table>& held = tables_[index_of(which)];
  if (!held) throw std::invalid_argument("tpch database: table " + std::string(name_of(which)) + " was not loaded");
  return *held;
}

tpch_database load_tpch(const std::filesystem::path& directory, const tpch_database_options& options) {
  std::vector<std::pair<tpch_table, std::vector<std::string>>> wanted = options.tables;
  if (wanted.empty()) {
    for (std::size_t i = 0; i < tpch_table_count; ++i) wanted.emplace_back(static_cast<tpch_table>(i), std::vector<std::string>{});
  }
  std::array<bool, tpch_table_count> seen{};
  for (const auto& [which, columns] : wanted) {
    if (seen[index_of(which)]) throw std::invalid_argument("load_tpch: table " + std::string(name_of(which)) + " listed twice");
    seen[index_of(which)] = true;
  }
  tpch_database database;
  for (const auto& [which, columns] : wanted) {
    const tpch_load_options load{.tuples_per_fragment = options.tuples_per_fragment, .columns = columns, .read = {}};
    database.put(which, load_tpch_table(directory / (std::string(name_of(which)) + ".tbl"), which, load));
  }
  return database;
}

table from_column_table(const braid::table& source, std::string name, std::size_t tuples_per_fragment) {
  const column_schema& schema = source.schema();
  std::vector<column_spec> specs;
  for (const braid::column_spec& column : schema.columns) {
    switch (column.type) {
      case braid::column_type::int32:
      case braid::column_type::int64:
        specs.push_back({column.name, integer_type});
        break;
      case braid::column_type::decimal:
        specs.push_back({column.name, column_type{value_kind::decimal, static_cast<std::uint8_t>(column.scale)}});
        break;
      case braid::column_type::varchar:
        specs.push_back({column.name, text_type});
        break;
    }
  }
  table_builder builder(std::move(name), specs);
  std::vector<braid::value> values(specs.size());
  std::vector<raw_value> row(specs.size());
  for (std::size_t r = 0; r < source.size(); ++r) {
    for (std::size_t c = 0; c < specs.size(); ++c) {
      source.at(c).get_into(r, values[c]);
      if (specs[c].type.kind == value_kind::text) {
        row[c].text = values[c].text();
      } else {
        row[c].number = values[c].integer();
      }
    }
    builder.append_raw(row);
  }
  return std::move(builder).finish(tuples_per_fragment);
}

}  // namespace braid::query
