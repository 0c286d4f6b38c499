// varchar_column: a VARCHAR(n) column behind the polymorphic column interface — a
// varchar_main_fragment (front-coded sorted dictionary, bit-packed codes) and a
// varchar_delta_fragment (arrival-order dictionary, sorted view over codes), as
// braid::make_column returns it for a varchar spec.
//
//   braid::varchar_column names({"name", braid::column_type::varchar, 0, 0, 50});
//   names.append(values);                     // texts of at most 50 bytes, all or nothing
//   names.merge();                            // Main + Delta -> a new Main; every row kept
//   braid::value v = names.get(row);          // v.text()
//   names.count_in(list, {technique::coro, technique::coro, 16});
//
// Every get form (get, get_into, get_task, get_nested, get_flat; with a lookup_context,
// get_nested and get_wrapped, their frames from its arena) returns the same text. An
// IN-list's integers and texts longer than n match nothing. Locate techniques: Main naive,
// gp, amac, coro, coro_nested, adaptive (string_dictionary); Delta those its fragment's
// multi_find has (naive, coro, coro_nested, adaptive: string_code_tree); any other throws
// std::invalid_argument. find_first uses the first-row maps when told index_first_rows()
// (column.hpp).
//
// Complexity: as the fragments (varchar_fragments.hpp); merge O(n log d) string comparisons.
// Not thread-safe for writers; readers may share it between writes.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "braid/column/column.hpp"
#include "braid/column/varchar_fragments.hpp"

namespace braid {

class varchar_column final : public detail::fragmented_column<varchar_main_fragment, varchar_delta_fragment> {
 public:
  // Throws std::invalid_argument unless `spec` is a varchar of a usable length.
  explicit varchar_column(column_spec spec) : fragmented_column(std::move(spec), {}, {}) {
    if (spec_.type != column_type::varchar || spec_.length < 1 || spec_.length > max_varchar_length) {
      throw std::invalid_argument("varchar_column: column '" + spec_.name + "' is " + to_string(spec_) + ", not varchar(1.." +
                                  std::to_string(max_varchar_length) + ")");
    }
  }
  // A column over prebuilt fragments (a benchmark's large data); their strings are not checked
  // against the length.
  varchar_column(column_spec spec, varchar_main_fragment main, varchar_delta_fragment delta)
      : varchar_column(std::move(spec)) {
    main_ = std::move(main);
    delta_ = std::move(delta);
  }

  void append(std::span<const value> values) override {
    std::vector<std::string_view> texts(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (!fits(spec_, values[i])) {
        throw std::invalid_argument("column '" + spec_.name + "': '" + values[i].to_string() + "' does not fit " + to_string(spec_));
      }
      texts[i] = values[i].text();
    }
    first_rows_reserve(texts.size());
    const std::size_t old_rows = delta_.size();
    delta_.append(texts);
    first_rows_appended(old_rows);
  }

  void merge() override {
    if (delta_.size() == 0) return;
    std::vector<std::string> rows(size());
    for (std::size_t row = 0; row < main_.size(); ++row) main_.get_into(row, rows[row]);
    for (std::size_t row = 0; row < delta_.size(); ++row) delta_.get_into(row, rows[main_.size() + row]);
    const std::vector<std::string_view> views(rows.begin(), rows.end());
    replace_main(varchar_main_fragment(views));
  }

  void truncate(std::size_t rows) override {
    if (rows < main_.size() || rows > size()) {
      throw std::invalid_argument("varchar_column::truncate: " + std::to_string(rows) + " rows outside [" +
                                  std::to_string(main_.size()) + ", " + std::to_string(size()) + "]");
    }
    delta_.truncate(rows - main_.size());
    first_rows_truncated();
  }

  [[nodiscard]] value get(std::size_t row) const override {
    return row < main_.size() ? main_.get(row) : delta_.get(row - main_.size());
  }
  void get_into(std::size_t row, value& out) const override {
    if (row < main_.size()) {
      main_.get_into(row, out.text_to_fill());
    } else {
      delta_.get_into(row - main_.size(), out.text_to_fill());
    }
  }

  [[nodiscard]] std::optional<std::size_t> find_first(value v) const override {
    if (!fits(spec_, v)) return std::nullopt;
    return first_row_of(std::string_view(v.text()));
  }

  [[nodiscard]] in_predicate_result count_in(std::span<const value> list, const in_predicate_options& options) const override {
    const std::vector<std::string_view> texts = in_range(list);
    in_predicate_result result;
    result.main_rows = scan_main(locate_main(texts, options.main_locate, options.group));
    result.delta_rows = scan_delta(locate_delta(texts, options.delta_locate, options.group));
    return result;
  }

  // ---- the phases, public for the benchmark -----------------------------------------------------
  // The list's texts this column can hold (views into `list`).
  [[nodiscard]] std::vector<std::string_view> in_range(std::span<const value> list) const {
    std::vector<std::string_view> texts;
    texts.reserve(list.size());
    for (const value& v : list) {
      if (fits(spec_, v)) texts.push_back(v.text());
    }
    return texts;
  }
  [[nodiscard]] code_bitmap locate_main(std::span<const std::string_view> texts, technique how,
                                                       std::size_t group) const {
    return detail::located_bitmap<std::uint32_t>(texts.size(), main_.dictionary_size(),
                                                 [&](auto located) { main_.dictionary().multi_find(texts, located, how, group); });
  }
  [[nodiscard]] code_bitmap locate_delta(std::span<const std::string_view> texts, technique how,
                                                        std::size_t group) const {
    return detail::located_bitmap<std::uint32_t>(texts.size(), delta_.dictionary_size(),
                                                 [&](auto located) { delta_.multi_find(texts, located, how, group); });
  }
};

}  // namespace braid
