#include "braid/query/table.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>
#include <numeric>
#include <stdexcept>

namespace braid::query {
namespace {

constexpr std::size_t line_bytes = 64;

std::size_t round_up_to_line(std::size_t bytes) noexcept { return (bytes + line_bytes - 1) / line_bytes * line_bytes; }

bool is_narrow(value_kind kind) noexcept { return kind == value_kind::date || kind == value_kind::text; }

const char* kind_name(value_kind kind) noexcept {
  switch (kind) {
    case value_kind::integer:
      return "integer";
    case value_kind::decimal:
      return "decimal";
    case value_kind::date:
      return "date";
    case value_kind::text:
      return "text";
  }
  return "unknown";
}

void check_tuples_per_fragment(const std::string& table_name, std::size_t tuples) {
  if (tuples < table::min_tuples_per_fragment || tuples > table::max_tuples_per_fragment) {
    throw std::invalid_argument("table " + table_name + ": tuples per fragment " + std::to_string(tuples) +
                                " outside [" + std::to_string(table::min_tuples_per_fragment) + ", " +
                                std::to_string(table::max_tuples_per_fragment) + "]");
  }
}

// Why a cell cannot go into a column of this type, or nullptr when it can.
const char* cell_problem(const cell& value, column_type type) {
  if (value.kind != type.kind) return "kind differs from the column's";
  switch (type.kind) {
    case value_kind::integer:
      if (value.number < std::numeric_limits<std::int64_t>::min() || value.number > std::numeric_limits<std::int64_t>::max())
        return "integer outside int64";
      return nullptr;
    case value_kind::decimal:
      if (value.scale != type.scale) return "decimal scale differs from the column's";
      if (value.number < std::numeric_limits<std::int64_t>::min() || value.number > std::numeric_limits<std::int64_t>::max())
        return "decimal outside int64";
      return nullptr;
    case value_kind::date:
      if (value.number < std::numeric_limits<std::int32_t>::min() || value.number > std::numeric_limits<std::int32_t>::max())
        return "date outside int32 days";
      return nullptr;
    case value_kind::text:
      return nullptr;
  }
  return "unknown kind";
}

}  // namespace

std::size_t width_of(column_type type) noexcept { return is_narrow(type.kind) ? 4 : 8; }

// ---- text_dictionary ----

text_dictionary::text_dictionary(std::vector<std::string> sorted_distinct) : values_(std::move(sorted_distinct)) {
  if (values_.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw std::invalid_argument("text_dictionary: more distinct values than 32-bit codes");
  }
  for (std::size_t i = 1; i < values_.size(); ++i) {
    if (!(values_[i - 1] < values_[i])) {
      throw std::invalid_argument("text_dictionary: values not sorted and distinct at position " + std::to_string(i));
    }
  }
}

std::optional<std::uint32_t> text_dictionary::code_of(std::string_view value) const {
  const std::uint32_t code = lower_bound(value);
  if (code < values_.size() && values_[code] == value) return code;
  return std::nullopt;
}

std::uint32_t text_dictionary::lower_bound(std::string_view value) const {
  const auto it = std::lower_bound(values_.begin(), values_.end(), value,
                                   [](const std::string& a, std::string_view b) { return std::string_view(a) < b; });
  return static_cast<std::uint32_t>(it - values_.begin());
}

// ---- table ----

std::size_t table::column_index(std::string_view column) const {
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (columns_[c].name == column) return c;
  }
  throw std::invalid_argument("table " + name_ + " has no column " + std::string(column));
}

const text_dictionary& table::dictionary(std::size_t column) const {
  if (column >= columns_.size()) {
    throw std::invalid_argument("table " + name_ + ": no column " + std::to_string(column) + " (it has " +
                                std::to_string(columns_.size()) + ")");
  }
  if (columns_[column].type.kind != value_kind::text) {
    throw std::invalid_argument("table " + name_ + ": column " + columns_[column].name + " is " +
                                kind_name(columns_[column].type.kind) + ", not text: it has no dictionary");
  }
  return dictionaries_[column];
}

cell table::at(std::uint64_t row, std::size_t column) const {
  if (row >= rows_) {
    throw std::invalid_argument("table " + name_ + ": row " + std::to_string(row) + " of " + std::to_string(rows_));
  }
  if (column >= columns_.size()) {
    throw std::invalid_argument("table " + name_ + ": no column " + std::to_string(column) + " (it has " +
                                std::to_string(columns_.size()) + ")");
  }
  const std::size_t f = static_cast<std::size_t>(row / tuples_per_fragment_);
  const std::size_t i = static_cast<std::size_t>(row % tuples_per_fragment_);
  const column_type type = columns_[column].type;
  switch (type.kind) {
    case value_kind::integer:
      return cell::integer(column_data<std::int64_t>(f, column)[i]);
    case value_kind::decimal:
      return cell::decimal(column_data<std::int64_t>(f, column)[i], type.scale);
    case value_kind::date:
      return cell::date(column_data<std::int32_t>(f, column)[i]);
    case value_kind::text:
      return cell::text(std::string(dictionaries_[column].text(column_data<std::uint32_t>(f, column)[i])));
  }
  throw std::logic_error("table: a column of unknown kind");
}

