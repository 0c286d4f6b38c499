// table: a relation stored as fragments in PAX layout, the unit a query task processes
// (MxTasks ch. 7, TunaDB's tiles).
//
//   braid::query::table_builder b("lineitem", braid::query::tpch_columns(braid::query::tpch_table::lineitem));
//   b.append_row(values);                      // one cell per column, in column order
//   b.append_raw(raw);                         // the same without cells: numbers and string_views
//   braid::query::table t = std::move(b).finish(1024);   // 1,024 tuples per fragment
//   const std::int32_t* ship = t.column_data<std::int32_t>(f, t.column_index("l_shipdate"));
//
// Layout. Fragment f is fragment_bytes() bytes at fragment(f), 64-byte aligned, all fragments
// in one contiguous block: a 64-byte header line (fragment_header: the tuple count, ...), then
// each column's values for the fragment's tuples, one contiguous array per column, each
// starting on a 64-byte line (column_offset(c) bytes from the fragment's start). Widths:
// integer and decimal columns are std::int64_t (a decimal holds value x 10^scale), dates
// std::int32_t (days since 1970-01-01), text columns std::uint32_t codes into the column's
// dictionary. Every fragment but the last holds exactly tuples_per_fragment() tuples.
//
// Text: finish() sorts each text column's distinct values and recodes, so codes are
// order-preserving (code a < code b exactly when text a < text b, bytewise): equality, ranges,
// prefixes and ORDER BY work on codes; a predicate on text is evaluated once per distinct value.
//
// Complexity: append O(columns) amortized; finish O(rows x columns + distinct text x log).
// Memory: rows x row width, plus headers and per-column padding to 64 bytes per fragment. The
// builder holds every row once more (8 bytes a number, 4 a date or text code) and each text
// column's distinct values once, so a text column repeated on every row costs 4 bytes a row.
// Immutable after finish; any number of threads may read it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "braid/core/huge_buffer.hpp"
#include "braid/query/result.hpp"

namespace braid::query {

struct column_type {
  value_kind kind = value_kind::integer;
  std::uint8_t scale = 0;  // decimal only
  friend bool operator==(const column_type&, const column_type&) = default;
};

struct column_spec {
  std::string name;
  column_type type;
};

// Bytes one value of this type takes in a fragment (8, or 4 for dates and text codes).
std::size_t width_of(column_type type) noexcept;

struct alignas(64) fragment_header {
  std::uint32_t tuples;       // tuples in this fragment
  std::uint32_t index;        // f
  std::uint64_t first_row;    // row number of the fragment's first tuple
};
static_assert(sizeof(fragment_header) == 64);

// The sorted distinct values of a text column; code = position.
class text_dictionary {
 public:
  text_dictionary() = default;
  explicit text_dictionary(std::vector<std::string> sorted_distinct);
  [[nodiscard]] std::size_t size() const noexcept { return values_.size(); }
  [[nodiscard]] std::string_view text(std::uint32_t code) const { return values_.at(code); }
  // The code of `value`, or nullopt when no row has it.
  [[nodiscard]] std::optional<std::uint32_t> code_of(std::string_view value) const;
  // First code whose text is >= value (size() if none): for ranges and prefixes.
  [[nodiscard]] std::uint32_t lower_bound(std::string_view value) const;
  [[nodiscard]] const std::vector<std::string>& values() const noexcept { return values_; }

 private:
  std::vector<std::string> values_;
};

class table {
 public:
  static constexpr std::size_t min_tuples_per_fragment = 1;
  static constexpr std::size_t max_tuples_per_fragment = 65536;

  table() = default;
  table(table&&) noexcept = default;
  table& operator=(table&&) noexcept = default;

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const std::vector<column_spec>& columns() const noexcept { return columns_; }
  // Throws std::invalid_argument naming the table and the column when there is none.
  [[nodiscard]] std::size_t column_index(std::string_view column) const;
  [[nodiscard]] std::uint64_t rows() const noexcept { return rows_; }
  [[nodiscard]] std::size_t tuples_per_fragment() const noexcept { return tuples_per_fragment_; }
  [[nodiscard]] std::size_t fragment_count() const noexcept { return fragment_count_; }
  [[nodiscard]] std::size_t fragment_bytes() const noexcept { return fragment_bytes_; }
  [[nodiscard]] std::size_t column_offset(std::size_t column) const { return offsets_.at(column); }

