// column: one column of the column store — a Main fragment plus a Delta fragment behind one
// polymorphic interface, so a query can walk columns whose code paths differ by value type
// and fragment (the interleaving thesis §1.5 / §4.3: tuple reconstruction across polymorphic
// columns). Rows [0, main_rows) are in Main, the rest in Delta, in append order.
//
//   std::unique_ptr<braid::column> c = braid::make_column(spec);   // int32, int64, decimal, varchar
//   c->append(values);                 // to the Delta; checked against the type, all or nothing
//   c->merge();                        // Main + Delta -> a new Main; every row keeps its value
//   braid::value v = c->get(row);
//   braid::task<braid::value> t = c->get_task(row);      // interleaved, one task frame
//   braid::task<braid::value> n = c->get_nested(row);    // interleaved, a task per helper
//   braid::coro<braid::value> f = c->get_flat(row);      // interleaved, one flat coro frame
//   braid::task<braid::value> x = c->get_nested(context, row);   // the nested form, frames from
//                                                                // the lookup_context's arena
//   braid::value v = co_await c->get_wrapped(context, row);      // inside a task: the fragment's
//                                                                // chain, no column-level frame
//   c->count_in(list, {technique::gp, technique::coro, 16});   // SELECT COUNT(*) WHERE c IN list
//
// The IN-predicate runs in two phases per fragment: locate every list value in the fragment's
// dictionary (a bulk index join, run with the chosen technique), set the found codes in a
// bitmap over the dictionary, then scan the index vector counting rows whose code is set.
// Main's locate has every technique of sorted_array (naive, gp, amac, coro, coro_nested, fiber,
// adaptive); Delta's those of csb_plus_tree_over_codes (naive, coro, coro_nested, fiber,
// adaptive): asking Delta for
// gp or amac throws std::invalid_argument, as multi_find does, whether or not Delta holds rows.
// typed_column below holds the integer types; varchar_column (varchar_column.hpp) the texts.
// A list value of the other kind (a text for an integer column, an integer for a varchar)
// matches no row.
//
// find_first(v), the first row holding v (a table's SELECT by key), scans a fragment's codes
// for v's code unless the column was told index_first_rows(): from then on it keeps, per
// fragment, a code -> first row map (a word per distinct value: a table tells its key column
// only). Main's is built with Main (at index_first_rows and at every merge); Delta's grows on
// append (a new code's first row is known when the code is assigned) and shrinks on truncate.
// With it find_first is a locate in each fragment and one read.
//
// Complexity: count_in O(|list| log d + n) per fragment; merge O(n log d); find_first
// O(log d) with the first-row maps, O(log d + n) without; append O(batch + d) either way.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "braid/column/delta_fragment.hpp"
#include "braid/column/main_fragment.hpp"
#include "braid/column/value_type.hpp"
#include "braid/core/coro.hpp"
#include "braid/core/huge_page_allocator.hpp"
#include "braid/core/lookup_context.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/scheduler.hpp"
#include "braid/core/task.hpp"
#include "braid/core/wrapped.hpp"
#include "braid/index/technique.hpp"

namespace braid {

// An IN-predicate's set of matching codes, a bit per dictionary code; on 2 MiB pages when
// large (the scan probes it at random: on 4 KiB pages nearly every probe was a page walk).
using code_bitmap = std::vector<std::uint64_t, huge_page_allocator<std::uint64_t>>;

// How an IN-predicate locates its list in each fragment's dictionary.
struct in_predicate_options {
  technique main_locate = technique::naive;
  technique delta_locate = technique::naive;
  std::size_t group = 16;  // lookups in flight for the interleaved techniques, >= 1
};

// The fragment sizes and the rows an IN-predicate counted in each.
struct in_predicate_result {
  std::size_t main_rows = 0;
  std::size_t delta_rows = 0;
  [[nodiscard]] std::size_t total() const noexcept { return main_rows + delta_rows; }
};

// A column read elided with wrapped<T> (the interleaving thesis's manual elision): the
// fragment's nested task itself, whose key converts to a value; one way per key type a
// column stores.
using column_read = wrapped<value, task<std::int32_t>, task<std::int64_t>, task<std::string>>;

class column {
 public:
  virtual ~column() = default;

