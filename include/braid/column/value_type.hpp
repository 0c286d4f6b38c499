// Column value types and schemas of the column store: INTEGER (32- and 64-bit), DECIMAL(p,s)
// stored as a scaled 64-bit integer (12.34 in DECIMAL(6,2) is 1234) and VARCHAR(n), text of at
// most n bytes (1 <= n <= 65535) kept in a prefix-compressed dictionary.
//
//   braid::column_schema s = braid::column_schema::parse("id:int64,price:decimal(10,2),name:varchar(50)", "id");
//   braid::value v = braid::parse_value(s.columns[1], "-12.5");   // -1250
//   std::string text = braid::format_value(s.columns[1], v);     // "-12.50"
//   braid::value name = braid::parse_value(s.columns[2], "ada"); // name.text() == "ada"
//
// Every value travels as `braid::value`: an integer (an int32 column's values, a decimal's
// scaled integer) or a text (a varchar's). It converts implicitly from integral types and from
// text, compares (integers before texts) and prints. The column type decides how text is
// parsed and printed and which dictionary stores it. A VARCHAR's text is taken as it is: no
// trimming, no escapes, the empty text included; its length counts bytes, not characters.
//
// Complexity: a value is an integer or a std::string (its small-string buffer or one
// allocation); assigning a text into a value holding a text reuses its capacity.
#pragma once

#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace braid {

class value {
 public:
  value() noexcept = default;  // the integer 0
  template <std::integral Integer>
  value(Integer integer) noexcept : data_(static_cast<std::int64_t>(integer)) {}
  value(std::string text) noexcept : data_(std::move(text)) {}
  value(std::string_view text) : data_(std::string(text)) {}
  value(const char* text) : data_(std::string(text)) {}

  // Into a value holding an integer, a plain store (the hot path of reading integer columns).
  template <std::integral Integer>
  value& operator=(Integer integer) noexcept {
    if (auto* held = std::get_if<std::int64_t>(&data_)) {
      *held = static_cast<std::int64_t>(integer);
    } else {
      data_ = static_cast<std::int64_t>(integer);
    }
    return *this;
  }
  // Into a value holding a text, the text's capacity is reused.
  value& operator=(std::string_view text);
  value& operator=(const std::string& text) { return *this = std::string_view(text); }
  value& operator=(const char* text) { return *this = std::string_view(text); }
  value& operator=(const value& other) = default;
  value& operator=(value&& other) noexcept = default;
  value(const value& other) = default;
  value(value&& other) noexcept = default;
  ~value() = default;

  [[nodiscard]] bool is_text() const noexcept { return data_.index() == 1; }
  // Throw std::invalid_argument when the value is of the other kind.
  [[nodiscard]] std::int64_t integer() const {
    if (const auto* held = std::get_if<std::int64_t>(&data_)) return *held;
    refuse_as_integer();
  }
  [[nodiscard]] const std::string& text() const;
  // The text to be overwritten in place (a value becomes an empty text first if it is an
  // integer): the allocation-free way to assemble a text into a reused value.
  [[nodiscard]] std::string& text_to_fill();

  // A 64-bit summary for checksums: an integer's bits, a text's FNV-1a hash.
  [[nodiscard]] std::uint64_t fingerprint() const noexcept {
    if (const auto* held = std::get_if<std::int64_t>(&data_)) return static_cast<std::uint64_t>(*held);
    return text_fingerprint();
  }
  // The integer in decimal, or the text as it is.
  [[nodiscard]] std::string to_string() const;

  friend bool operator==(const value&, const value&) = default;
  friend std::strong_ordering operator<=>(const value& a, const value& b) noexcept { return a.data_ <=> b.data_; }

 private:
  [[noreturn]] void refuse_as_integer() const;
  [[nodiscard]] std::uint64_t text_fingerprint() const noexcept;

  std::variant<std::int64_t, std::string> data_;
};

std::ostream& operator<<(std::ostream& out, const value& v);  // as to_string()

enum class column_type { int32, int64, decimal, varchar };

inline constexpr unsigned max_varchar_length = 65535;

struct column_spec {
  std::string name;
  column_type type = column_type::int64;
  unsigned precision = 0;  // DECIMAL(p,s) only: 1 <= p <= 18, 0 <= s <= p
  unsigned scale = 0;
  unsigned length = 0;  // VARCHAR(n) only: 1 <= n <= max_varchar_length, the most bytes a text holds
};

// Names of the types as parse() reads them: int32, int64, decimal(p,s), varchar(n).
std::string to_string(const column_spec& spec);

// Throws std::invalid_argument naming the column when `text` is not a value of its type (not a
// number, out of range, more fraction digits than the scale, more digits than the precision,
// a text longer than the varchar's length).
value parse_value(const column_spec& spec, std::string_view text);
std::string format_value(const column_spec& spec, const value& v);

// Whether `v` is a value a column of this type can hold (an integer: int32 range; decimal:
// |v| < 10^p; a text of at most n bytes for varchar(n)).
bool fits(const column_spec& spec, const value& v) noexcept;
// The same for an integer (false for a varchar).
bool fits_integer(const column_spec& spec, std::int64_t v) noexcept;
struct column_schema {
  std::vector<column_spec> columns;
  std::size_t key = 0;  // index of the key column

  // "name:type,name:type,..." with type int32, int64, decimal(p,s) or varchar(n); `key` names the key
  // column (the first when empty). Throws std::invalid_argument on a malformed text, a repeated
  // or empty name, an unknown key, or no column at all.
  static column_schema parse(std::string_view text, std::string_view key = {});

  // Throws std::invalid_argument unless the schema is usable (as parse checks).
  void check() const;
  [[nodiscard]] std::size_t index_of(std::string_view name) const;  // throws if absent
  [[nodiscard]] std::string to_string() const;
};

}  // namespace braid
