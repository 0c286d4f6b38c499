#include "braid/column/value_type.hpp"

#include <charconv>
#include <cstdlib>
#include <stdexcept>
#include <unordered_set>

#include "braid/column/column.hpp"

namespace braid {

namespace {

constexpr unsigned max_decimal_precision = 18;

std::int64_t power_of_ten(unsigned exponent) noexcept {
  std::int64_t result = 1;
  for (unsigned i = 0; i < exponent; ++i) result *= 10;
  return result;
}

[[noreturn]] void bad_value(const column_spec& spec, std::string_view text, const std::string& why) {
  throw std::invalid_argument("column '" + spec.name + "' (" + to_string(spec) + "): '" + std::string(text) + "' " + why);
}

bool all_digits(std::string_view text) noexcept {
  if (text.empty()) return false;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

void check_spec(const column_spec& spec) {
  if (spec.name.empty()) throw std::invalid_argument("column schema: a column without a name");
  if (spec.type == column_type::decimal &&
      (spec.precision < 1 || spec.precision > max_decimal_precision || spec.scale > spec.precision)) {
    throw std::invalid_argument("column '" + spec.name + "': decimal(" + std::to_string(spec.precision) + "," +
                                std::to_string(spec.scale) + ") needs 1 <= p <= 18 and 0 <= s <= p");
  }
}

column_spec parse_spec(std::string_view entry) {
  const auto colon = entry.find(':');
  if (colon == std::string_view::npos) {
    throw std::invalid_argument("column schema: '" + std::string(entry) + "' is not name:type");
  }
  column_spec spec;
  spec.name = std::string(entry.substr(0, colon));
  const std::string_view type = entry.substr(colon + 1);
  if (type == "int32") {
    spec.type = column_type::int32;
  } else if (type == "int64") {
    spec.type = column_type::int64;
  } else if (type.starts_with("decimal(") && type.ends_with(")")) {
    const std::string_view inside = type.substr(8, type.size() - 9);
    const auto comma = inside.find(',');
    const std::string_view p = inside.substr(0, comma);
    const std::string_view s = comma == std::string_view::npos ? std::string_view{} : inside.substr(comma + 1);
    if (!all_digits(p) || !all_digits(s) || p.size() > 2 || s.size() > 2) {
      throw std::invalid_argument("column schema: '" + std::string(type) + "' is not decimal(p,s)");
    }
    spec.type = column_type::decimal;
    spec.precision = static_cast<unsigned>(std::atoi(std::string(p).c_str()));
    spec.scale = static_cast<unsigned>(std::atoi(std::string(s).c_str()));
  } else {
    throw std::invalid_argument("column schema: unknown type '" + std::string(type) +
                                "' (int32, int64, decimal(p,s))");
  }
  check_spec(spec);
  return spec;
}

}  // namespace

std::string to_string(const column_spec& spec) {
  switch (spec.type) {
    case column_type::int32: return "int32";
    case column_type::int64: return "int64";
    case column_type::decimal:
      return "decimal(" + std::to_string(spec.precision) + "," + std::to_string(spec.scale) + ")";
  }
  return "?";
}

bool fits(const column_spec& spec, value v) noexcept {
  switch (spec.type) {
    case column_type::int32: return v >= INT32_MIN && v <= INT32_MAX;
    case column_type::int64: return true;
    case column_type::decimal: {
      const std::int64_t limit = power_of_ten(spec.precision);
      return v > -limit && v < limit;
    }
  }
  return false;
}

value parse_value(const column_spec& spec, std::string_view text) {
  std::string_view rest = text;
  const bool negative = !rest.empty() && rest.front() == '-';
  if (negative) rest.remove_prefix(1);
  if (spec.type != column_type::decimal) {
    if (!all_digits(rest)) bad_value(spec, text, "is not an integer");
    value v = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (error != std::errc{} || end != text.data() + text.size() || !fits(spec, v)) bad_value(spec, text, "is out of range");
    return v;
  }
  const auto dot = rest.find('.');
  const std::string_view whole = rest.substr(0, dot);
  const std::string_view fraction = dot == std::string_view::npos ? std::string_view{} : rest.substr(dot + 1);
  if (!all_digits(whole) || (dot != std::string_view::npos && !all_digits(fraction))) {
    bad_value(spec, text, "is not a decimal number");
  }
  if (fraction.size() > spec.scale) bad_value(spec, text, "has more fraction digits than the scale");
  std::size_t leading = 0;
  while (leading + 1 < whole.size() && whole[leading] == '0') ++leading;
  const std::string_view significant = whole.substr(leading);
  const bool zero_whole = significant == "0";
  if ((zero_whole ? 0 : significant.size()) > spec.precision - spec.scale) bad_value(spec, text, "has more digits than the precision");
  value v = 0;
  for (const char c : significant) v = v * 10 + (c - '0');
  for (const char c : fraction) v = v * 10 + (c - '0');
  v *= power_of_ten(spec.scale - static_cast<unsigned>(fraction.size()));
  return negative ? -v : v;
}

std::string format_value(const column_spec& spec, value v) {
  if (spec.type != column_type::decimal || spec.scale == 0) return std::to_string(v);
  const std::int64_t unit = power_of_ten(spec.scale);
  const std::uint64_t magnitude = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  std::string fraction = std::to_string(magnitude % static_cast<std::uint64_t>(unit));
  fraction.insert(0, spec.scale - fraction.size(), '0');
  return (v < 0 ? "-" : "") + std::to_string(magnitude / static_cast<std::uint64_t>(unit)) + "." + fraction;
}

void column_schema::check() const {
  if (columns.empty()) throw std::invalid_argument("column schema: no columns");
  std::unordered_set<std::string> names;
  for (const column_spec& spec : columns) {
    check_spec(spec);
    if (!names.insert(spec.name).second) throw std::invalid_argument("column schema: column '" + spec.name + "' repeats");
  }
  if (key >= columns.size()) throw std::invalid_argument("column schema: key column out of range");
}

column_schema column_schema::parse(std::string_view text, std::string_view key) {
  column_schema schema;
  while (!text.empty()) {
    const auto comma = text.find(',');
    std::string_view entry = text.substr(0, comma);
    // decimal(p,s) holds a comma: extend the entry to its closing parenthesis.
    if (entry.find('(') != std::string_view::npos && entry.find(')') == std::string_view::npos) {
      const auto close = text.find(')');
      if (close == std::string_view::npos) throw std::invalid_argument("column schema: unclosed '(' in '" + std::string(text) + "'");
      entry = text.substr(0, close + 1);
    }
    schema.columns.push_back(parse_spec(entry));
    text.remove_prefix(entry.size());
    if (!text.empty()) {
      if (text.front() != ',' || text.size() == 1) throw std::invalid_argument("column schema: expected ',' and a column after '" + std::string(entry) + "'");
      text.remove_prefix(1);
    }
  }
  schema.key = key.empty() ? 0 : schema.columns.size();
  if (!key.empty()) {
    for (std::size_t i = 0; i < schema.columns.size(); ++i) {
      if (schema.columns[i].name == key) schema.key = i;
    }
    if (schema.key == schema.columns.size()) throw std::invalid_argument("column schema: no key column '" + std::string(key) + "'");
  }
  schema.check();
  return schema;
}

std::size_t column_schema::index_of(std::string_view name) const {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == name) return i;
  }
  throw std::invalid_argument("column schema: no column '" + std::string(name) + "'");
}

std::string column_schema::to_string() const {
  std::string text;
  for (const column_spec& spec : columns) text += (text.empty() ? "" : ",") + spec.name + ":" + braid::to_string(spec);
  return text;
}

std::unique_ptr<column> make_column(const column_spec& spec) {
  check_spec(spec);
  if (spec.type == column_type::int32) return std::make_unique<typed_column<std::int32_t>>(spec);
  return std::make_unique<typed_column<std::int64_t>>(spec);
}

}  // namespace braid
