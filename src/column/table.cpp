#include "braid/column/table.hpp"

#include <algorithm>
#include <fstream>
#include <istream>
#include <random>
#include <utility>

#include "braid/core/context_scheduler.hpp"
#include "braid/core/scheduler.hpp"

namespace braid {

std::string_view to_string(reconstruction how) noexcept {
  switch (how) {
    case reconstruction::naive: return "naive";
    case reconstruction::nested: return "nested";
    case reconstruction::elided: return "elided";
    case reconstruction::flat: return "flat";
    case reconstruction::context: return "context";
    case reconstruction::wrapped: return "wrapped";
  }
  return "?";
}

reconstruction parse_reconstruction(std::string_view name) {
  for (reconstruction how : {reconstruction::naive, reconstruction::nested, reconstruction::elided, reconstruction::flat,
                             reconstruction::context, reconstruction::wrapped}) {
    if (to_string(how) == name) return how;
  }
  throw std::invalid_argument("unknown reconstruction '" + std::string(name) +
                              "' (naive, nested, elided, flat, context, wrapped)");
}

namespace {

// The roots of the context forms: one column's read, every frame from `context`'s arena.
task<value> read_nested(const column& c, lookup_context& context, std::size_t row) {
  co_return co_await c.get_nested(context, row);
}
task<value> read_wrapped(const column& c, lookup_context& context, std::size_t row) {
  co_return co_await c.get_wrapped(context, row);
}

bool is_context_form(reconstruction how) noexcept {
  return how == reconstruction::context || how == reconstruction::wrapped;
}

}  // namespace

std::size_t arena_bytes_per_read(const column& c, reconstruction how, std::size_t row) {
  if (!is_context_form(how)) {
    throw std::invalid_argument("arena_bytes_per_read: " + std::string(to_string(how)) + " takes no context");
  }
  if (row >= c.size()) throw std::invalid_argument("arena_bytes_per_read: row " + std::to_string(row) + " of " + std::to_string(c.size()));
  lookup_context context(reconstruction_arena_bytes);
  {
    task<value> root = how == reconstruction::context ? read_nested(c, context, row) : read_wrapped(c, context, row);
    root.resume();
    while (!root.done()) root.resume();
  }  // the frames are gone; the arena is append-only, so its use is every frame the read took
  if (context.fallbacks() != 0) throw std::length_error("arena_bytes_per_read: a read outgrew reconstruction_arena_bytes");
  const std::size_t bytes = context.used_bytes();
  context.reset();
  return bytes;
}

table::table(column_schema schema) : schema_(std::move(schema)) {
  schema_.check();
  for (const column_spec& spec : schema_.columns) columns_.push_back(make_column(spec));
  columns_[schema_.key]->index_first_rows();
}

table::table(column_schema schema, std::vector<std::unique_ptr<column>> columns)
    : schema_(std::move(schema)), columns_(std::move(columns)) {
  schema_.check();
  if (columns_.size() != schema_.columns.size()) throw std::invalid_argument("table: one column per schema entry");
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const column_spec& spec = columns_[c]->spec();
    const column_spec& wanted = schema_.columns[c];
    if (spec.name != wanted.name || spec.type != wanted.type || spec.precision != wanted.precision ||
        spec.scale != wanted.scale || spec.length != wanted.length) {
      throw std::invalid_argument("table: column " + std::to_string(c) + " is not " + wanted.name + ":" + to_string(wanted));
    }
    if (columns_[c]->size() != columns_[0]->size()) throw std::invalid_argument("table: columns of different lengths");
  }
  columns_[schema_.key]->index_first_rows();
}

void table::append_columns(const std::vector<std::vector<value>>& values) {
  if (values.size() != columns_.size()) {
    throw std::invalid_argument("table::append_columns: " + std::to_string(values.size()) + " columns for a table of " +
                                std::to_string(columns_.size()));
  }
  for (std::size_t c = 0; c < values.size(); ++c) {
    if (values[c].size() != values[0].size()) throw std::invalid_argument("table::append_columns: columns of different lengths");
    for (const value& v : values[c]) {
      if (!fits(schema_.columns[c], v)) {
        throw std::invalid_argument("column '" + schema_.columns[c].name + "': '" + v.to_string() + "' does not fit " +
                                    to_string(schema_.columns[c]));
      }
    }
  }
  // Checked: the appends below can fail only for lack of memory. Each column's append is all
  // or nothing; the columns already extended are cut back if a later one throws.
  const std::size_t old_size = size();
  std::size_t done = 0;
  try {
    for (; done < columns_.size(); ++done) columns_[done]->append(values[done]);
  } catch (...) {
    for (std::size_t c = 0; c < done; ++c) columns_[c]->truncate(old_size);
    throw;
  }
}