table table::laid_out(std::string name, std::vector<column_spec> columns, std::vector<text_dictionary> dictionaries,
                      std::uint64_t rows, std::size_t tuples, const void* source, column_filler fill) {
  check_tuples_per_fragment(name, tuples);
  table out;
  out.name_ = std::move(name);
  out.columns_ = std::move(columns);
  out.dictionaries_ = std::move(dictionaries);
  out.rows_ = rows;
  out.tuples_per_fragment_ = tuples;
  // Header line, then each column's array on its own lines.
  std::size_t offset = sizeof(fragment_header);
  for (const column_spec& column : out.columns_) {
    out.offsets_.push_back(offset);
    offset += round_up_to_line(tuples * width_of(column.type));
  }
  out.fragment_bytes_ = offset;
  out.fragment_count_ = static_cast<std::size_t>((rows + tuples - 1) / tuples);
  if (out.fragment_count_ == 0) return out;
  out.memory_ = huge_buffer(out.fragment_count_ * out.fragment_bytes_, page_size::huge_2m, true);
  for (std::size_t f = 0; f < out.fragment_count_; ++f) {
    const std::uint64_t first = static_cast<std::uint64_t>(f) * tuples;
    const auto count = static_cast<std::size_t>(std::min<std::uint64_t>(tuples, rows - first));
    std::byte* start = out.memory_.data() + f * out.fragment_bytes_;
    auto* header = new (start) fragment_header{};
    header->tuples = static_cast<std::uint32_t>(count);
    header->index = static_cast<std::uint32_t>(f);
    header->first_row = first;
    for (std::size_t c = 0; c < out.columns_.size(); ++c) fill(source, c, first, count, start + out.offsets_[c]);
  }
  return out;
}

table table::with_tuples_per_fragment(std::size_t tuples) const {
  const auto copy_rows = [](const void* source, std::size_t column, std::uint64_t first, std::size_t count,
                            std::byte* into) {
    const auto& from = *static_cast<const table*>(source);
    const std::size_t width = width_of(from.columns_[column].type);
    while (count > 0) {
      const auto f = static_cast<std::size_t>(first / from.tuples_per_fragment_);
      const auto i = static_cast<std::size_t>(first % from.tuples_per_fragment_);
      const std::size_t run = std::min<std::size_t>(count, from.header(f).tuples - i);
      std::memcpy(into, from.fragment(f) + from.offsets_[column] + i * width, run * width);
      into += run * width;
      first += run;
      count -= run;
    }
  };
  return laid_out(name_, columns_, dictionaries_, rows_, tuples, this, copy_rows);
}

// ---- table_builder ----

table_builder::table_builder(std::string name, std::vector<column_spec> columns)
    : name_(std::move(name)), columns_(std::move(columns)), values_(columns_.size()) {
  if (columns_.empty()) throw std::invalid_argument("table_builder " + name_ + ": no columns");
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const column_spec& column = columns_[c];
    if (column.name.empty()) throw std::invalid_argument("table_builder " + name_ + ": column " + std::to_string(c) + " has no name");
    for (std::size_t earlier = 0; earlier < c; ++earlier) {
      if (columns_[earlier].name == column.name) {
        throw std::invalid_argument("table_builder " + name_ + ": column " + column.name + " appears twice");
      }
    }
    if (column.type.kind != value_kind::integer && column.type.kind != value_kind::decimal &&
        column.type.kind != value_kind::date && column.type.kind != value_kind::text) {
      throw std::invalid_argument("table_builder " + name_ + ": column " + column.name + " has an unknown kind");
    }
    if (column.type.kind == value_kind::decimal && column.type.scale > 18) {
      throw std::invalid_argument("table_builder " + name_ + ": column " + column.name + " has scale " +
                                  std::to_string(column.type.scale) + ", above 18");
    }
    if (column.type.kind != value_kind::decimal && column.type.scale != 0) {
      throw std::invalid_argument("table_builder " + name_ + ": column " + column.name + " is " +
                                  kind_name(column.type.kind) + " but has a scale");
    }
  }
}

std::uint32_t table_builder::intern(column_values& column, std::string_view text) {
  if (const auto found = column.interned.find(text); found != column.interned.end()) return found->second;
  if (column.interned.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw std::invalid_argument("table_builder " + name_ + ": more distinct texts than 32-bit codes");
  }
  const auto code = static_cast<std::uint32_t>(column.interned.size());
  column.interned.emplace(std::string(text), code);
  return code;
}

