#include "braid/query/result.hpp"

#include <chrono>
#include <cstdio>
#include <stdexcept>

namespace braid::query {
namespace {

__extension__ using uint128 = unsigned __int128;

std::string digits(int128 value) {
  // Magnitude as unsigned: -(2^127) has no positive int128.
  uint128 magnitude = value < 0 ? uint128{0} - static_cast<uint128>(value) : static_cast<uint128>(value);
  std::string out;
  do {
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  } while (magnitude != 0);
  return out;
}

int128 power_of_ten(unsigned exponent) {
  if (exponent > 36) throw std::invalid_argument("query result: a scale above 36 digits");
  int128 value = 1;
  for (unsigned i = 0; i < exponent; ++i) value *= 10;
  return value;
}

// numerator / denominator rounded half away from zero.
int128 divide_rounded(int128 numerator, int128 denominator) {
  const bool negative = (numerator < 0) != (denominator < 0);
  const int128 n = numerator < 0 ? -numerator : numerator;
  const int128 d = denominator < 0 ? -denominator : denominator;
  int128 quotient = n / d;
  if ((n % d) * 2 >= d) ++quotient;
  return negative ? -quotient : quotient;
}

}  // namespace

std::string to_string(const cell& value) {
  switch (value.kind) {
    case value_kind::integer:
      return (value.number < 0 ? "-" : "") + digits(value.number);
    case value_kind::decimal: {
      std::string magnitude = digits(value.number);
      if (value.scale == 0) return (value.number < 0 ? "-" : "") + magnitude;
      if (magnitude.size() <= value.scale) magnitude.insert(0, value.scale + 1 - magnitude.size(), '0');
      magnitude.insert(magnitude.size() - value.scale, 1, '.');
      return (value.number < 0 ? "-" : "") + magnitude;
    }
    case value_kind::date: {
      const std::chrono::year_month_day day{std::chrono::sys_days{std::chrono::days{static_cast<std::int64_t>(value.number)}}};
      char text[16];
      std::snprintf(text, sizeof text, "%04d-%02u-%02u", static_cast<int>(day.year()), static_cast<unsigned>(day.month()),
                    static_cast<unsigned>(day.day()));
      return text;
    }
    case value_kind::text:
      return value.string;
  }
  return {};
}

cell average(int128 sum, std::uint8_t scale, std::int64_t count) {
  if (count <= 0) throw std::invalid_argument("query result: an average over no rows");
  return cell::decimal(divide_rounded(sum * power_of_ten(2), count), static_cast<std::uint8_t>(scale + 2));
}

cell ratio(int128 numerator, int128 denominator, std::uint8_t scale) {
  if (denominator == 0) throw std::invalid_argument("query result: a ratio with denominator 0");
  return cell::decimal(divide_rounded(numerator * power_of_ten(scale), denominator), scale);
}

std::string result::to_string() const {
  std::string out;
  for (std::size_t c = 0; c < columns.size(); ++c) out += (c == 0 ? "" : "|") + columns[c];
  out += '\n';
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) out += (c == 0 ? "" : "|") + query::to_string(row[c]);
    out += '\n';
  }
  return out;
}

}  // namespace braid::query
