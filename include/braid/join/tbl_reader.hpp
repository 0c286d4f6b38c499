// tbl_reader: TPC-H `.tbl` files (as the TPC-H generator dbgen writes them), row by row, and
// the join layer's relations loaded from them.
//
//   braid::join::read_tbl_file("orders.tbl", [](std::span<const std::string_view> fields, std::uint64_t line) { ... });
//   std::vector<braid::join::tuple> orders = braid::join::load_join_relation("orders.tbl", 0);     // key o_orderkey, payload row number
//   std::vector<braid::join::tuple> items = braid::join::load_join_relation("lineitem.tbl", 0, 1); // key l_orderkey, payload l_partkey
//
// Format. One row a line, lines ending in '\n'; fields separated by '|'. Decisions:
//  - the '|' that dbgen writes after the last field is optional: "1|a|" and "1|a" are both the
//    row {"1", "a"}. Only one trailing '|' is dropped, so an empty last field is written "1|a||";
//  - CRLF is tolerated: one '\r' right before a line's '\n' is dropped (before the trailing '|');
//  - the last line may lack its '\n'; an empty file has no rows;
//  - refused: an empty line, a NUL byte anywhere, a line longer than max_line_bytes (its '\n'
//    not counted). Fields are not trimmed or unquoted ('|' cannot appear inside a field), and the
//    reader does not require every line to have the same number of fields: callers check the
//    columns they use.
// Every refusal is a tbl_error "FILE:LINE: what" (line 0 when the file cannot be opened; a read
// error names the line being read).
//
// The row reader hands each row to a callback as string_views into its read buffer, valid
// during that call only, with the row's 1-based line number. It reads the file in blocks of
// block_bytes (default 4 MiB) and splits with memchr: no allocation per line (the field vector
// is reused). O(file size) time, O(block_bytes + max_line_bytes) memory.
//
// load_join_relation: one tuple per row, key = the key column parsed as an unsigned 64-bit
// decimal (digits only: no sign, no spaces, leading zeros allowed; a value above 2^64 - 1 is
// refused), payload = the payload column parsed the same way, or, without one, the row's
// 0-based row number (the line number - 1, since empty lines are refused). Columns are
// 0-based. All or nothing: any error throws and nothing is returned.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "braid/join/relation.hpp"

namespace braid::join {

class tbl_error : public std::runtime_error {
 public:
  tbl_error(const std::string& file, std::uint64_t line, const std::string& what)
      : std::runtime_error(file + ":" + std::to_string(line) + ": " + what), file_(file), line_(line) {}
  [[nodiscard]] const std::string& file() const noexcept { return file_; }
  [[nodiscard]] std::uint64_t line() const noexcept { return line_; }  // 0: the file as a whole

 private:
  std::string file_;
  std::uint64_t line_;
};

struct tbl_read_options {
  std::size_t block_bytes = std::size_t{4} << 20;     // bytes read from the file at a time
  std::size_t max_line_bytes = std::size_t{1} << 16;  // longest line accepted, its '\n' excluded
};

// A non-owning reference to the per-row callback (it must outlive the read).
class tbl_row_handler {
 public:
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, tbl_row_handler> &&
             std::is_invocable_v<F&, std::span<const std::string_view>, std::uint64_t>)
  tbl_row_handler(F& f) noexcept  // implicit, so a lambda can be passed directly
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* object, std::span<const std::string_view> fields, std::uint64_t line) {
          (*static_cast<F*>(object))(fields, line);
        }) {}
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, tbl_row_handler> &&
             std::is_invocable_v<F&, std::span<const std::string_view>, std::uint64_t>)
  tbl_row_handler(F&& f) noexcept : tbl_row_handler(static_cast<F&>(f)) {}  // a temporary lives to the call's end

  void operator()(std::span<const std::string_view> fields, std::uint64_t line) const { call_(object_, fields, line); }

 private:
  void* object_;
  void (*call_)(void*, std::span<const std::string_view>, std::uint64_t);
};

// Calls `on_row` for every row of the file, in order. Throws tbl_error (see above), or whatever
// on_row throws. Throws std::invalid_argument when block_bytes or max_line_bytes is 0.
void read_tbl_file(const std::string& path, tbl_row_handler on_row, const tbl_read_options& options = {});

// The same over text in memory; `name` stands for the file in error messages.
void read_tbl_text(std::string_view text, const std::string& name, tbl_row_handler on_row,
                   const tbl_read_options& options = {});

// A field for an error message: in quotes, bytes outside printable ASCII as \xNN, cut after 40
// bytes ("'abc'", "'a\x00b'", "'xxxx...'...").
std::string quote_tbl_field(std::string_view field);

// A field as an unsigned 64-bit decimal; std::nullopt with the reason in `problem` otherwise.
std::optional<std::uint64_t> parse_tbl_unsigned(std::string_view field, std::string& problem);

// The relation of a .tbl file (see above). Throws tbl_error naming FILE:LINE for a missing file,
// a malformed line, a row with too few fields, a key or payload that is not an unsigned 64-bit
// integer. key_column and payload_column may be the same column; a column no line within
// max_line_bytes can have (above max_line_bytes) is std::invalid_argument.
std::vector<tuple> load_join_relation(const std::string& path, std::size_t key_column,
                                      std::optional<std::size_t> payload_column = std::nullopt,
                                      const tbl_read_options& options = {});

// The same over text in memory (`name` as the file in messages): for tests and fuzzing.
std::vector<tuple> load_join_relation_text(std::string_view text, const std::string& name, std::size_t key_column,
                                           std::optional<std::size_t> payload_column = std::nullopt,
                                           const tbl_read_options& options = {});

}  // namespace braid::join
