// result: the rows a query returns, in a form every engine and the row-at-a-time reference
// produce alike, so a test can compare them cell for cell.
//
//   braid::query::result r{.columns = {"l_returnflag", "sum_qty"}, .rows = {}};
//   r.rows.push_back({braid::query::cell::text("A"), braid::query::cell::decimal(3773410700, 2)});
//   std::puts(r.to_string().c_str());    // "l_returnflag|sum_qty\nA|37734107.00\n"
//
// Values are exact: integers and decimals are 128-bit integers with a scale (a decimal with
// scale s holds value x 10^s), dates are days since 1970-01-01, text is text. Two cells are
// equal when kind, scale and value are equal (a decimal 1.50 with scale 2 is not 1.5 with
// scale 1: an engine and its reference must agree on scales too).
//
// The rules every producer follows for derived values (so that results agree exactly):
//  - products of decimals add their scales (price scale 2 x (1 - discount) scale 2: scale 4);
//  - an average is average(sum, scale, count): the quotient rounded half away from zero to
//    scale + 2 digits (TPC-H's avg columns), count > 0;
//  - a ratio (Q14's promo_revenue) is ratio(numerator, denominator, scale): numerator /
//    denominator as a decimal of `scale` digits, rounded half away from zero; both operands
//    must have the same scale.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace braid::query {

__extension__ using int128 = __int128;

enum class value_kind : std::uint8_t { integer, decimal, date, text };

struct cell {
  value_kind kind = value_kind::integer;
  std::uint8_t scale = 0;  // decimal digits after the point (decimal only)
  int128 number = 0;       // integer, decimal (x 10^scale), date (days since 1970-01-01)
  std::string string;      // text

  static cell integer(int128 value) { return cell{value_kind::integer, 0, value, {}}; }
  static cell decimal(int128 scaled, std::uint8_t scale) { return cell{value_kind::decimal, scale, scaled, {}}; }
  static cell date(std::int64_t days) { return cell{value_kind::date, 0, days, {}}; }
  static cell text(std::string value) { return cell{value_kind::text, 0, 0, std::move(value)}; }

  friend bool operator==(const cell&, const cell&) = default;
};

// "-12.05", "1998-09-02", "42", the text itself.
std::string to_string(const cell& value);

// Half away from zero. Throws std::invalid_argument when count <= 0 (an average of nothing)
// or the denominator is 0.
cell average(int128 sum, std::uint8_t scale, std::int64_t count);
cell ratio(int128 numerator, int128 denominator, std::uint8_t scale);

struct result {
  std::vector<std::string> columns;
  std::vector<std::vector<cell>> rows;

  // The header line (column names joined by '|'), then one line per row.
  [[nodiscard]] std::string to_string() const;
  friend bool operator==(const result&, const result&) = default;
};

}  // namespace braid::query
