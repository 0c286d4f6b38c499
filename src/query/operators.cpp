#include "braid/query/operators.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <stdexcept>
#include <utility>

namespace braid::query {

// ---- predicates ------------------------------------------------------------------------------

namespace {

std::size_t numeric_column(const table& source, std::string_view column, const char* what) {
  const std::size_t index = source.column_index(column);
  if (source.columns()[index].type.kind == value_kind::text) {
    throw std::invalid_argument(std::string("query predicate ") + what + ": column " + std::string(column) + " of " +
                                source.name() + " is text");
  }
  return index;
}

std::size_t text_column(const table& source, std::string_view column) {
  const std::size_t index = source.column_index(column);
  if (source.columns()[index].type.kind != value_kind::text) {
    throw std::invalid_argument("query predicate: column " + std::string(column) + " of " + source.name() + " is not text");
  }
  return index;
}

bool is_narrow(const table& source, std::size_t column) { return width_of(source.columns()[column].type) == 4; }

// The branch-free refinement loop shared by the leaves.
template <class Test>
std::uint32_t refine(const std::uint32_t* in, std::uint32_t count, std::uint32_t* out, Test test) {
  std::uint32_t kept = 0;
  if (in == nullptr) {
    for (std::uint32_t i = 0; i < count; ++i) {
      out[kept] = i;
      kept += test(i) ? 1U : 0U;
    }
  } else {
    for (std::uint32_t i = 0; i < count; ++i) {
      const std::uint32_t row = in[i];
      out[kept] = row;
      kept += test(row) ? 1U : 0U;
    }
  }
  return kept;
}

}  // namespace

predicate predicate::range(const table& source, std::string_view column, std::int64_t low, std::int64_t high) {
  predicate p;
  p.column_ = numeric_column(source, column, "range");
  p.what_ = is_narrow(source, p.column_) ? kind::range32 : kind::range64;
  p.low_ = low;
  p.high_ = high;
  return p;
}

predicate predicate::one_of(const table& source, std::string_view column, std::vector<std::int64_t> values) {
  predicate p;
  p.column_ = numeric_column(source, column, "one_of");
  p.what_ = is_narrow(source, p.column_) ? kind::set32 : kind::set64;
  std::sort(values.begin(), values.end());
  p.values_ = std::move(values);
  return p;
}

predicate predicate::column_less(const table& source, std::string_view left, std::string_view right) {
  predicate p;
  p.column_ = numeric_column(source, left, "column_less");
  p.other_ = numeric_column(source, right, "column_less");
  if (is_narrow(source, p.column_) != is_narrow(source, p.other_)) {
    throw std::invalid_argument("query predicate column_less: columns " + std::string(left) + " and " + std::string(right) +
                                " differ in width");
  }
  p.what_ = is_narrow(source, p.column_) ? kind::less32 : kind::less64;
  return p;
}

predicate predicate::text_where(const table& source, std::string_view column, const std::function<bool(std::string_view)>& accept) {
  predicate p;
  p.what_ = kind::codes;
  p.column_ = text_column(source, column);
  const text_dictionary& dictionary = source.dictionary(p.column_);
  p.codes_.resize(dictionary.size());
  for (std::size_t code = 0; code < dictionary.size(); ++code) {
    p.codes_[code] = accept(dictionary.values()[code]) ? 1 : 0;
  }
  return p;
}

predicate predicate::text_equals(const table& source, std::string_view column, std::string_view value) {
  return text_where(source, column, [value](std::string_view text) { return text == value; });
}

predicate predicate::text_in(const table& source, std::string_view column, std::vector<std::string> values) {
  return text_where(source, column, [&values](std::string_view text) {
    return std::find(values.begin(), values.end(), text) != values.end();
  });
}

predicate predicate::text_prefix(const table& source, std::string_view column, std::string_view prefix) {
  return text_where(source, column, [prefix](std::string_view text) { return text.starts_with(prefix); });
}

predicate predicate::all_of(std::vector<predicate> children) {
  predicate p;
  p.what_ = kind::all;
  p.children_ = std::move(children);
  return p;
}

predicate predicate::any_of(std::vector<predicate> children) {
  if (children.empty()) throw std::invalid_argument("query predicate any_of: no alternatives");
  predicate p;
  p.what_ = kind::any;
  p.children_ = std::move(children);
  return p;
}

std::uint32_t predicate::select(const table& source, std::size_t f, const std::uint32_t* in, std::uint32_t count,
                                std::uint32_t* out) const {
  switch (what_) {
    case kind::range64: {
      const auto* values = source.column_data<std::int64_t>(f, column_);
      const auto low = static_cast<std::uint64_t>(low_);
      const std::uint64_t span = static_cast<std::uint64_t>(high_) - low;
      if (high_ < low_) return 0;
      return refine(in, count, out, [&](std::uint32_t i) { return static_cast<std::uint64_t>(values[i]) - low <= span; });
    }
    case kind::range32: {
      const auto* values = source.column_data<std::int32_t>(f, column_);
      if (high_ < low_) return 0;
      return refine(in, count, out, [&](std::uint32_t i) { return values[i] >= low_ && values[i] <= high_; });
    }
    case kind::set64: {
      const auto* values = source.column_data<std::int64_t>(f, column_);
      return refine(in, count, out, [&](std::uint32_t i) { return std::binary_search(values_.begin(), values_.end(), values[i]); });
    }
    case kind::set32: {
      const auto* values = source.column_data<std::int32_t>(f, column_);
      return refine(in, count, out, [&](std::uint32_t i) {
        return std::binary_search(values_.begin(), values_.end(), std::int64_t{values[i]});
      });
    }
    case kind::less64: {
      const auto* left = source.column_data<std::int64_t>(f, column_);
      const auto* right = source.column_data<std::int64_t>(f, other_);
      return refine(in, count, out, [&](std::uint32_t i) { return left[i] < right[i]; });
    }
    case kind::less32: {
      const auto* left = source.column_data<std::int32_t>(f, column_);
      const auto* right = source.column_data<std::int32_t>(f, other_);
      return refine(in, count, out, [&](std::uint32_t i) { return left[i] < right[i]; });
    }
    case kind::codes: {
      const auto* codes = source.column_data<std::uint32_t>(f, column_);
      const std::uint8_t* accepted = codes_.data();
      return refine(in, count, out, [&](std::uint32_t i) { return accepted[codes[i]] != 0; });
    }
    case kind::all: {
      if (children_.empty()) return refine(in, count, out, [](std::uint32_t) { return true; });
      std::uint32_t kept = children_.front().select(source, f, in, count, out);
      for (std::size_t c = 1; c < children_.size() && kept != 0; ++c) kept = children_[c].select(source, f, out, kept, out);
      return kept;
    }
    case kind::any: {
      // Each alternative refines the candidates; the union keeps the candidates' order.
      const std::uint32_t tuples = source.header(f).tuples;
      std::vector<std::uint8_t> passed(tuples, 0);
      std::vector<std::uint32_t> scratch(count);
      for (const predicate& child : children_) {
        const std::uint32_t kept = child.select(source, f, in, count, scratch.data());
        for (std::uint32_t i = 0; i < kept; ++i) passed[scratch[i]] = 1;
      }
      return refine(in, count, out, [&](std::uint32_t i) { return passed[i] != 0; });
    }
  }
  return 0;
}

std::size_t predicate::count(const table& source, std::size_t f) const {
  const std::uint32_t tuples = source.header(f).tuples;
  std::vector<std::uint32_t> out(tuples);
  return select(source, f, nullptr, tuples, out.data());
}

std::vector<std::size_t> predicate::columns() const {
  std::vector<std::size_t> read;
  if (what_ == kind::all || what_ == kind::any) {
    for (const predicate& child : children_) {
      for (const std::size_t c : child.columns()) read.push_back(c);
    }
  } else {
    read.push_back(column_);
    if (what_ == kind::less32 || what_ == kind::less64) read.push_back(other_);
  }
  std::sort(read.begin(), read.end());
  read.erase(std::unique(read.begin(), read.end()), read.end());
  return read;
}

std::optional<std::size_t> predicate::single_column() const {
  const auto read = columns();
  if (read.size() != 1) return std::nullopt;
  return read.front();
}

selection_buffers::selection_buffers(unsigned workers, std::size_t tuples, unsigned per_worker)
    : per_worker_(per_worker), buffers_(std::size_t{workers} * per_worker, std::vector<std::uint32_t>(std::max<std::size_t>(tuples, 1))) {}

// ---- bloom filter ----------------------------------------------------------------------------

bloom_filter::bloom_filter(std::size_t keys) {
  const std::size_t words = std::bit_ceil(std::max<std::size_t>(1, keys / 4 + 1));  // ~16 bits per key
  bits_.assign(words, 0);
  shift_ = 64U - static_cast<unsigned>(std::countr_zero(words));
}

void bloom_filter::insert(std::uint64_t key) noexcept {
  const std::uint64_t hash = hash_key(key);
  bits_[shift_ == 64 ? 0 : hash >> shift_] |= mask_of(hash);
}


// ---- join table ------------------------------------------------------------------------------

join_table::join_table(unsigned workers, bool with_bloom_filter)
    : partials_(workers), parts_(workers), bloom_on_(with_bloom_filter) {
  if (workers == 0) throw std::invalid_argument("query join table: no workers");
}

void join_table::build(part& table, std::vector<entry> entries) {
  if (entries.size() >= no_entry) throw std::length_error("query join table: more than 2^32 entries in one part");
  const std::size_t buckets = std::bit_ceil(std::max<std::size_t>(2, entries.size()));
  table.shift = 64U - static_cast<unsigned>(std::countr_zero(buckets));
  table.heads.assign(buckets, no_entry);
  table.entries = std::move(entries);
  for (std::uint32_t i = 0; i < table.entries.size(); ++i) {
    std::uint32_t& head = table.heads[hash_key(table.entries[i].key) >> table.shift];
    table.entries[i].next = head;
    head = i;
  }
}

void join_table::merge(unsigned into, unsigned from) {
  auto& target = partials_[into];
  auto& source = partials_[from];
  target.insert(target.end(), source.begin(), source.end());
  std::vector<entry>().swap(source);
}

void join_table::finalize_part(unsigned part, unsigned parts) {
  std::vector<entry> mine;
  for (const auto& partial : partials_) {
    for (const entry& e : partial) {
      if ((hash_key(e.key) >> 20) % parts == part) mine.push_back(e);
    }
  }
  build(parts_[part], std::move(mine));
}

void join_table::complete(finalize_mode mode) {
  // Parallel: finalize_part built one part per worker; otherwise partial 0 holds everything.
  if (mode != finalize_mode::parallel || partials_.size() == 1) {
    parts_.assign(1, part{});
    build(parts_[0], std::move(partials_[0]));
  }
  size_ = 0;
  for (const part& p : parts_) size_ += p.entries.size();
  partials_.assign(partials_.size(), {});
  if (bloom_on_) {
    bloom_ = bloom_filter(size_);
    for (const part& p : parts_) {
      for (const entry& e : p.entries) bloom_.insert(e.key);
    }
  }
}

// ---- grouped aggregation ---------------------------------------------------------------------

group_aggregate::group_aggregate(unsigned workers, std::vector<aggregate_kind> accumulators)
    : kinds_(std::move(accumulators)), partials_(workers), parts_(workers) {
  if (workers == 0) throw std::invalid_argument("query aggregate: no workers");
  if (kinds_.empty()) throw std::invalid_argument("query aggregate: no accumulators");
}

int128* group_aggregate::find_or_insert(partial& table, std::uint64_t key, std::int64_t carried) {
  const std::size_t width = kinds_.size();
  if ((table.keys.size() + 1) * 2 > table.slots.size()) {
    const std::size_t slots = std::max<std::size_t>(16, table.slots.size() * 2);
    table.slots.assign(slots, 0);
    table.shift = 64U - static_cast<unsigned>(std::countr_zero(slots));
    for (std::uint32_t g = 0; g < table.keys.size(); ++g) {
      std::size_t s = hash_key(table.keys[g]) >> table.shift;
      while (table.slots[s] != 0) s = (s + 1) & (slots - 1);
      table.slots[s] = g + 1;
    }
  }
  const std::size_t mask = table.slots.size() - 1;
  std::size_t s = hash_key(key) >> table.shift;
  while (true) {
    const std::uint32_t g = table.slots[s];
    if (g == 0) break;
    if (table.keys[g - 1] == key) return table.values.data() + std::size_t{g - 1} * width;
    s = (s + 1) & mask;
  }
  table.slots[s] = static_cast<std::uint32_t>(table.keys.size() + 1);
  table.keys.push_back(key);
  table.carried.push_back(carried);
  for (const aggregate_kind k : kinds_) {
    table.values.push_back(k == aggregate_kind::sum   ? int128{0}
                           : k == aggregate_kind::min ? std::numeric_limits<int128>::max()
                                                      : std::numeric_limits<int128>::min());
  }
  return table.values.data() + (table.keys.size() - 1) * width;
}

int128* group_aggregate::accumulators(unsigned worker, std::uint64_t key, std::int64_t carried) {
  return find_or_insert(partials_[worker], key, carried);
}

void group_aggregate::fold(partial& into, const partial& from, std::uint64_t part, std::uint64_t parts) {
  const std::size_t width = kinds_.size();
  for (std::size_t g = 0; g < from.keys.size(); ++g) {
    if (parts > 1 && (hash_key(from.keys[g]) >> 20) % parts != part) continue;
    int128* target = find_or_insert(into, from.keys[g], from.carried[g]);
    const int128* source = from.values.data() + g * width;
    for (std::size_t a = 0; a < width; ++a) {
      switch (kinds_[a]) {
        case aggregate_kind::sum: target[a] += source[a]; break;
        case aggregate_kind::min: target[a] = std::min(target[a], source[a]); break;
        case aggregate_kind::max: target[a] = std::max(target[a], source[a]); break;
      }
    }
  }
}

void group_aggregate::merge(unsigned into, unsigned from) {
  fold(partials_[into], partials_[from], 0, 1);
  partials_[from] = partial{};
}

void group_aggregate::finalize_part(unsigned part, unsigned parts) {
  parts_[part] = partial{};
  for (const partial& from : partials_) fold(parts_[part], from, part, parts);
}

void group_aggregate::complete(finalize_mode mode) {
  groups_.clear();
  const bool parted = mode == finalize_mode::parallel && partials_.size() > 1;
  const std::size_t width = kinds_.size();
  auto emit = [&](const partial& table) {
    for (std::size_t g = 0; g < table.keys.size(); ++g) {
      groups_.push_back({table.keys[g], table.carried[g],
                         std::vector<int128>(table.values.begin() + static_cast<std::ptrdiff_t>(g * width),
                                             table.values.begin() + static_cast<std::ptrdiff_t>((g + 1) * width))});
    }
  };
  if (parted) {
    for (const partial& table : parts_) emit(table);
  } else {
    emit(partials_[0]);
  }
  for (auto& table : partials_) table = partial{};
  for (auto& table : parts_) table = partial{};
}

// ---- ORDER BY --------------------------------------------------------------------------------

int compare_cells(const cell& left, const cell& right) {
  if (left.kind == value_kind::text || right.kind == value_kind::text) {
    const int order = left.string.compare(right.string);
    return order < 0 ? -1 : order > 0 ? 1 : 0;
  }
  return left.number < right.number ? -1 : left.number > right.number ? 1 : 0;
}

void order_rows(std::vector<std::vector<cell>>& rows, const std::vector<sort_key>& keys, std::optional<std::size_t> limit) {
  const std::size_t width = rows.empty() ? 0 : rows.front().size();
  std::vector<sort_key> order = keys;
  for (const sort_key& key : keys) {
    if (key.column >= width && !rows.empty()) throw std::invalid_argument("query order_rows: sort column beyond the row");
  }
  for (std::size_t c = 0; c < width; ++c) {
    if (std::none_of(keys.begin(), keys.end(), [c](const sort_key& k) { return k.column == c; })) order.push_back({c, false});
  }
  auto before = [&order](const std::vector<cell>& a, const std::vector<cell>& b) {
    for (const sort_key& key : order) {
      const int c = compare_cells(a[key.column], b[key.column]);
      if (c != 0) return key.descending ? c > 0 : c < 0;
    }
    return false;
  };
  if (limit && *limit < rows.size()) {
    std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(*limit), rows.end(), before);
    rows.resize(*limit);
  } else {
    std::sort(rows.begin(), rows.end(), before);
  }
}

}  // namespace braid::query