  [[nodiscard]] virtual const column_spec& spec() const noexcept = 0;
  [[nodiscard]] virtual std::size_t size() const noexcept = 0;
  [[nodiscard]] virtual std::size_t main_size() const noexcept = 0;
  [[nodiscard]] virtual std::size_t delta_size() const noexcept = 0;
  [[nodiscard]] virtual std::size_t main_dictionary_size() const noexcept = 0;
  [[nodiscard]] virtual std::size_t delta_dictionary_size() const noexcept = 0;

  // Throws std::invalid_argument naming the column and the value if one does not fit the
  // type; then nothing is appended.
  virtual void append(std::span<const value> values) = 0;
  virtual void merge() = 0;
  // Drops the rows from `rows` on; precondition: main_size() <= rows <= size(). Undoes an
  // append (the table's all-or-nothing load across columns).
  virtual void truncate(std::size_t rows) = 0;

  // Precondition of the get family: row < size().
  [[nodiscard]] virtual value get(std::size_t row) const = 0;
  [[nodiscard]] virtual task<value> get_task(std::size_t row) const = 0;
  [[nodiscard]] virtual task<value> get_nested(std::size_t row) const = 0;
  [[nodiscard]] virtual coro<value> get_flat(std::size_t row) const = 0;
  // get_flat storing into `out` (an integer in place, a text into its reused capacity): no
  // result in the frame, none to hand over. `out` must outlive the coro.
  [[nodiscard]] virtual coro<void> get_flat_into(std::size_t row, value& out) const = 0;
  // get into a value the caller reuses (a text column writes into its text's capacity).
  virtual void get_into(std::size_t row, value& out) const { out = get(row); }
  // The nested form with every frame from `context`'s arena (the thesis's column_t::get(context,
  // row)), and the same with this column-level task elided: awaiting the column_read awaits
  // the fragment's task directly. Await a column_read inside a task<>.
  [[nodiscard]] virtual task<value> get_nested(lookup_context& context, std::size_t row) const = 0;
  [[nodiscard]] virtual column_read get_wrapped(lookup_context& context, std::size_t row) const = 0;

  // The first row holding `v`, or nullopt.
  [[nodiscard]] virtual std::optional<std::size_t> find_first(value v) const = 0;
  // Builds the code -> first row maps and keeps them through append, truncate and merge, so
  // find_first costs O(log d). Idempotent. Strong guarantee (std::bad_alloc leaves it unindexed).
  virtual void index_first_rows() = 0;
  [[nodiscard]] virtual bool indexes_first_rows() const noexcept = 0;
  // The maps' bytes: a word per distinct value of each fragment, 0 when not indexed.
  [[nodiscard]] virtual std::size_t first_row_index_bytes() const noexcept = 0;

  // Throws std::invalid_argument for a group of 0 or a technique a fragment lacks.
  [[nodiscard]] virtual in_predicate_result count_in(std::span<const value> list, const in_predicate_options& options) const = 0;
};

// Throws std::invalid_argument for an unusable spec (decimal precision out of 1..18, ...).
std::unique_ptr<column> make_column(const column_spec& spec);

namespace detail {

// Sets bit `code` for every located code.
template <class Code>
void set_located(code_bitmap& bitmap, std::span<const std::optional<Code>> located) {
  for (const auto& code : located) {
    if (code) bitmap[*code / 64] |= std::uint64_t{1} << (*code % 64);
  }
}

inline bool bit_set(const code_bitmap& bitmap, std::uint32_t code) noexcept {
  return (bitmap[code / 64] >> (code % 64)) & 1;
}

// The scan phase: how many of `codes` are set in `bitmap` (Main's bit-packed codes, Delta's plain ones).
inline std::size_t count_set(const bit_packed_vector& codes, const code_bitmap& bitmap) {
  std::size_t count = 0;
  codes.for_each(0, codes.size(), [&](std::uint32_t code) { count += bit_set(bitmap, code); });
  return count;
}
inline std::size_t count_set(std::span<const std::uint32_t> codes, const code_bitmap& bitmap) {
  std::size_t count = 0;
  for (const std::uint32_t code : codes) count += bit_set(bitmap, code);
  return count;
}

// The bitmap over a dictionary of `dictionary_size` codes of what `locate` finds for `keys` keys.
template <class Code, class Locate>
[[nodiscard]] code_bitmap located_bitmap(std::size_t keys, std::size_t dictionary_size, Locate&& locate) {
  std::vector<std::optional<Code>> located(keys);
  locate(std::span<std::optional<Code>>(located));
  code_bitmap bitmap(dictionary_size / 64 + 1, 0);
  set_located<Code>(bitmap, located);
  return bitmap;
}

// What a column over a Main and a Delta fragment has whatever its value type: the spec and the
// fragments, their sizes, the interleaved get forms (each the fragment's own coroutine: one
// frame for get_task and get_flat, a task per helper for get_nested, with its frames from a
// lookup_context when given one, and get_wrapped handing that chain on with no frame of its
// own), the first row holding a value (with the first-row maps when indexed), and the
// IN-predicate's scans. A column type calls the first_rows_* hooks around its writes.
template <class Main, class Delta>
class fragmented_column : public column {
 public:
  [[nodiscard]] const column_spec& spec() const noexcept override { return spec_; }
  [[nodiscard]] std::size_t size() const noexcept override { return main_.size() + delta_.size(); }
  [[nodiscard]] std::size_t main_size() const noexcept override { return main_.size(); }
  [[nodiscard]] std::size_t delta_size() const noexcept override { return delta_.size(); }
  [[nodiscard]] std::size_t main_dictionary_size() const noexcept override { return main_.dictionary_size(); }
  [[nodiscard]] std::size_t delta_dictionary_size() const noexcept override { return delta_.dictionary_size(); }
  [[nodiscard]] const Main& main() const noexcept { return main_; }
  [[nodiscard]] const Delta& delta() const noexcept { return delta_; }

