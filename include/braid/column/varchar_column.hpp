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
// coro, coro_nested, adaptive (string_dictionary); Delta naive, coro, adaptive (its sorted
// view); any other throws std::invalid_argument.
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

class varchar_column final : public column {
 public:
  // Throws std::invalid_argument unless `spec` is a varchar of a usable length.
  explicit varchar_column(column_spec spec) : spec_(std::move(spec)) {
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

  [[nodiscard]] const column_spec& spec() const noexcept override { return spec_; }
  [[nodiscard]] std::size_t size() const noexcept override { return main_.size() + delta_.size(); }
  [[nodiscard]] std::size_t main_size() const noexcept override { return main_.size(); }
  [[nodiscard]] std::size_t delta_size() const noexcept override { return delta_.size(); }
  [[nodiscard]] std::size_t main_dictionary_size() const noexcept override { return main_.dictionary_size(); }
  [[nodiscard]] std::size_t delta_dictionary_size() const noexcept override { return delta_.dictionary_size(); }
  [[nodiscard]] const varchar_main_fragment& main() const noexcept { return main_; }
  [[nodiscard]] const varchar_delta_fragment& delta() const noexcept { return delta_; }

  void append(std::span<const value> values) override {
    std::vector<std::string_view> texts(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (!fits(spec_, values[i])) {
        throw std::invalid_argument("column '" + spec_.name + "': '" + values[i].to_string() + "' does not fit " + to_string(spec_));
      }
      texts[i] = values[i].text();
    }
    delta_.append(texts);
  }

  void merge() override {
    if (delta_.size() == 0) return;
    std::vector<std::string> rows(size());
    for (std::size_t row = 0; row < main_.size(); ++row) main_.get_into(row, rows[row]);
    for (std::size_t row = 0; row < delta_.size(); ++row) delta_.get_into(row, rows[main_.size() + row]);
    const std::vector<std::string_view> views(rows.begin(), rows.end());
    main_ = varchar_main_fragment(views);
    delta_.clear();
  }

  void truncate(std::size_t rows) override {
    if (rows < main_.size() || rows > size()) {
      throw std::invalid_argument("varchar_column::truncate: " + std::to_string(rows) + " rows outside [" +
                                  std::to_string(main_.size()) + ", " + std::to_string(size()) + "]");
    }
    delta_.truncate(rows - main_.size());
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
  // One frame: the fragment's read written for this coroutine type.
  [[nodiscard]] task<value> get_task(std::size_t row) const override { return read<task<value>>(row); }
  [[nodiscard]] coro<value> get_flat(std::size_t row) const override { return read<coro<value>>(row); }
  // The nested form: this task awaits the fragment's get_nested, which awaits a task per helper.
  [[nodiscard]] task<value> get_nested(std::size_t row) const override {
    if (row < main_.size()) co_return co_await main_.get_nested<interleaved>(row);
    co_return co_await delta_.get_nested<interleaved>(row - main_.size());
  }
  [[nodiscard]] task<value> get_nested(lookup_context& context, std::size_t row) const override {
    if (row < main_.size()) co_return co_await main_.get_nested<interleaved>(row, context);
    co_return co_await delta_.get_nested<interleaved>(row - main_.size(), context);
  }
  // No frame: the fragment's chain is handed to the awaiting task as it is.
  [[nodiscard]] column_read get_wrapped(lookup_context& context, std::size_t row) const override {
    if (row < main_.size()) return main_.get_nested<interleaved>(row, context);
    return delta_.get_nested<interleaved>(row - main_.size(), context);
  }

  [[nodiscard]] std::optional<std::size_t> find_first(value v) const override {
    if (!fits(spec_, v)) return std::nullopt;
    if (const auto code = main_.locate(v.text())) {
      for (std::size_t row = 0; row < main_.size(); ++row) {
        if (main_.codes()[row] == *code) return row;
      }
    }
    if (const auto code = delta_.locate(v.text())) {
      const auto codes = delta_.codes();
      for (std::size_t row = 0; row < codes.size(); ++row) {
        if (codes[row] == *code) return main_.size() + row;
      }
    }
    return std::nullopt;
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
  [[nodiscard]] std::vector<std::uint64_t> locate_main(std::span<const std::string_view> texts, technique how,
                                                       std::size_t group) const {
    return located_bitmap(texts.size(), main_.dictionary_size(),
                          [&](auto located) { main_.dictionary().multi_find(texts, located, how, group); });
  }
  [[nodiscard]] std::vector<std::uint64_t> locate_delta(std::span<const std::string_view> texts, technique how,
                                                        std::size_t group) const {
    return located_bitmap(texts.size(), delta_.dictionary_size(),
                          [&](auto located) { delta_.multi_find(texts, located, how, group); });
  }
  [[nodiscard]] std::size_t scan_main(const std::vector<std::uint64_t>& bitmap) const {
    return detail::count_set(main_.codes(), bitmap);
  }
  [[nodiscard]] std::size_t scan_delta(const std::vector<std::uint64_t>& bitmap) const {
    return detail::count_set(delta_.codes(), bitmap);
  }

 private:
  template <class Locate>
  [[nodiscard]] static std::vector<std::uint64_t> located_bitmap(std::size_t texts, std::size_t dictionary_size, Locate&& locate) {
    return typed_column<std::int64_t>::located_bitmap<std::uint32_t>(texts, dictionary_size, std::forward<Locate>(locate));
  }

  template <class Operation>
  Operation read(std::size_t row) const {
    if (row < main_.size()) return main_.read<interleaved, Operation>(row);
    return delta_.read<interleaved, Operation>(row - main_.size());
  }

  column_spec spec_;
  varchar_main_fragment main_;
  varchar_delta_fragment delta_;
};

}  // namespace braid
