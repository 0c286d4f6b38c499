// libFuzzer target: loading a TPC-H table from .tbl text into a query table
// (query::load_tpch_table_text). Byte 0 picks the table (bits 0-2), the tuples per fragment
// (bits 3-4: 1, 3, 64 or 1024) and whether a subset of the columns is kept (bit 5: the columns
// whose bit is set in byte 1, in file order, reversed when bit 6 is set). The rest is the text.
//
// Checked against a reference written the plain way (std::string lines and fields, values
// parsed digit by digit, dates checked by the calendar's month lengths): the text either loads
// into a table whose every cell is the reference's value, or is refused with a tbl_error
// "fuzz:LINE: ..." at the reference's first bad line, naming the reference's bad column.
// Any other exception, a crash or a sanitizer report is a bug.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "braid/join/tbl_reader.hpp"
#include "braid/query/tpch_schema.hpp"
#include "fuzz_input.hpp"

namespace {

using braid::fuzzing::fuzz_check;
using namespace braid::query;

// The rows of the text as the .tbl format defines them, up to the first line the reader refuses.
struct reference_rows {
  std::vector<std::vector<std::string>> rows;
  std::uint64_t error_line = 0;  // 0: every line is a row
};

reference_rows reference_split(const std::string& text) {
  constexpr std::size_t max_line_bytes = std::size_t{1} << 16;
  reference_rows result;
  std::size_t start = 0;
  std::uint64_t line_number = 0;
  while (start < text.size()) {
    std::size_t newline = text.find('\n', start);
    if (newline == std::string::npos) newline = text.size();
    std::string line = text.substr(start, newline - start);
    start = newline + 1;
    ++line_number;
    const bool bad = line.size() > max_line_bytes || line.find('\0') != std::string::npos ||
                     line == "\r" || line.empty();
    if (bad) {
      result.error_line = line_number;
      return result;
    }
    if (line.back() == '\r') line.pop_back();
    if (line.back() == '|') line.pop_back();
    std::vector<std::string> fields(1);
    for (const char c : line) {
      if (c == '|') {
        fields.emplace_back();
      } else {
        fields.back() += c;
      }
    }
    result.rows.push_back(fields);
  }
  return result;
}

constexpr int128 int64_low = -(int128{1} << 63);
constexpr int128 int64_high = (int128{1} << 63) - 1;

bool all_digits(const std::string& text) {
  if (text.empty()) return false;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// The digits' value, capped just above the int64 range (enough to tell that it does not fit).
int128 digits_value(const std::string& digits) {
  int128 value = 0;
  for (const char c : digits) {
    value = value * 10 + (c - '0');
    if (value > (int128{1} << 80)) return int128{1} << 80;
  }
  return value;
}

std::optional<std::int64_t> reference_integer(std::string field) {
  const bool negative = !field.empty() && field[0] == '-';
  if (negative) field.erase(0, 1);
  if (!all_digits(field)) return std::nullopt;
  const int128 value = negative ? -digits_value(field) : digits_value(field);
  if (value < int64_low || value > int64_high) return std::nullopt;
  return static_cast<std::int64_t>(value);
}

std::optional<std::int64_t> reference_decimal(std::string field) {  // scale 2
  const bool negative = !field.empty() && field[0] == '-';
  if (negative) field.erase(0, 1);
  const std::size_t point = field.find('.');
  const std::string whole = field.substr(0, point);
  std::string fraction = point == std::string::npos ? "00" : field.substr(point + 1);
  if (!all_digits(whole) || !all_digits(fraction) || fraction.size() > 2) return std::nullopt;
  while (fraction.size() < 2) fraction += '0';
  const int128 magnitude = digits_value(whole) * 100 + digits_value(fraction);
  const int128 value = negative ? -magnitude : magnitude;
  if (value < int64_low || value > int64_high) return std::nullopt;
  return static_cast<std::int64_t>(value);
}

std::optional<std::int64_t> reference_date(const std::string& field) {
  if (field.size() != 10 || field[4] != '-' || field[7] != '-') return std::nullopt;
  const std::string year = field.substr(0, 4), month = field.substr(5, 2), day = field.substr(8, 2);
  if (!all_digits(year) || !all_digits(month) || !all_digits(day)) return std::nullopt;
  const auto y = static_cast<std::int64_t>(digits_value(year));
  const auto m = static_cast<unsigned>(digits_value(month));
  const auto d = static_cast<unsigned>(digits_value(day));
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  constexpr unsigned lengths[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1 || d > lengths[m - 1] + (m == 2 && leap ? 1 : 0)) return std::nullopt;
  // Days since 1970-01-01 by counting: whole years, then months, then days.
  std::int64_t days = 0;
  for (std::int64_t year_at = 1970; year_at < y; ++year_at) {
    days += (year_at % 4 == 0 && year_at % 100 != 0) || year_at % 400 == 0 ? 366 : 365;
  }
  for (std::int64_t year_at = y; year_at < 1970; ++year_at) {
    days -= (year_at % 4 == 0 && year_at % 100 != 0) || year_at % 400 == 0 ? 366 : 365;
  }
  for (unsigned month_at = 1; month_at < m; ++month_at) days += lengths[month_at - 1] + (month_at == 2 && leap ? 1 : 0);
  return days + d - 1;
}

std::optional<cell> reference_cell(const std::string& field, column_type type) {
  switch (type.kind) {
    case value_kind::integer:
      if (const auto value = reference_integer(field)) return cell::integer(*value);
      return std::nullopt;
    case value_kind::decimal:
      if (const auto value = reference_decimal(field)) return cell::decimal(*value, 2);
      return std::nullopt;
    case value_kind::date:
      if (const auto value = reference_date(field)) return cell::date(*value);
      return std::nullopt;
    case value_kind::text:
      return cell::text(field);
  }
  return std::nullopt;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const auto which = static_cast<tpch_table>(data[0] & 7);
  constexpr std::size_t fragment_sizes[] = {1, 3, 64, 1024};
  const std::vector<column_spec>& all = tpch_columns(which);
  std::vector<std::size_t> kept;  // file columns kept, in the table's order
  for (std::size_t c = 0; c < all.size(); ++c) {
    if ((data[0] & 0x20) == 0 || ((data[1] >> (c % 8)) & 1) != 0) kept.push_back(c);
  }
  if ((data[0] & 0x40) != 0) std::reverse(kept.begin(), kept.end());
  tpch_load_options options{.tuples_per_fragment = fragment_sizes[(data[0] >> 3) & 3], .columns = {}, .read = {}};
  if (kept.empty()) kept.push_back(0);  // an empty list would mean all columns
  for (const std::size_t c : kept) options.columns.push_back(all[c].name);
  const std::string text(reinterpret_cast<const char*>(data + 2), size - 2);

  // The reference: every row's kept cells, or the first bad line and the column it names.
  const reference_rows split = reference_split(text);
  std::vector<std::vector<cell>> expected;
  std::uint64_t error_line = split.error_line;
  std::string error_column;  // empty: a reader's refusal
  for (std::size_t row = 0; row < split.rows.size() && error_column.empty(); ++row) {
    const std::vector<std::string>& fields = split.rows[row];
    if (fields.size() != all.size()) {
      error_line = row + 1;
      error_column = fields.size() < all.size() ? "column " + all[fields.size()].name + ": missing"
                                                : "after column " + all.back().name + ": extra field";
      break;
    }
    std::vector<cell> cells;
    for (const std::size_t c : kept) {
      std::optional<cell> value = reference_cell(fields[c], all[c].type);
      if (!value) {
        error_line = row + 1;
        error_column = "column " + all[c].name + ": ";
        break;
      }
      cells.push_back(std::move(*value));
    }
    if (error_column.empty()) expected.push_back(std::move(cells));
  }

  try {
    const table loaded = load_tpch_table_text(text, "fuzz", which, options);
    fuzz_check(error_line == 0, "a text the reference refuses was loaded");
    fuzz_check(loaded.rows() == expected.size(), "not one row per line");
    fuzz_check(loaded.columns().size() == kept.size(), "not the kept columns");
    for (std::size_t k = 0; k < kept.size(); ++k) {
      fuzz_check(loaded.columns()[k].name == all[kept[k]].name, "kept columns in another order");
    }
    for (std::uint64_t row = 0; row < expected.size(); ++row) {
      for (std::size_t k = 0; k < kept.size(); ++k) {
        fuzz_check(loaded.at(row, k) == expected[row][k], "a value differs from the reference parse");
      }
    }
    for (std::size_t k = 0; k < kept.size(); ++k) {
      if (all[kept[k]].type.kind != value_kind::text) continue;
      const std::vector<std::string>& values = loaded.dictionary(k).values();
      for (std::size_t i = 1; i < values.size(); ++i) fuzz_check(values[i - 1] < values[i], "a dictionary out of order");
    }
  } catch (const braid::join::tbl_error& e) {
    const std::string message = e.what();
    fuzz_check(error_line != 0, "a text the reference loads was refused");
    fuzz_check(e.line() == error_line, "refused at another line than the reference");
    fuzz_check(message.starts_with("fuzz:" + std::to_string(error_line) + ": "), "an error not naming FILE:LINE");
    fuzz_check(error_column.empty() || message.find(error_column) != std::string::npos,
               "refused for another column than the reference");
  }
  return 0;
}