  void index_first_rows() override {
    if (indexed_) return;
    std::vector<std::size_t> main_rows = first_rows_of(main_);
    std::vector<std::size_t> delta_rows(delta_.dictionary_size(), no_row);
    note_first_rows(delta_rows, delta_.codes(), 0);
    main_first_rows_ = std::move(main_rows);
    delta_first_rows_ = std::move(delta_rows);
    indexed_ = true;
  }
  [[nodiscard]] bool indexes_first_rows() const noexcept override { return indexed_; }
  [[nodiscard]] std::size_t first_row_index_bytes() const noexcept override {
    return (main_first_rows_.size() + delta_first_rows_.size()) * sizeof(std::size_t);
  }

  [[nodiscard]] task<value> get_task(std::size_t row) const override {
    if (row < main_.size()) return main_.template read<interleaved, task<value>>(row);
    return delta_.template read<interleaved, task<value>>(row - main_.size());
  }
  [[nodiscard]] coro<value> get_flat(std::size_t row) const override {
    if (row < main_.size()) return main_.template read<interleaved, coro<value>>(row);
    return delta_.template read<interleaved, coro<value>>(row - main_.size());
  }
  [[nodiscard]] coro<void> get_flat_into(std::size_t row, value& out) const override {
    if (row < main_.size()) return main_.template read_into<interleaved>(row, read_target(out));
    return delta_.template read_into<interleaved>(row - main_.size(), read_target(out));
  }
  // The nested form: this task awaits the fragment's get_nested, which awaits a task per helper.
  [[nodiscard]] task<value> get_nested(std::size_t row) const override {
    if (row < main_.size()) co_return co_await main_.template get_nested<interleaved>(row);
    co_return co_await delta_.template get_nested<interleaved>(row - main_.size());
  }
  [[nodiscard]] task<value> get_nested(lookup_context& context, std::size_t row) const override {
    if (row < main_.size()) co_return co_await main_.template get_nested<interleaved>(row, context);
    co_return co_await delta_.template get_nested<interleaved>(row - main_.size(), context);
  }
  // No frame: the fragment's chain is handed to the awaiting task as it is.
  [[nodiscard]] column_read get_wrapped(lookup_context& context, std::size_t row) const override {
    if (row < main_.size()) return main_.template get_nested<interleaved>(row, context);
    return delta_.template get_nested<interleaved>(row - main_.size(), context);
  }

  // Scan phase: the rows whose code is set in `bitmap`.
  [[nodiscard]] std::size_t scan_main(const code_bitmap& bitmap) const {
    return count_set(main_.codes(), bitmap);
  }
  [[nodiscard]] std::size_t scan_delta(const code_bitmap& bitmap) const {
    return count_set(delta_.codes(), bitmap);
  }

 protected:
  fragmented_column(column_spec spec, Main main, Delta delta)
      : spec_(std::move(spec)), main_(std::move(main)), delta_(std::move(delta)) {}