  [[nodiscard]] const std::byte* fragment(std::size_t f) const noexcept { return memory_.data() + f * fragment_bytes_; }
  [[nodiscard]] const fragment_header& header(std::size_t f) const noexcept {
    return *reinterpret_cast<const fragment_header*>(fragment(f));
  }
  // The column's values in fragment f (header(f).tuples of them). T must match the width.
  template <class T>
  [[nodiscard]] const T* column_data(std::size_t f, std::size_t column) const noexcept {
    return reinterpret_cast<const T*>(fragment(f) + offsets_[column]);
  }
  // Text columns only (std::invalid_argument otherwise).
  [[nodiscard]] const text_dictionary& dictionary(std::size_t column) const;

  // The value at a row as a result cell (for tests and reference checks; O(1)).
  [[nodiscard]] cell at(std::uint64_t row, std::size_t column) const;

  // The same rows with another fragment size (a copy). Throws std::invalid_argument as
  // table_builder::finish does.
  [[nodiscard]] table with_tuples_per_fragment(std::size_t tuples) const;

 private:
  friend class table_builder;

  // Writes `count` values of `column`, from row `first` on, at `into` (width_of each).
  using column_filler = void (*)(const void* source, std::size_t column, std::uint64_t first, std::size_t count,
                                 std::byte* into);
  // A table of these columns and rows laid out in fragments of `tuples` tuples, its values
  // written by `fill` from `source`.
  static table laid_out(std::string name, std::vector<column_spec> columns, std::vector<text_dictionary> dictionaries,
                        std::uint64_t rows, std::size_t tuples, const void* source, column_filler fill);

  std::string name_;
  std::vector<column_spec> columns_;
  std::vector<std::size_t> offsets_;
  std::vector<text_dictionary> dictionaries_;  // one per column, empty for non-text
  std::uint64_t rows_ = 0;
  std::size_t tuples_per_fragment_ = 0;
  std::size_t fragment_count_ = 0;
  std::size_t fragment_bytes_ = 0;
  huge_buffer memory_;
};

// One value of a row for table_builder::append_raw: integer and decimal columns take `number`
// (a decimal x 10^scale), date columns `number` as days since 1970-01-01, text columns `text`.
struct raw_value {
  std::int64_t number = 0;
  std::string_view text{};
};

// Collects rows column-wise (text interned as it comes), then lays them out as fragments.
class table_builder {
 public:
  // Throws std::invalid_argument for no columns, an empty or repeated column name, a scale
  // above 18 or a scale on a non-decimal column.
  table_builder(std::string name, std::vector<column_spec> columns);

  // Values in column order: integer/decimal/date as numbers; text columns take the text.
  // Throws std::invalid_argument when the count or a kind does not match (a date outside
  // int32 too); nothing is appended then. A decimal cell must carry its column's scale, and
  // integer and decimal values must fit std::int64_t.
  void append_row(std::span<const cell> values);
  // The same from plain values (no cell, no allocation but the builder's): the loaders' form.
  // Throws std::invalid_argument for a wrong count or a date outside int32; nothing is
  // appended then.
  void append_raw(std::span<const raw_value> values);
  [[nodiscard]] std::uint64_t rows() const noexcept { return rows_; }

  // Throws std::invalid_argument when tuples_per_fragment is outside
  // [min_tuples_per_fragment, max_tuples_per_fragment]. An empty table has no fragments.
  [[nodiscard]] table finish(std::size_t tuples_per_fragment) &&;

 private:
  // Heterogeneous lookup: a string_view finds an interned std::string without a copy. Not
  // noexcept on purpose: libstdc++ then keeps each node's hash, so a lookup compares texts only
  // on equal hashes and a rehash does not hash every text again.
  struct text_hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
  };
  // One column's values so far; rows_ of them in `wide` (integer, decimal) or `narrow` (date
  // days as int32 bits, text temporary codes: the order of first appearance).
  struct column_values {
    std::vector<std::int64_t> wide;
    std::vector<std::uint32_t> narrow;
    std::unordered_map<std::string, std::uint32_t, text_hash, std::equal_to<>> interned;
  };

  std::uint32_t intern(column_values& column, std::string_view text);
  void drop_partial_row() noexcept;  // back to rows_ values per column after a failed append
  static void fill_from_builder(const void* source, std::size_t column, std::uint64_t first, std::size_t count,
                                std::byte* into);

  std::string name_;
  std::vector<column_spec> columns_;
  std::vector<column_values> values_;  // per column
  std::uint64_t rows_ = 0;
};

}  // namespace braid::query
