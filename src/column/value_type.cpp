#include "braid/column/value_type.hpp"

#include <charconv>
#include <cstdlib>
#include <ostream>
#include <stdexcept>
#include <unordered_set>

#include "braid/column/column.hpp"
#include "braid/column/varchar_column.hpp"

namespace braid {

value& value::operator=(std::string_view text) {
  if (auto* held = std::get_if<std::string>(&data_)) {
    held->assign(text);
  } else {
    data_.emplace<std::string>(text);
  }
  return *this;
}

void value::refuse_as_integer() const {
  throw std::invalid_argument("value: the text '" + std::get<std::string>(data_) + "' is not an integer");
}

const std::string& value::text() const {
  if (const auto* held = std::get_if<std::string>(&data_)) return *held;
  throw std::invalid_argument("value: the integer " + std::to_string(std::get<std::int64_t>(data_)) + " is not a text");
}

std::string& value::text_to_fill() {
  if (auto* held = std::get_if<std::string>(&data_)) return *held;
  return data_.emplace<std::string>();
}

std::uint64_t value::text_fingerprint() const noexcept {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : std::get<std::string>(data_)) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return hash;
}

std::string value::to_string() const {
  if (const auto* held = std::get_if<std::int64_t>(&data_)) return std::to_string(*held);
  return std::get<std::string>(data_);
}

std::ostream& operator<<(std::ostream& out, const value& v) { return out << v.to_string(); }

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
  if (spec.type == column_type::varchar && (spec.length < 1 || spec.length > max_varchar_length)) {
    throw std::invalid_argument("column '" + spec.name + "': varchar(" + std::to_string(spec.length) + ") needs 1 <= n <= " +
                                std::to_string(max_varchar_length));
  }
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
  } else if (type.starts_with("varchar(") && type.ends_with(")")) {
    const std::string_view n = type.substr(8, type.size() - 9);
    if (!all_digits(n) || n.size() > 5) throw std::invalid_argument("column schema: '" + std::string(type) + "' is not varchar(n)");
    spec.type = column_type::varchar;
    spec.length = static_cast<unsigned>(std::atoi(std::string(n).c_str()));
  } else {
    throw std::invalid_argument("column schema: unknown type '" + std::string(type) +
                                "' (int32, int64, decimal(p,s), varchar(n))");
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
    case column_type::varchar: return "varchar(" + std::to_string(spec.length) + ")";
  }
  return "?";
}

bool fits(const column_spec& spec, const value& v) noexcept {
  if (spec.type == column_type::varchar) return v.is_text() && v.text().size() <= spec.length;
  if (v.is_text()) return false;
  return fits_integer(spec, v.integer());
}

bool fits_integer(const column_spec& spec, std::int64_t v) noexcept {
  switch (spec.type) {
    case column_type::int32: return v >= INT32_MIN && v <= INT32_MAX;
    case column_type::int64: return true;
    case column_type::decimal: {
      const std::int64_t limit = power_of_ten(spec.precision);
      return v > -limit && v < limit;
    }
    case column_type::varchar: return false;
  }
  return false;
}

value parse_value(const column_spec& spec, std::string_view text) {
  if (spec.type == column_type::varchar) {
    if (text.size() > spec.length) bad_value(spec, text, "is longer than " + std::to_string(spec.length) + " bytes");
    return value(text);
  }
  std::string_view rest = text;
  const bool negative = !rest.empty() && rest.front() == '-';
  if (negative) rest.remove_prefix(1);
  if (spec.type != column_type::decimal) {
    if (!all_digits(rest)) bad_value(spec, text, "is not an integer");
    std::int64_t v = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (error != std::errc{} || end != text.data() + text.size() || !fits_integer(spec, v)) bad_value(spec, text, "is out of range");
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
  std::int64_t v = 0;
  for (const char c : significant) v = v * 10 + (c - '0');
  for (const char c : fraction) v = v * 10 + (c - '0');
  v *= power_of_ten(spec.scale - static_cast<unsigned>(fraction.size()));
  return negative ? -v : v;
}

std::string format_value(const column_spec& spec, const value& formatted) {
  if (spec.type == column_type::varchar) return formatted.text();
  const std::int64_t v = formatted.integer();
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
  if (spec.type == column_type::varchar) return std::make_unique<varchar_column>(spec);
  if (spec.type == column_type::int32) return std::make_unique<typed_column<std::int32_t>>(spec);
  return std::make_unique<typed_column<std::int64_t>>(spec);
}

}  // namespace braid