  // The first row holding `key` (Main's rows first), or nullopt: through the first-row maps
  // when indexed (a code no row holds maps to no_row), else by scanning each fragment's codes.
  template <class Key>
  [[nodiscard]] std::optional<std::size_t> first_row_of(const Key& key) const {
    if (indexed_) {
      if (const auto code = main_.locate(key); code && main_first_rows_[*code] != no_row) return main_first_rows_[*code];
      if (const auto code = delta_.locate(key); code && delta_first_rows_[*code] != no_row) {
        return main_.size() + delta_first_rows_[*code];
      }
      return std::nullopt;
    }
    if (const auto code = main_.locate(key)) {
      for (std::size_t row = 0; row < main_.size(); ++row) {
        if (main_.codes()[row] == *code) return row;
      }
    }
    if (const auto code = delta_.locate(key)) {
      const auto codes = delta_.codes();
      for (std::size_t row = 0; row < codes.size(); ++row) {
        if (codes[row] == *code) return main_.size() + row;
      }
    }
    return std::nullopt;
  }

  // ---- the first-row maps' upkeep, called by the column types' writes -------------------------
  // Before the Delta grows by `rows` rows: room for every code they can add, so that
  // first_rows_appended cannot fail once the Delta has grown.
  void first_rows_reserve(std::size_t rows) {
    if (indexed_) delta_first_rows_.reserve(delta_.dictionary_size() + rows);
  }
  // After the Delta grew from `old_rows` rows (with first_rows_reserve before): the first row
  // of every code the new rows hold that had none.
  void first_rows_appended(std::size_t old_rows) noexcept {
    if (!indexed_) return;
    delta_first_rows_.resize(delta_.dictionary_size(), no_row);  // within the reserved capacity
    note_first_rows(delta_first_rows_, delta_.codes(), old_rows);
  }
  // After the Delta was cut: the codes it dropped go (arrival order: the last ones), and a code
  // it kept whose first row was cut has none (not so in an arrival-order Delta: a kept code is
  // held by a kept row, so its first row is kept too).
  void first_rows_truncated() noexcept {
    if (!indexed_) return;
    delta_first_rows_.resize(std::min(delta_first_rows_.size(), delta_.dictionary_size()));
    for (std::size_t& first : delta_first_rows_) {
      if (first != no_row && first >= delta_.size()) first = no_row;
    }
  }
  // A merge's commit: `merged` (all rows) becomes Main, the Delta empties. The new Main's map
  // is built before anything changes.
  void replace_main(Main merged) {
    std::vector<std::size_t> main_rows = indexed_ ? first_rows_of(merged) : std::vector<std::size_t>{};
    main_ = std::move(merged);
    delta_.clear();
    main_first_rows_ = std::move(main_rows);
    delta_first_rows_.clear();
  }

  column_spec spec_;
  Main main_;
  Delta delta_;

 private:
  // What a fragment's read_into stores into: the value itself, or a text column's string.
  static auto& read_target(value& out) {
    if constexpr (std::is_same_v<typename Main::value_type, std::string>) {
      return out.text_to_fill();
    } else {
      return out;
    }
  }

  static constexpr std::size_t no_row = SIZE_MAX;

  // Code -> first row of `main` (no_row for a code no row holds).
  [[nodiscard]] static std::vector<std::size_t> first_rows_of(const Main& main) {
    std::vector<std::size_t> first_rows(main.dictionary_size(), no_row);
    std::size_t row = 0;
    main.codes().for_each(0, main.size(), [&](std::uint32_t code) {
      if (first_rows[code] == no_row) first_rows[code] = row;
      ++row;
    });
    return first_rows;
  }
  // Sets the first row of each code of codes[from, end) that has none. Precondition: every
  // code < first_rows.size().
  static void note_first_rows(std::vector<std::size_t>& first_rows, std::span<const std::uint32_t> codes, std::size_t from) noexcept {
    for (std::size_t row = from; row < codes.size(); ++row) {
      if (first_rows[codes[row]] == no_row) first_rows[codes[row]] = row;
    }
  }

  bool indexed_ = false;
  std::vector<std::size_t> main_first_rows_;   // Main code -> first row, when indexed_
  std::vector<std::size_t> delta_first_rows_;  // Delta code -> first Delta row, when indexed_
};

}  // namespace detail

template <class Key>
class typed_column final : public detail::fragmented_column<main_fragment<Key>, delta_fragment<Key>> {
  using base = detail::fragmented_column<main_fragment<Key>, delta_fragment<Key>>;
  using base::delta_;
  using base::main_;
  using base::spec_;