void table_builder::drop_partial_row() noexcept {
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    std::vector<std::int64_t>& wide = values_[c].wide;
    std::vector<std::uint32_t>& narrow = values_[c].narrow;
    if (wide.size() > rows_) wide.resize(static_cast<std::size_t>(rows_));
    if (narrow.size() > rows_) narrow.resize(static_cast<std::size_t>(rows_));
  }
}

void table_builder::append_row(std::span<const cell> values) {
  if (values.size() != columns_.size()) {
    throw std::invalid_argument("table_builder " + name_ + ": a row of " + std::to_string(values.size()) +
                                " values for " + std::to_string(columns_.size()) + " columns");
  }
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (const char* problem = cell_problem(values[c], columns_[c].type)) {
      throw std::invalid_argument("table_builder " + name_ + ": column " + columns_[c].name + " (" +
                                  kind_name(columns_[c].type.kind) + "): " + problem);
    }
  }
  try {
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const cell& value = values[c];
      switch (columns_[c].type.kind) {
        case value_kind::integer:
        case value_kind::decimal:
          values_[c].wide.push_back(static_cast<std::int64_t>(value.number));
          break;
        case value_kind::date:
          values_[c].narrow.push_back(static_cast<std::uint32_t>(static_cast<std::int32_t>(value.number)));
          break;
        case value_kind::text:
          values_[c].narrow.push_back(intern(values_[c], value.string));
          break;
      }
    }
  } catch (...) {
    drop_partial_row();
    throw;
  }
  ++rows_;
}

void table_builder::append_raw(std::span<const raw_value> values) {
  if (values.size() != columns_.size()) {
    throw std::invalid_argument("table_builder " + name_ + ": a row of " + std::to_string(values.size()) +
                                " values for " + std::to_string(columns_.size()) + " columns");
  }
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (columns_[c].type.kind == value_kind::date &&
        (values[c].number < std::numeric_limits<std::int32_t>::min() ||
         values[c].number > std::numeric_limits<std::int32_t>::max())) {
      throw std::invalid_argument("table_builder " + name_ + ": column " + columns_[c].name + ": date outside int32 days");
    }
  }
  try {
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const raw_value& value = values[c];
      switch (columns_[c].type.kind) {
        case value_kind::integer:
        case value_kind::decimal:
          values_[c].wide.push_back(value.number);
          break;
        case value_kind::date:
          values_[c].narrow.push_back(static_cast<std::uint32_t>(static_cast<std::int32_t>(value.number)));
          break;
        case value_kind::text:
          values_[c].narrow.push_back(intern(values_[c], value.text));
          break;
      }
    }
  } catch (...) {
    drop_partial_row();
    throw;
  }
  ++rows_;
}

void table_builder::fill_from_builder(const void* source, std::size_t column, std::uint64_t first, std::size_t count,
                                      std::byte* into) {
  const column_values& values = static_cast<const table_builder*>(source)->values_[column];
  const auto start = static_cast<std::size_t>(first);
  if (values.wide.empty()) {  // a date or text column (every column holds rows_ > 0 values here)
    std::memcpy(into, values.narrow.data() + start, count * sizeof(std::uint32_t));
  } else {
    std::memcpy(into, values.wide.data() + start, count * sizeof(std::int64_t));
  }
}

table table_builder::finish(std::size_t tuples_per_fragment) && {
  check_tuples_per_fragment(name_, tuples_per_fragment);
  std::vector<text_dictionary> dictionaries(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (columns_[c].type.kind != value_kind::text) continue;
    column_values& column = values_[c];
    // The distinct texts by temporary code, then their sorted order, then codes by that order.
    std::vector<std::string> by_code(column.interned.size());
    for (auto it = column.interned.begin(); it != column.interned.end();) {
      auto node = column.interned.extract(it++);
      by_code[node.mapped()] = std::move(node.key());
    }
    std::vector<std::uint32_t> order(by_code.size());
    std::iota(order.begin(), order.end(), std::uint32_t{0});
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return by_code[a] < by_code[b]; });
    std::vector<std::uint32_t> final_code(by_code.size());
    std::vector<std::string> sorted;
    sorted.reserve(by_code.size());
    for (std::size_t rank = 0; rank < order.size(); ++rank) {
      final_code[order[rank]] = static_cast<std::uint32_t>(rank);
      sorted.push_back(std::move(by_code[order[rank]]));
    }
    for (std::uint32_t& code : column.narrow) code = final_code[code];
    dictionaries[c] = text_dictionary(std::move(sorted));
  }
  table out = table::laid_out(std::move(name_), std::move(columns_), std::move(dictionaries), rows_,
                              tuples_per_fragment, this, fill_from_builder);
  values_.clear();
  rows_ = 0;
  return out;
}

}  // namespace braid::query
