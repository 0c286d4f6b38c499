// table: a set of named columns (column.hpp) with a key column, loaded from CSV or generated,
// and the two queries of the interleaving thesis's column-store experiments (§4.3):
//
//   braid::table t(braid::column_schema::parse("id:int64,qty:int32,price:decimal(8,2),name:varchar(50)", "id"));
//   t.load_csv(stream, "orders.csv");          // header line, then rows; all or nothing
//   t.merge();                                 // every column's Delta into its Main
//   t.count_in("qty", list, {technique::gp, technique::coro, 16});   // SELECT COUNT(*) WHERE qty IN (list)
//   std::optional<std::vector<value>> row = t.select_by_key(x, reconstruction::elided, 8);
//                                              // SELECT * WHERE id = x
//
// Tuple reconstruction (select_by_key, reconstruct): finds the row (find_key: a locate in the
// key column's fragments, through the code -> first row maps that column keeps), then reads
// every column's value at it. `reconstruction` chooses how:
//   naive    column after column, the virtual plain get: each miss waited for in turn;
//   nested   one task per column, interleaved `group` at a time, each the mechanical conversion
//            of nested calls: a root task awaiting the column's virtual get_nested, which
//            awaits a task per helper (code_at, extract) — a frame per call;
//   elided   the column's virtual get_task as the root: the task that only awaited one child
//            is gone (the thesis's manual elision, its `wrapped<T>`), one frame per column;
//   flat     the column's virtual get_flat_into: one flat coro<> frame per column, no task
//            chain, the value stored straight into the output (no result handed over);
//   context  nested, written with a lookup_context (the thesis's Listing 3.7): every column in
//            flight owns a context whose arena holds the frames of its whole chain (root ->
//            get_nested(context, row) -> fragment -> code_at / extract), reset when the read
//            finishes; no frame pool;
//   wrapped  context, with the column-level task elided by wrapped<T> (Listing 3.8): the root
//            awaits the column's virtual get_wrapped, which hands it the fragment's chain.
// All six return the same values. arena_bytes_per_read gives the frame bytes of one column
// read in the two context forms (the frame-pool forms' are measured off the pool).
//
// CSV: the first line names the columns (every schema column exactly once, any order); each
// following line holds one value per column, comma-separated, no quoting, an optional '\r'
// before the '\n'; empty lines are errors, except a final newline. A VARCHAR field is the raw
// text between its commas (it may be empty; it cannot hold a comma or a newline, and a '\r'
// ending the line is not part of it); one longer than the column's n bytes is an error. A
// malformed line throws
// braid::csv_error with "source:line: what"; the table is then unchanged (rows are parsed
// and checked in full before any column is touched).
//
// Not thread-safe for writers; concurrent readers are fine between writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "braid/column/column.hpp"
#include "braid/column/value_type.hpp"

namespace braid {

class csv_error : public std::runtime_error {
 public:
  csv_error(const std::string& source, std::size_t line, const std::string& what)
      : std::runtime_error(source + ":" + std::to_string(line) + ": " + what), line_(line) {}
  [[nodiscard]] std::size_t line() const noexcept { return line_; }

 private:
  std::size_t line_;
};

enum class reconstruction { naive, nested, elided, flat, context, wrapped };
std::string_view to_string(reconstruction how) noexcept;
reconstruction parse_reconstruction(std::string_view name);  // throws std::invalid_argument

// The arena of each context of the context and wrapped forms: one column read's frames fit
// with room to spare (a read that did not fit would still be right, its frames from the pool).
inline constexpr std::size_t reconstruction_arena_bytes = 4096;

// Arena bytes one read of `c` at `row` takes in a context form (context or wrapped): the frames
// of the root and of every task below it, with their headers. Throws std::invalid_argument for
// another form or row >= c.size().
std::size_t arena_bytes_per_read(const column& c, reconstruction how, std::size_t row);

class table {
 public:
  // Throws std::invalid_argument for an unusable schema.
  explicit table(column_schema schema);
  // A table over prebuilt columns (a benchmark's large data). Throws std::invalid_argument
  // unless there is one column per schema entry, of its name and type, all of one size.
  table(column_schema schema, std::vector<std::unique_ptr<column>> columns);

  [[nodiscard]] const column_schema& schema() const noexcept { return schema_; }
  [[nodiscard]] std::size_t size() const noexcept { return columns_.front()->size(); }
  [[nodiscard]] std::size_t column_count() const noexcept { return columns_.size(); }
  [[nodiscard]] const column& at(std::size_t index) const { return *columns_.at(index); }
  [[nodiscard]] const column& operator[](std::string_view name) const { return *columns_[schema_.index_of(name)]; }

  // Appends rows given column by column (values[c][r]); every column as many values. Throws
  // std::invalid_argument (a value that does not fit, ragged columns); then nothing is added.
  void append_columns(const std::vector<std::vector<value>>& values);

  // Appends the rows of a CSV text (see above); throws csv_error, leaving the table unchanged.
  void load_csv(std::istream& in, const std::string& source);
  void load_csv_file(const std::string& path);  // csv_error also when the file does not open

  // Appends `rows` generated rows, deterministic from `seed`: the key column counts up from the
  // table's size (unique keys; a VARCHAR key holds them in decimal, and std::invalid_argument is
  // thrown when they do not fit its length); every other column draws from `distinct` values
  // spread over its type's range. A VARCHAR's values are texts of varied length up to n, each
  // one of a few stems repeated to that stem's length (drawn from the seed; texts of one stem
  // share long prefixes), ending in '#' and a distinct base-36 number (only the number, modulo
  // 36^n, when n cannot hold both).
  void generate(std::size_t rows, std::size_t distinct, std::uint64_t seed);

  void merge();

  [[nodiscard]] in_predicate_result count_in(std::string_view column, std::span<const value> list,
                                             const in_predicate_options& options) const;

  // The first row whose key is `key`, or nullopt. O(log d): the key column (alone among the
  // columns) keeps a code -> first row map per fragment, which the table asks of it when built
  // (column::index_first_rows) and which every append, load, truncate and merge keeps.
  [[nodiscard]] std::optional<std::size_t> find_key(value key) const;
  // Every column's value at `row` (row < size()); group >= 1 is how many columns are read at a
  // time by the interleaved forms. Throws std::invalid_argument for a bad row or group.
  [[nodiscard]] std::vector<value> reconstruct(std::size_t row, reconstruction how, std::size_t group) const;
  // Same, into out (out.size() == column_count()): the benchmark's allocation-free form.
  void reconstruct_into(std::size_t row, reconstruction how, std::size_t group, std::span<value> out) const;
  [[nodiscard]] std::optional<std::vector<value>> select_by_key(value key, reconstruction how, std::size_t group) const;

 private:
  column_schema schema_;
  std::vector<std::unique_ptr<column>> columns_;
};

}  // namespace braid