namespace {

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const auto comma = line.find(',', start);
    fields.push_back(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

}  // namespace

void table::load_csv(std::istream& in, const std::string& source) {
  std::string line;
  std::size_t number = 0;
  auto next_line = [&] {
    if (!std::getline(in, line)) return false;
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  };
  if (!next_line()) throw csv_error(source, 1, "no header line");
  // header: position in the file -> column index
  std::vector<std::size_t> column_at;
  std::vector<bool> named(columns_.size(), false);
  for (const std::string_view name : split_fields(line)) {
    std::size_t index = 0;
    try {
      index = schema_.index_of(name);
    } catch (const std::invalid_argument&) {
      throw csv_error(source, number, "header names '" + std::string(name) + "', not a column of " + schema_.to_string());
    }
    if (named[index]) throw csv_error(source, number, "header names column '" + std::string(name) + "' twice");
    named[index] = true;
    column_at.push_back(index);
  }
  if (column_at.size() != columns_.size()) {
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      if (!named[c]) throw csv_error(source, number, "header lacks column '" + schema_.columns[c].name + "'");
    }
  }
  std::vector<std::vector<value>> values(columns_.size());
  while (next_line()) {
    const std::vector<std::string_view> fields = split_fields(line);
    if (fields.size() != column_at.size()) {
      throw csv_error(source, number, std::to_string(fields.size()) + " fields, expected " + std::to_string(column_at.size()));
    }
    for (std::size_t f = 0; f < fields.size(); ++f) {
      const std::size_t c = column_at[f];
      try {
        values[c].push_back(parse_value(schema_.columns[c], fields[f]));
      } catch (const std::invalid_argument& e) {
        throw csv_error(source, number, e.what());
      }
    }
  }
  if (in.bad()) throw csv_error(source, number, "read error");
  append_columns(values);
}

void table::load_csv_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw csv_error(path, 0, "cannot open");
  load_csv(in, path);
}

namespace {

// Digits of `number` in base 36 (0-9, a-z), at least one.
std::string base36(std::size_t number) {
  std::string digits;
  do {
    digits.insert(digits.begin(), "0123456789abcdefghijklmnopqrstuvwxyz"[number % 36]);
    number /= 36;
  } while (number != 0);
  return digits;
}

constexpr std::string_view text_stems[] = {"customer/", "customer/account/", "order-line:", "orders/2024-", "product ",
                                           "supplier.region."};

// Generated text i of a varchar(n) column: its stem repeated (a handful of stems, so neighbours
// in sorted order share long prefixes) to the stem's length less a jitter of up to 3 bytes,
// then '#' and i in base 36, which keeps the texts distinct. When n cannot hold '#' and the
// digits, i's digits alone (modulo 36^n).
std::string generated_text(std::size_t i, unsigned length, std::span<const std::size_t> stem_lengths, std::mt19937_64& random) {
  std::string suffix = base36(i);
  if (suffix.size() + 1 > length) return suffix.substr(suffix.size() - std::min<std::size_t>(suffix.size(), length));
  suffix.insert(suffix.begin(), '#');
  const std::size_t stem = i % std::size(text_stems);
  const std::size_t room = std::min<std::size_t>(stem_lengths[stem], length - suffix.size());
  const std::size_t body = room - std::min<std::size_t>(room, random() % 4);
  std::string text;
  text.reserve(body + suffix.size());
  while (text.size() < body) text.append(text_stems[stem].substr(0, body - text.size()));
  return text + suffix;
}

// `distinct` texts of a varchar(n) column: each stem's length is drawn once in [0, n], so the
// lengths vary across stems and the texts of one stem share most of their bytes.
std::vector<std::string> generated_texts(std::size_t distinct, unsigned length, std::mt19937_64& random) {
  std::vector<std::size_t> stem_lengths(std::size(text_stems));
  for (std::size_t& stem_length : stem_lengths) stem_length = std::uniform_int_distribution<std::size_t>(0, length)(random);
  std::vector<std::string> texts(distinct);
  for (std::size_t i = 0; i < distinct; ++i) texts[i] = generated_text(i, length, stem_lengths, random);
  return texts;
}

// `rows` values of column `spec`: the key counts up from `first_key`; every other column draws
// from `distinct` values spread over its type's range (texts: generated_text).
std::vector<value> generated_column(const column_spec& spec, bool key, std::size_t rows, std::size_t first_key,
                                    std::size_t distinct, std::mt19937_64& random) {
  std::vector<value> values(rows);
  if (key) {
    for (std::size_t r = 0; r < rows; ++r) values[r] = spec.type == column_type::varchar ? value(std::to_string(first_key + r)) : value(first_key + r);
    return values;
  }
  std::uniform_int_distribution<std::uint64_t> pick(0, distinct - 1);
  if (spec.type == column_type::varchar) {
    const std::vector<std::string> pool = generated_texts(distinct, spec.length, random);
    for (value& v : values) v = std::string_view(pool[pick(random)]);
    return values;
  }
  // `distinct` values spread evenly over [0, limit): value i * stride.
  std::int64_t limit = spec.type == column_type::int32 ? INT32_MAX : INT64_MAX / 2;
  if (spec.type == column_type::decimal) {
    limit = 1;
    for (unsigned i = 0; i < spec.precision; ++i) limit *= 10;
  }
  const std::int64_t stride = std::max<std::int64_t>(limit / static_cast<std::int64_t>(distinct), 1);
  for (value& v : values) v = std::min(static_cast<std::int64_t>(pick(random)) * stride, limit - 1);
  return values;
}

}  // namespace