 public:
  using base::size;
 public:
  explicit typed_column(column_spec spec) : base(std::move(spec), {}, {}) {}
  // A column over prebuilt fragments (a benchmark's large data); the spec is not checked
  // against their values.
  typed_column(column_spec spec, main_fragment<Key> main, delta_fragment<Key> delta)
      : base(std::move(spec), std::move(main), std::move(delta)) {}

  void append(std::span<const value> values) override {
    std::vector<Key> keys(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (!fits(spec_, values[i])) {
        throw std::invalid_argument("column '" + spec_.name + "': " + values[i].to_string() + " does not fit " +
                                    to_string(spec_));
      }
      keys[i] = static_cast<Key>(values[i].integer());
    }
    this->first_rows_reserve(keys.size());
    const std::size_t old_rows = delta_.size();
    delta_.append(keys);
    this->first_rows_appended(old_rows);
  }

  void merge() override {
    if (delta_.size() == 0) return;
    std::vector<Key> rows(size());
    for (std::size_t row = 0; row < main_.size(); ++row) rows[row] = main_.get(row);
    for (std::size_t row = 0; row < delta_.size(); ++row) rows[main_.size() + row] = delta_.get(row);
    this->replace_main(main_fragment<Key>{std::span<const Key>(rows)});
  }

  void truncate(std::size_t rows) override {
    if (rows < main_.size() || rows > size()) {
      throw std::invalid_argument("column '" + spec_.name + "': truncate to " + std::to_string(rows) + " rows outside [" +
                                  std::to_string(main_.size()) + ", " + std::to_string(size()) + "]");
    }
    delta_.truncate(rows - main_.size());
    this->first_rows_truncated();
  }

  [[nodiscard]] value get(std::size_t row) const override { return key_at(row); }
  // The integer stored into `out` without building a value first.
  void get_into(std::size_t row, value& out) const override { out = key_at(row); }

  [[nodiscard]] std::optional<std::size_t> find_first(value v) const override {
    if (!fits(spec_, v)) return std::nullopt;
    return this->first_row_of(static_cast<Key>(v.integer()));
  }

  [[nodiscard]] in_predicate_result count_in(std::span<const value> list, const in_predicate_options& options) const override {
    const std::vector<Key> keys = in_range(list);
    in_predicate_result result;  // both phases run on empty fragments too: the checks do not depend on the data
    result.main_rows = count_main(keys, options.main_locate, options.group);
    result.delta_rows = count_delta(keys, options.delta_locate, options.group);
    return result;
  }

  // ---- the phases, public for the benchmark -----------------------------------------------------
  // The list values this column's type can hold (the others match no row).
  [[nodiscard]] std::vector<Key> in_range(std::span<const value> list) const {
    std::vector<Key> keys;
    keys.reserve(list.size());
    for (const value& v : list) {
      if (fits(spec_, v)) keys.push_back(static_cast<Key>(v.integer()));
    }
    return keys;
  }
  // Locate phase on Main: the dictionary position of each of `keys` (nullopt: absent).
  void locate_main_codes(std::span<const Key> keys, std::span<std::optional<std::size_t>> located, technique how,
                         std::size_t group) const {
    main_.dictionary().multi_find(keys, located, how, group);
  }
  void locate_delta_codes(std::span<const Key> keys, std::span<std::optional<std::uint32_t>> located, technique how,
                          std::size_t group) const {
    delta_.index().multi_find(keys, located, how, group);
  }
  // The same, then a bitmap over the fragment's dictionary of the located codes.
  [[nodiscard]] code_bitmap locate_main(std::span<const Key> keys, technique how, std::size_t group) const {
    return detail::located_bitmap<std::size_t>(keys.size(), main_.dictionary_size(),
                                               [&](auto located) { locate_main_codes(keys, located, how, group); });
  }
  [[nodiscard]] code_bitmap locate_delta(std::span<const Key> keys, technique how, std::size_t group) const {
    return detail::located_bitmap<std::uint32_t>(keys.size(), delta_.dictionary_size(),
                                                 [&](auto located) { locate_delta_codes(keys, located, how, group); });
  }

 private:
  std::size_t count_main(std::span<const Key> keys, technique how, std::size_t group) const {
    return this->scan_main(locate_main(keys, how, group));
  }
  std::size_t count_delta(std::span<const Key> keys, technique how, std::size_t group) const {
    return this->scan_delta(locate_delta(keys, how, group));
  }

  [[nodiscard]] Key key_at(std::size_t row) const noexcept {
    return row < main_.size() ? main_.get(row) : delta_.get(row - main_.size());
  }
};

}  // namespace braid
