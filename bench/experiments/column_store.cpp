// The column store of the interleaving thesis (§4.3): two experiments on braid's column layer.
//
// column-in-predicate (thesis Fig. 4.12): SELECT COUNT(*) FROM t WHERE c IN (list) over one
// column, on its Main fragment (sorted dictionary, bit-packed index vector) and on its Delta
// fragment (unsorted dictionary in arrival order under a CSB+-tree over codes). --set type:
// int64 (the default) or varchar. --size is the dictionary's bytes: int64 d = size / 8 values,
// Main 2i in order; varchar(50) d = size / 41 texts (a text counted as its 16-byte entry
// {offset, length} and its text, 25 bytes on average; Main's front coding stores less), text i
// "c0/" + 2i in ten digits + "/" + a tail of 0 to 22 'x' (reconstruction_text below: blocks
// of 16 neighbours share about 12 bytes), Main a front-coded string_dictionary; Delta the same
// values shuffled. --keys the rows (codes uniform over the dictionary; Main and Delta hold the
// same rows), --set list=N the IN-list (default 10000 values drawn from the seed over twice
// the dictionary's range: int64 values below 2d, texts of 2i or 2i + 1, about half present).
// Per fragment, technique and group, two phases: `locate` (the list's bulk index join: the
// codes, into a buffer reused across passes, through the fragment's multi_find) and `query`
// (locate, the bitmap of codes over the dictionary, and the scan of the index vector against
// it). Main runs naive, gp, amac, coro, coro_nested (a task per probe) and, for int64, fiber;
// Delta naive, coro, coro_nested (a task per node and per probe) and, for int64, fiber (its
// trees have no gp / amac form; the thesis interleaves them with coroutines; the string
// structures have no fiber form). A technique a type lacks is skipped. Rows carry type and
// frame_bytes, the frame-pool bytes of one locate (coro: its frame; coro_nested: the peak of
// its chain; 0 for naive, gp and amac; none for fiber, whose stack is not a frame).
//
// column-reconstruction (thesis Fig. 4.17 / 4.18): SELECT * FROM t WHERE key = x, the tuple
// reconstruction: for random rows, every column's value, interleaved across columns. Columns
// of mixed types and fragments, each a virtual get with its own code path: --set types=mixed
// (the default, Fig. 4.18) a third each int64, decimal(10,2) and varchar(50) (a front-coded
// dictionary: the decode's extra indirection), --set types=integer (Fig. 4.17) all int64; every
// fourth column a Delta. --set columns=10,100,1000 the table widths; --size the table's bytes
// (rows follow from the bytes per row: about 8 per integer column, 24 per varchar(50); default
// DRAM-resident); --group the columns in flight. The checksum folds each value's fingerprint
// (a text's hash). Techniques: naive (the plain virtual get, column after column), nested (a
// task per call: root -> get_nested -> code_at / extract), context (the same chain with every
// frame from a per-lookup lookup_context arena, the thesis's context_t), wrapped (that chain with
// the column-level task elided by wrapped<T>, the thesis's manual elision), elided (the
// column's get_task as the root: one frame, the fragment's reads inline), flat (the column's
// get_flat_into, one coro frame storing into the output). Rows carry frame_bytes: the bytes of
// one column read in that form (frame-pool size classes; for context and wrapped the arena's
// bytes, headers included). --pages applies to every large array of the table (index vectors,
// dictionaries, the Delta's trees).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "braid/column/table.hpp"
#include "braid/column/varchar_column.hpp"
#include "braid/core/scheduler.hpp"
#include "experiment.hpp"
#include "figures.hpp"
#include "measure.hpp"
#include "ordered_experiment.hpp"
#include "workloads.hpp"