void table::generate(std::size_t rows, std::size_t distinct, std::uint64_t seed) {
  if (distinct == 0) throw std::invalid_argument("table::generate: distinct must be at least 1");
  const column_spec& key = schema_.columns[schema_.key];
  if (key.type == column_type::varchar && rows > 0 && std::to_string(size() + rows - 1).size() > key.length) {
    throw std::invalid_argument("table::generate: key column '" + key.name + "' (" + to_string(key) + ") cannot hold key " +
                                std::to_string(size() + rows - 1));
  }
  std::mt19937_64 random(seed);
  std::vector<std::vector<value>> values(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    values[c] = generated_column(schema_.columns[c], c == schema_.key, rows, size(), distinct, random);
  }
  append_columns(values);
}

void table::merge() {
  for (auto& c : columns_) c->merge();
}

in_predicate_result table::count_in(std::string_view column, std::span<const value> list,
                                    const in_predicate_options& options) const {
  return columns_[schema_.index_of(column)]->count_in(list, options);
}

std::optional<std::size_t> table::find_key(value key) const { return columns_[schema_.key]->find_first(key); }

void table::reconstruct_into(std::size_t row, reconstruction how, std::size_t group, std::span<value> out) const {
  if (row >= size()) throw std::invalid_argument("table::reconstruct: row " + std::to_string(row) + " of " + std::to_string(size()));
  if (group == 0) throw std::invalid_argument("table::reconstruct: group must be at least 1");
  if (out.size() != columns_.size()) throw std::invalid_argument("table::reconstruct: output of the wrong size");
  const std::size_t count = columns_.size();
  // A copy, not a move: into a text already there, its capacity is reused.
  auto deliver = [out](std::size_t index, const value& v) { out[index] = v; };
  switch (how) {
    case reconstruction::naive:
      for (std::size_t c = 0; c < count; ++c) columns_[c]->get_into(row, out[c]);
      return;
    case reconstruction::nested:
      interleaved_scheduler{group}.run(
          count,
          [this, row](std::size_t c) -> task<value> { co_return co_await columns_[c]->get_nested(row); },
          deliver);
      return;
    case reconstruction::elided:
      interleaved_scheduler{group}.run(count, [this, row](std::size_t c) { return columns_[c]->get_task(row); }, deliver);
      return;
    case reconstruction::flat:
      // Each read stores straight into its output: nothing to deliver.
      interleaved_scheduler{group}.run(
          count, [this, row, out](std::size_t c) { return columns_[c]->get_flat_into(row, out[c]); }, [](std::size_t) {});
      return;
    case reconstruction::context:
      run_with_contexts(
          interleaved_scheduler{group}, context_arena{reconstruction_arena_bytes}, count,
          [this, row](std::size_t c, lookup_context& context) { return read_nested(*columns_[c], context, row); }, deliver);
      return;
    case reconstruction::wrapped:
      run_with_contexts(
          interleaved_scheduler{group}, context_arena{reconstruction_arena_bytes}, count,
          [this, row](std::size_t c, lookup_context& context) { return read_wrapped(*columns_[c], context, row); }, deliver);
      return;
  }
}

std::vector<value> table::reconstruct(std::size_t row, reconstruction how, std::size_t group) const {
  std::vector<value> out(columns_.size());
  reconstruct_into(row, how, group, out);
  return out;
}

std::optional<std::vector<value>> table::select_by_key(value key, reconstruction how, std::size_t group) const {
  const auto row = find_key(key);
  if (!row) return std::nullopt;
  return reconstruct(*row, how, group);
}

}  // namespace braid
