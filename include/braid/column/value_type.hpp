// Column value types and schemas of the column store: INTEGER (32- and 64-bit) and
// DECIMAL(p,s) stored as a scaled 64-bit integer (12.34 in DECIMAL(6,2) is 1234).
//
//   braid::column_schema s = braid::column_schema::parse("id:int64,qty:int32,price:decimal(10,2)", "id");
//   braid::value v = braid::parse_value(s.columns[2], "-12.5");   // -1250
//   std::string text = braid::format_value(s.columns[2], v);     // "-12.50"
//
// Every value travels as `braid::value` (int64_t): an int32 column's values, a decimal's scaled
// integer. The column type decides how text is parsed and printed and which dictionary stores it.
//
// Known limit: VARCHAR columns (a prefix-compressed dictionary) are not implemented.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace braid {

using value = std::int64_t;

enum class column_type { int32, int64, decimal };

struct column_spec {
  std::string name;
  column_type type = column_type::int64;
  unsigned precision = 0;  // DECIMAL(p,s) only: 1 <= p <= 18, 0 <= s <= p
  unsigned scale = 0;
};

// Names of the types as parse() reads them: int32, int64, decimal(p,s).
std::string to_string(const column_spec& spec);

// Throws std::invalid_argument naming the column when `text` is not a value of its type (not a
// number, out of range, more fraction digits than the scale, more digits than the precision).
value parse_value(const column_spec& spec, std::string_view text);
std::string format_value(const column_spec& spec, value v);

// Whether `v` is a value a column of this type can hold (int32 range; decimal: |v| < 10^p).
bool fits(const column_spec& spec, value v) noexcept;

struct column_schema {
  std::vector<column_spec> columns;
  std::size_t key = 0;  // index of the key column

  // "name:type,name:type,..." with type int32, int64 or decimal(p,s); `key` names the key
  // column (the first when empty). Throws std::invalid_argument on a malformed text, a repeated
  // or empty name, an unknown key, or no column at all.
  static column_schema parse(std::string_view text, std::string_view key = {});

  // Throws std::invalid_argument unless the schema is usable (as parse checks).
  void check() const;
  [[nodiscard]] std::size_t index_of(std::string_view name) const;  // throws if absent
  [[nodiscard]] std::string to_string() const;
};

}  // namespace braid