namespace braid::bench {
namespace {

using key_type = std::int64_t;
using column_type_t = typed_column<key_type>;

std::size_t setting_number(const run_context& context, const std::string& name, std::size_t fallback) {
  const auto given = context.setting(name);
  if (!given) return fallback;
  try {
    std::size_t used = 0;
    const unsigned long long parsed = std::stoull(*given, &used);
    if (used != given->size() || parsed == 0) throw std::invalid_argument(name);
    return static_cast<std::size_t>(parsed);
  } catch (const std::exception&) {
    throw usage_error("--set " + name + "=" + *given + ": expected a positive number");
  }
}

std::vector<std::size_t> setting_list(const run_context& context, const std::string& name, std::vector<std::size_t> fallback) {
  const auto given = context.setting(name);
  if (!given) return fallback;
  std::vector<std::size_t> values;
  std::string text = *given;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::size_t used = 0;
    unsigned long long parsed = 0;
    try {
      parsed = std::stoull(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (part.empty() || used != part.size() || parsed == 0) throw usage_error("--set " + name + "=" + text + ": expected positive numbers, comma-separated");
    values.push_back(static_cast<std::size_t>(parsed));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return values;
}

constexpr unsigned reconstruction_varchar_length = 50;

// Text n of varchar column c (both experiments), increasing with n: the column's name, n in
// ten digits (blocks of 16 neighbours share about 12 bytes of prefix), then 0 to 23 bytes.
std::string reconstruction_text(std::size_t c, std::size_t n) {
  std::string digits = std::to_string(n);
  digits.insert(0, 10 - std::min<std::size_t>(digits.size(), 10), '0');
  return "c" + std::to_string(c) + "/" + digits + "/" + std::string(n * 7919 % 24, 'x');
}

// ---- column-in-predicate ----------------------------------------------------------------------

const std::vector<std::string> main_techniques = {"naive", "gp", "amac", "coro", "coro_nested", "fiber"};
const std::vector<std::string> delta_techniques = {"naive", "coro", "coro_nested", "fiber"};
// string_dictionary and string_code_tree have no fiber form, string_code_tree no gp / amac.
const std::vector<std::string> varchar_main_techniques = {"naive", "gp", "amac", "coro", "coro_nested"};
const std::vector<std::string> varchar_delta_techniques = {"naive", "coro", "coro_nested"};

// A VARCHAR text's bytes in --size: its 16-byte entry {offset, length} and its text, 25 bytes
// on average (dictionary text i is reconstruction_text(0, 2i): 14 bytes, then a tail of an
// even length 0..22).
constexpr std::size_t varchar_text_bytes = 41;

template <class Column, class ListValue>
struct in_data {
  std::unique_ptr<Column> main;   // the rows in Main only
  std::unique_ptr<Column> delta;  // the same rows in Delta only (none if not measured)
  std::vector<ListValue> list;
};

// The rows of both fragments over d sorted values: codes uniform, in Main bit-packed; the
// Delta's values arrive shuffled (arrival[p]: the sorted position of the p-th to arrive) and
// its row codes are arrival positions, so both fragments hold the same rows.
struct in_rows {
  bit_packed_vector main_codes;
  std::vector<std::uint32_t> arrival;      // empty without a Delta
  std::vector<std::uint32_t> delta_codes;  // empty without a Delta
};

in_rows build_in_rows(run_context& context, random_source& random, std::size_t d, std::size_t rows, page_size pages,
                      bool want_delta) {
  context.progress("building a column of " + std::to_string(rows) + " rows over " + std::to_string(d) + " values");
  in_rows built{bit_packed_vector(rows, bit_packed_vector::bits_for(d), pages), {}, std::vector<std::uint32_t>(want_delta ? rows : 0)};
  for (std::size_t r = 0; r < rows; ++r) {
    const auto code = static_cast<std::uint32_t>(random.below(d));
    built.main_codes.set(r, code);
    if (want_delta) built.delta_codes[r] = code;
  }
  if (!want_delta) return built;
  built.arrival.resize(d);
  std::iota(built.arrival.begin(), built.arrival.end(), std::uint32_t{0});
  std::shuffle(built.arrival.begin(), built.arrival.end(), std::mt19937_64(context.seed() + 1));
  std::vector<std::uint32_t> position_of(d);
  for (std::size_t p = 0; p < d; ++p) position_of[built.arrival[p]] = static_cast<std::uint32_t>(p);
  for (std::uint32_t& code : built.delta_codes) code = position_of[code];
  return built;
}

std::size_t in_dictionary_values(std::size_t dictionary_bytes, std::size_t value_bytes) {
  const std::size_t d = std::max<std::size_t>(dictionary_bytes / value_bytes, 1);
  if (d >= std::size_t{UINT32_MAX}) throw usage_error("--size: a dictionary of 2^32 values or more");
  return d;
}

// int64: the values 2i, i < d; the list uniform over [0, 2d).
in_data<column_type_t, key_type> build_int64_data(run_context& context, std::size_t dictionary_bytes, std::size_t rows,
                                                  std::size_t list_size, page_size pages, bool want_delta) {
  const std::size_t d = in_dictionary_values(dictionary_bytes, sizeof(key_type));
  context.require_memory(dictionary_bytes * (want_delta ? 6 : 1) + rows * 5 + list_size * 8, "column-in-predicate at this size");
  random_source random(context.seed());
  in_rows built = build_in_rows(context, random, d, rows, pages, want_delta);
  const column_spec spec{"c", column_type::int64};
  const auto value_at = [](std::size_t i) { return static_cast<key_type>(2 * i); };
  in_data<column_type_t, key_type> data;
  data.main = std::make_unique<column_type_t>(
      spec, main_fragment<key_type>(sorted_array<key_type>::from_sorted(d, value_at, pages), std::move(built.main_codes)),
      delta_fragment<key_type>());
  if (want_delta) {
    std::vector<key_type> arrival(d);
    for (std::size_t p = 0; p < d; ++p) arrival[p] = value_at(built.arrival[p]);
    data.delta = std::make_unique<column_type_t>(spec, main_fragment<key_type>(),
                                                 delta_fragment<key_type>(arrival, std::move(built.delta_codes), pages));
  }
  data.list.resize(list_size);
  for (key_type& v : data.list) v = static_cast<key_type>(random.below(2 * d));
  return data;
}

// varchar(50): the texts reconstruction_text(0, 2i), i < d; the list reconstruction_text(0, n)
// for n uniform over [0, 2d) (an odd n's text is absent and sorts between present ones).
in_data<varchar_column, std::string> build_varchar_data(run_context& context, std::size_t dictionary_bytes, std::size_t rows,
                                                        std::size_t list_size, page_size pages, bool want_delta) {
  const std::size_t d = in_dictionary_values(dictionary_bytes, varchar_text_bytes);
  context.require_memory(dictionary_bytes * (want_delta ? 5 : 3) + rows * 9 + list_size * 64, "column-in-predicate at this size");
  random_source random(context.seed());
  in_rows built = build_in_rows(context, random, d, rows, pages, want_delta);
  std::string bytes;  // the texts back to back (viewed once complete)
  std::vector<std::size_t> starts{0};
  for (std::size_t i = 0; i < d; ++i) starts.push_back((bytes += reconstruction_text(0, 2 * i)).size());
  std::vector<std::string_view> sorted(d);
  for (std::size_t i = 0; i < d; ++i) sorted[i] = std::string_view(bytes).substr(starts[i], starts[i + 1] - starts[i]);
  const column_spec spec{"c", column_type::varchar, 0, 0, reconstruction_varchar_length};
  in_data<varchar_column, std::string> data;
  data.main = std::make_unique<varchar_column>(
      spec, varchar_main_fragment(string_dictionary(sorted, pages), std::move(built.main_codes)), varchar_delta_fragment());
  if (want_delta) {
    std::vector<std::string_view> arrival(d);
    for (std::size_t p = 0; p < d; ++p) arrival[p] = sorted[built.arrival[p]];
    data.delta = std::make_unique<varchar_column>(spec, varchar_main_fragment(),
                                                  varchar_delta_fragment(arrival, built.delta_codes, pages));
  }
  data.list.resize(list_size);
  for (std::string& text : data.list) text = reconstruction_text(0, random.below(2 * d));
  return data;
}

// What a fragment's locate runs on (multi_find, lookup, lookup_nested).
const auto& delta_index(const column_type_t& c) { return c.delta().index(); }
const varchar_delta_fragment& delta_index(const varchar_column& c) { return c.delta(); }

// Frame-pool bytes of one locate through `index` by the coroutine techniques, whose frames
// hold the lookup's state (nested: the peak of the chain).
struct locate_frames {
  std::int64_t coro = 0;
  std::int64_t coro_nested = 0;
};
template <class Index, class Key>
locate_frames frames_of_locate(const Index& index, const Key& key) {
  return {static_cast<std::int64_t>(ordered::pool_bytes_per_operation([&] { return index.template lookup<interleaved>(key); })),
          static_cast<std::int64_t>(ordered::pool_bytes_per_operation([&] { return index.template lookup_nested<interleaved>(key); }))};
}

struct in_settings {
  std::string type;
  std::vector<std::size_t> groups;
  unsigned repetitions = 0;
  std::size_t dictionary_bytes = 0;
  std::size_t rows = 0;
  std::size_t list_size = 0;
};

void emit_in_rows(run_context& context, const in_settings& s, const std::string& fragment, const std::string& phase,
                  const locate_frames& frames, const std::vector<measurement>& measured) {
  double naive_ns = 0;
  for (const measurement& m : measured) {
    if (m.name == "naive") naive_ns = m.median_ns;
  }
  for (const measurement& m : measured) {
    const auto at = m.name.find('@');
    const std::string technique_name = m.name.substr(0, at);
    const std::int64_t group = at == std::string::npos ? 1 : std::stoll(m.name.substr(at + 1));
    const double per_value = m.median_ns / static_cast<double>(s.list_size);
    result_row row;
    row.set("structure", "column-" + fragment)
        .set("type", s.type)
        .set("phase", phase)
        .set("technique", technique_name)
        .set("pass", m.name)
        .set("group", group)
        .set("size_bytes", static_cast<std::int64_t>(s.dictionary_bytes))
        .set("rows", static_cast<std::int64_t>(s.rows))
        .set("list_values", static_cast<std::int64_t>(s.list_size))
        .set("ops", static_cast<std::int64_t>(s.list_size))
        .set("ns_per_op", per_value)
        .set("query_ms", m.median_ns / 1e6)
        .set("checksum", std::to_string(m.checksum));
    if (naive_ns > 0) row.set("speedup_vs_naive", naive_ns / m.median_ns);
    if (technique_name == "coro") row.set("frame_bytes", frames.coro);
    if (technique_name == "coro_nested") row.set("frame_bytes", frames.coro_nested);
    if (technique_name == "naive" || technique_name == "gp" || technique_name == "amac") row.set("frame_bytes", std::int64_t{0});
    context.emit(std::move(row));
  }
}

template <class Code>
std::uint64_t fold_codes(std::span<const std::optional<Code>> codes) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < codes.size(); ++i) sum += (codes[i] ? static_cast<std::uint64_t>(*codes[i]) + 1 : 0) * (2 * i + 1);
  return sum;
}

// One fragment of column `c`, its locate through `index` (Code: the codes it returns). Two
// phases: `locate` alone (the list's codes into a buffer made once: the phase the thesis
// interleaves; checksum their fold) and `query` (locate, the bitmap of codes over the
// dictionary, the scan of the index vector; checksum the count).
template <class Code, class Column, class Index, class Key>
void measure_in_fragment(run_context& context, const in_settings& s, const std::string& fragment, const std::vector<std::string>& names,
                         const Column& c, const Index& index, std::span<const Key> keys) {
  std::vector<std::optional<Code>> codes(keys.size());
  const auto locate_codes = [&](technique how, std::size_t group) {
    index.multi_find(keys, std::span<std::optional<Code>>(codes), how, group);
    return fold_codes<Code>(codes);
  };
  const auto query = [&](technique how, std::size_t group) -> std::uint64_t {
    return fragment == "main" ? c.scan_main(c.locate_main(keys, how, group)) : c.scan_delta(c.locate_delta(keys, how, group));
  };
  const locate_frames frames = frames_of_locate(index, keys.empty() ? Key{} : keys.front());
  for (const std::string phase : {"locate", "query"}) {
    std::vector<technique_run> runs;
    for (const std::string& name : names) {
      if (!context.selected(name)) continue;
      const technique how = parse_technique(name);
      const std::vector<std::size_t> its_groups = how == technique::naive ? std::vector<std::size_t>{1} : s.groups;
      for (std::size_t group : its_groups) {
        const std::string label = how == technique::naive ? name : name + "@" + std::to_string(group);
        runs.push_back({label, [=, &locate_codes, &query] { return phase == "locate" ? locate_codes(how, group) : query(how, group); }});
      }
    }
    if (runs.empty()) continue;
    context.progress("measuring the " + phase + " phase on " + fragment);
    const std::vector<measurement> measured = measure_interleaved(runs, s.repetitions, &context);
    require_same_checksums(measured, "column-in-predicate " + fragment + " " + phase);
    emit_in_rows(context, s, fragment, phase, frames, measured);
  }
}

template <class MainCode, class Column, class ListValue, class Key>
void measure_in_column(run_context& context, const in_settings& s, const std::string& fragment, const in_data<Column, ListValue>& data,
                       std::span<const Key> keys, const std::vector<std::string>& main_names, const std::vector<std::string>& delta_names) {
  if (fragment != "delta") measure_in_fragment<MainCode>(context, s, "main", main_names, *data.main, data.main->main().dictionary(), keys);
  if (fragment != "main") measure_in_fragment<std::uint32_t>(context, s, "delta", delta_names, *data.delta, delta_index(*data.delta), keys);
}

void run_in_predicate(run_context& context) {
  const bool quick = context.quick();
  in_settings s;
  s.type = context.setting("type").value_or("int64");
  if (s.type != "int64" && s.type != "varchar") throw usage_error("--set type=" + s.type + ": expected int64 or varchar");
  const std::vector<std::size_t> sizes = context.sizes_or({std::size_t{1} << 20, quick ? std::size_t{16} << 20 : dram_resident_bytes()});
  s.groups = context.groups_or(quick ? std::vector<std::size_t>{8} : std::vector<std::size_t>{8, 16, 32});
  s.rows = context.keys_or(quick ? 1'000'000 : 100'000'000);
  s.list_size = setting_number(context, "list", 10'000);
  s.repetitions = context.repetitions_or(quick ? 2 : 5);
  const auto fragment = context.setting("fragment").value_or("both");
  if (fragment != "main" && fragment != "delta" && fragment != "both") {
    throw usage_error("--set fragment=" + fragment + ": expected main, delta or both");
  }
  const page_size pages = context.pages_or(page_size::huge_2m);
  for (std::size_t index = 0; index < sizes.size(); ++index) {
    s.dictionary_bytes = sizes[index];
    context.configuration(index, sizes.size(), format_bytes(s.dictionary_bytes));
    if (s.type == "int64") {
      const auto data = build_int64_data(context, s.dictionary_bytes, s.rows, s.list_size, pages, fragment != "main");
      measure_in_column<std::size_t>(context, s, fragment, data, std::span<const key_type>(data.list), main_techniques, delta_techniques);
    } else {
      const auto data = build_varchar_data(context, s.dictionary_bytes, s.rows, s.list_size, pages, fragment != "main");
      const std::vector<std::string_view> keys(data.list.begin(), data.list.end());
      measure_in_column<std::uint32_t>(context, s, fragment, data, std::span<const std::string_view>(keys), varchar_main_techniques,
                                       varchar_delta_techniques);
    }
  }
}

const registration in_predicate_experiment{experiment{
    .name = "column-in-predicate",
    .reproduces = "interleaving thesis (Psaropoulos 2019) Fig. 4.12, IN-predicate on Main and Delta",
    .summary = "SELECT COUNT(*) WHERE c IN (10K values), c int64 or varchar: locate (naive, gp, amac, coro, coro_nested, fiber) and query, Main and Delta",
    .techniques = main_techniques,
    .accepted = accepts_size | accepts_keys | accepts_group | accepts_technique | accepts_pages,
    .settings = {{"list", "N", "values in the IN-list (default 10000)"},
                 {"fragment", "main | delta | both", "the fragments measured (default both)"},
                 {"type", "int64 | varchar", "the column's type (default int64); varchar has no fiber locate, and no gp / amac on Delta"}},
    .run = run_in_predicate,
}};

// ---- column-reconstruction --------------------------------------------------------------------

const std::vector<std::string> reconstruction_names = {"naive", "nested", "context", "wrapped", "elided", "flat"};

// The column types of a table: Fig. 4.17's all INTEGER, or Fig. 4.18's mix of a third each
// INTEGER, DECIMAL(10,2) and VARCHAR(50).
enum class table_types { integer, mixed };

table_types parse_table_types(const run_context& context) {
  const std::string given = context.setting("types").value_or("mixed");
  if (given == "integer") return table_types::integer;
  if (given == "mixed") return table_types::mixed;
  throw usage_error("--set types=" + given + ": expected integer or mixed");
}

column_spec reconstruction_spec(std::size_t c, table_types types) {
  column_spec spec{"c" + std::to_string(c), column_type::int64};
  if (types == table_types::integer) return spec;
  if (c % 3 == 1) {
    spec.type = column_type::decimal;
    spec.precision = 10;
    spec.scale = 2;
  }
  if (c % 3 == 2) {
    spec.type = column_type::varchar;
    spec.length = reconstruction_varchar_length;
  }
  return spec;
}

// Bytes per row of a column with distinct = rows / 2: 4 bytes of codes (at most) and half a
// dictionary entry. An integer entry is 8 bytes; a VARCHAR(50) entry 16 bytes of {offset,
// length} and its text (14 to 40 bytes; in Main about 12 of them are a block's shared prefix,
// stored once per 16 entries), about 40 bytes: 24 bytes per row against 8.
std::size_t reconstruction_row_bytes(const column_spec& spec) { return spec.type == column_type::varchar ? 24 : 8; }

std::unique_ptr<column> build_varchar_column(const column_spec& spec, std::size_t c, bool delta, std::vector<std::uint32_t> codes,
                                             std::size_t distinct, page_size pages) {
  std::vector<std::string> texts(distinct);
  for (std::size_t i = 0; i < distinct; ++i) texts[i] = reconstruction_text(c, delta ? distinct - 1 - i : i);
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  if (delta) return std::make_unique<varchar_column>(spec, varchar_main_fragment(), varchar_delta_fragment(views, codes, pages));
  bit_packed_vector packed(codes.size(), bit_packed_vector::bits_for(distinct), pages);
  for (std::size_t r = 0; r < codes.size(); ++r) packed.set(r, codes[r]);
  return std::make_unique<varchar_column>(spec, varchar_main_fragment(string_dictionary(views, pages), std::move(packed)),
                                          varchar_delta_fragment());
}

// Column c: `distinct` values c + 2i (in range of every type; texts reconstruction_text), codes
// uniform; every fourth column is a Delta (the values in arrival order = reversed).
std::unique_ptr<column> build_reconstruction_column(const column_spec& spec, std::size_t c, std::size_t rows,
                                                    std::size_t distinct, random_source& random, page_size pages) {
  const bool delta = c % 4 == 3;
  auto value_at = [c](std::size_t i) { return static_cast<std::int64_t>(c + 2 * i); };
  std::vector<std::uint32_t> codes(rows);
  for (std::uint32_t& code : codes) code = static_cast<std::uint32_t>(random.below(distinct));
  if (spec.type == column_type::varchar) return build_varchar_column(spec, c, delta, std::move(codes), distinct, pages);
  if (delta) {
    std::vector<std::int64_t> arrival(distinct);
    for (std::size_t i = 0; i < distinct; ++i) arrival[i] = value_at(distinct - 1 - i);
    return std::make_unique<typed_column<std::int64_t>>(spec, main_fragment<std::int64_t>(),
                                                        delta_fragment<std::int64_t>(arrival, std::move(codes), pages));
  }
  bit_packed_vector packed(rows, bit_packed_vector::bits_for(distinct), pages);
  for (std::size_t r = 0; r < rows; ++r) packed.set(r, codes[r]);
  auto dictionary = sorted_array<std::int64_t>::from_sorted(distinct, value_at, pages);
  return std::make_unique<typed_column<std::int64_t>>(spec, main_fragment<std::int64_t>(std::move(dictionary), std::move(packed)),
                                                      delta_fragment<std::int64_t>());
}

// Bytes of frames of one column read in each form (column 0: an int64 Main).
std::int64_t frame_bytes_of(const table& t, reconstruction how) {
  const column& c = t.at(0);
  switch (how) {
    case reconstruction::naive: return 0;
    case reconstruction::nested:
      return static_cast<std::int64_t>(ordered::pool_bytes_per_operation([&c]() -> task<value> { co_return co_await c.get_nested(0); }));
    case reconstruction::elided: return static_cast<std::int64_t>(ordered::pool_bytes_per_operation([&c] { return c.get_task(0); }));
    case reconstruction::flat: {
      value out;
      return static_cast<std::int64_t>(ordered::pool_bytes_per_operation([&c, &out] { return c.get_flat_into(0, out); }));
    }
    case reconstruction::context:
    case reconstruction::wrapped: return static_cast<std::int64_t>(arena_bytes_per_read(c, how, 0));
  }
  return 0;
}

// The share of column 0's index vector (an int64 Main in both mixes) the kernel put on 2 MiB
// pages: what --pages obtained (vectors under 4 MiB are malloc memory, never huge).
double index_vector_huge_share(const column& first) {
  const bit_packed_vector& codes = dynamic_cast<const typed_column<std::int64_t>&>(first).main().codes();
  const double huge = static_cast<double>(braid::detail::huge_bytes_in(codes.word_of(0), codes.memory_bytes()));
  return std::min(1.0, huge / static_cast<double>(codes.memory_bytes()));
}

void run_reconstruction(run_context& context) {
  const bool quick = context.quick();
  const std::vector<std::size_t> widths = setting_list(context, "columns", quick ? std::vector<std::size_t>{10, 100} : std::vector<std::size_t>{10, 100, 1000});
  const std::size_t table_bytes = context.sizes_or({quick ? std::size_t{64} << 20 : dram_resident_bytes()}).front();
  const std::vector<std::size_t> groups = context.groups_or(quick ? std::vector<std::size_t>{8} : std::vector<std::size_t>{4, 8, 16, 32});
  const unsigned repetitions = context.repetitions_or(quick ? 2 : 5);
  const page_size pages = context.pages_or(page_size::huge_2m);
  const table_types types = parse_table_types(context);
  for (std::size_t index = 0; index < widths.size(); ++index) {
    const std::size_t columns = widths[index];
    column_schema schema;
    std::size_t row_bytes = 0;
    for (std::size_t c = 0; c < columns; ++c) {
      schema.columns.push_back(reconstruction_spec(c, types));
      row_bytes += reconstruction_row_bytes(schema.columns.back());
    }
    const std::size_t rows = std::max<std::size_t>(table_bytes / row_bytes, 16);
    const std::size_t distinct = std::max<std::size_t>(rows / 2, 2);
    const std::size_t lookups = context.keys_or(std::max<std::size_t>((quick ? 200'000 : 2'000'000) / columns, 16));
    context.configuration(index, widths.size(), std::to_string(columns) + " columns");
    context.require_memory(row_bytes * rows * 3 / 2, "column-reconstruction table");
    context.progress("building " + std::to_string(columns) + " columns of " + std::to_string(rows) + " rows");
    random_source random(context.seed() + columns);
    std::vector<std::unique_ptr<column>> built;
    for (std::size_t c = 0; c < columns; ++c) built.push_back(build_reconstruction_column(schema.columns[c], c, rows, distinct, random, pages));
    const double huge_share = index_vector_huge_share(*built.front());
    const table t(schema, std::move(built));
    std::vector<std::size_t> probe_rows(lookups);
    for (std::size_t& r : probe_rows) r = random.below(rows);

    std::vector<technique_run> runs;
    for (const std::string& name : reconstruction_names) {
      if (!context.selected(name)) continue;
      const reconstruction how = parse_reconstruction(name);
      const std::vector<std::size_t> its_groups = how == reconstruction::naive ? std::vector<std::size_t>{1} : groups;
      for (std::size_t group : its_groups) {
        const std::string label = how == reconstruction::naive ? name : name + "@" + std::to_string(group);
        runs.push_back({label, [&t, &probe_rows, how, group] {
                          std::vector<value> out(t.column_count());
                          std::uint64_t sum = 0;
                          for (std::size_t i = 0; i < probe_rows.size(); ++i) {
                            t.reconstruct_into(probe_rows[i], how, group, out);
                            for (std::size_t c = 0; c < out.size(); ++c) sum += out[c].fingerprint() * (2 * (i * out.size() + c) + 1);
                          }
                          return sum;
                        }});
      }
    }
    if (runs.empty()) return;
    context.progress("measuring tuple reconstruction over " + std::to_string(columns) + " columns");
    const std::vector<measurement> measured = measure_interleaved(runs, repetitions, &context);
    require_same_checksums(measured, "column-reconstruction");
    double naive_ns = 0;
    for (const measurement& m : measured) {
      if (m.name == "naive") naive_ns = m.median_ns;
    }
    for (const measurement& m : measured) {
      const auto at = m.name.find('@');
      const std::string name = m.name.substr(0, at);
      const double per_row = m.median_ns / static_cast<double>(lookups);
      result_row row;
      row.set("structure", "column-table")
          .set("technique", name)
          .set("pass", m.name)
          .set("group", static_cast<std::int64_t>(at == std::string::npos ? 1 : std::stoll(m.name.substr(at + 1))))
          .set("columns", static_cast<std::int64_t>(columns))
          .set("rows", static_cast<std::int64_t>(rows))
          .set("types", types == table_types::integer ? "integer" : "mixed")
          .set("size_bytes", static_cast<std::int64_t>(row_bytes * rows))
          .set("ops", static_cast<std::int64_t>(lookups))
          .set("ns_per_op", per_row)
          .set("ns_per_column", per_row / static_cast<double>(columns))
          .set("frame_bytes", frame_bytes_of(t, parse_reconstruction(name)))
          .set("pages", to_string(pages))
          .set("index_vector_huge_share", huge_share)
          .set("checksum", std::to_string(m.checksum));
      if (naive_ns > 0) row.set("speedup_vs_naive", naive_ns / m.median_ns);
      context.emit(std::move(row));
    }
  }
}

const registration reconstruction_experiment{experiment{
    .name = "column-reconstruction",
    .reproduces = "interleaving thesis (Psaropoulos 2019) Fig. 4.17 / 4.18, tuple reconstruction",
    .summary = "SELECT * WHERE key = x over 10/100/1000 polymorphic columns: naive vs nested (pool or context arena), wrapped, elided and flat",
    .techniques = reconstruction_names,
    .accepted = accepts_size | accepts_keys | accepts_group | accepts_technique | accepts_pages,
    .settings = {{"columns", "N[,N...]", "the table widths (default 10,100,1000)"},
                 {"types", "integer | mixed", "all INTEGER columns (Fig. 4.17) or a third each INTEGER, DECIMAL(10,2), VARCHAR(50) (Fig. 4.18; the default)"}},
    .run = run_reconstruction,
}};

}  // namespace
}  // namespace braid::bench
