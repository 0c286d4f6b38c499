// The column-store table against a plain row-store reference: random schemas, data with
// duplicates and extreme values, appends and merges in between, IN-predicates with every
// locate technique, tuple reconstruction in every form; CSV loading and its errors; find_key
// through the key column's first-row maps against a scan, for every key type, through
// appends, merges, truncates and failed loads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "braid/column/table.hpp"
#include "braid/column/varchar_column.hpp"

namespace braid {
namespace {

// The reference: rows of values, queried by plain loops.
struct row_store {
  std::vector<std::vector<value>> rows;

  [[nodiscard]] std::size_t count_in(std::size_t column, const std::vector<value>& list) const {
    std::size_t count = 0;
    for (const auto& row : rows) count += std::find(list.begin(), list.end(), row[column]) != list.end();
    return count;
  }
  [[nodiscard]] std::optional<std::size_t> find(std::size_t column, value v) const {
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (rows[r][column] == v) return r;
    }
    return std::nullopt;
  }
};

column_spec random_spec(std::mt19937_64& random, std::size_t index) {
  column_spec spec;
  spec.name = "c" + std::to_string(index);
  switch (random() % 4) {
    case 0: spec.type = column_type::int32; break;
    case 1: spec.type = column_type::int64; break;
    case 2:
      spec.type = column_type::varchar;
      spec.length = std::vector<unsigned>{1, 3, 16, 50}[random() % 4];
      break;
    default:
      spec.type = column_type::decimal;
      spec.precision = 1 + static_cast<unsigned>(random() % 18);
      spec.scale = static_cast<unsigned>(random() % (spec.precision + 1));
  }
  return spec;
}

// A text of a varchar(n): from a small pool of texts with long shared prefixes (cut to n bytes:
// more duplicates), or the extremes: empty, n bytes of the lowest or highest printable byte.
value random_text(std::mt19937_64& random, const column_spec& spec, std::size_t pool) {
  switch (random() % 10) {
    case 0: return "";
    case 1: return std::string(spec.length, random() % 2 == 0 ? ' ' : '~');
    default: {
      const std::size_t k = random() % pool;
      std::string text = std::string(k % 3 == 0 ? "aaaaaaaaaaaaaaaaaaaaaaaa" : "shared/prefix/of/texts/") + std::to_string(k);
      text.resize(std::min<std::size_t>(text.size(), spec.length - (k % 2)));
      return text;
    }
  }
}

// A value of the column's type: from a small pool (duplicates), or the type's extremes.
value random_value(std::mt19937_64& random, const column_spec& spec, std::size_t pool) {
  if (spec.type == column_type::varchar) return random_text(random, spec, pool);
  std::int64_t low = INT64_MIN;
  std::int64_t high = INT64_MAX;
  if (spec.type == column_type::int32) {
    low = INT32_MIN;
    high = INT32_MAX;
  } else if (spec.type == column_type::decimal) {
    high = 1;
    for (unsigned i = 0; i < spec.precision; ++i) high *= 10;
    high -= 1;
    low = -high;
  }
  switch (random() % 10) {
    case 0: return low;
    case 1: return high;
    default: return std::clamp<std::int64_t>(static_cast<std::int64_t>(random() % pool) - static_cast<std::int64_t>(pool / 2), low, high);
  }
}

std::vector<value> random_list(std::mt19937_64& random, const column_spec& spec, std::size_t pool) {
  std::vector<value> list(random() % 4 == 0 ? 0 : random() % 40);
  for (value& v : list) {
    const auto kind = random() % 8;
    if (kind == 0) v = INT64_MAX;                                          // outside an int32 / decimal, not a text
    else if (kind == 1) v = static_cast<std::int64_t>(pool) * 3 + 1;       // absent
    else if (kind == 2) v = std::string(spec.length + 1, 'a');             // longer than a varchar
    else if (kind == 3) v = "shared/prefix/of/texts/x";                   // absent, between present texts
    else v = random_value(random, spec, pool);
  }
  if (!list.empty() && random() % 2 == 0) list.push_back(list.front());  // a repeat
  return list;
}

constexpr technique main_techniques[] = {technique::naive, technique::gp,    technique::amac,    technique::coro,
                                         technique::coro_nested, technique::fiber, technique::adaptive};
constexpr technique delta_techniques[] = {technique::naive, technique::coro, technique::coro_nested, technique::fiber,
                                          technique::adaptive};
constexpr technique varchar_main_techniques[] = {technique::naive, technique::gp,          technique::amac,
                                                 technique::coro,  technique::coro_nested, technique::adaptive};
constexpr technique varchar_delta_techniques[] = {technique::naive, technique::coro, technique::coro_nested, technique::adaptive};
constexpr reconstruction reconstructions[] = {reconstruction::naive, reconstruction::nested, reconstruction::elided,
                                              reconstruction::flat,  reconstruction::context, reconstruction::wrapped};

void check_against_reference(std::uint64_t seed) {
  std::mt19937_64 random(seed);
  column_schema schema;
  const std::size_t columns = 1 + random() % 6;
  for (std::size_t c = 0; c < columns; ++c) schema.columns.push_back(random_spec(random, c));
  schema.key = random() % columns;
  table t(schema);
  row_store reference;
  const std::size_t pool = 1 + random() % 200;
  const std::size_t batches = 1 + random() % 4;
  for (std::size_t batch = 0; batch < batches; ++batch) {
    const std::size_t rows = random() % 400;
    std::vector<std::vector<value>> by_column(columns, std::vector<value>(rows));
    for (std::size_t r = 0; r < rows; ++r) {
      std::vector<value> row(columns);
      for (std::size_t c = 0; c < columns; ++c) row[c] = by_column[c][r] = random_value(random, schema.columns[c], pool);
      reference.rows.push_back(row);
    }
    t.append_columns(by_column);
    if (random() % 2 == 0) t.merge();
  }
  ASSERT_EQ(t.size(), reference.rows.size());

  for (std::size_t query = 0; query < 6; ++query) {
    const std::size_t c = random() % columns;
    const std::vector<value> list = random_list(random, schema.columns[c], pool);
    const std::size_t expected = reference.count_in(c, list);
    const std::size_t group = std::vector<std::size_t>{1, 3, 16, 1000}[random() % 4];
    const bool text = schema.columns[c].type == column_type::varchar;
    for (technique main : text ? std::span<const technique>(varchar_main_techniques) : std::span<const technique>(main_techniques)) {
      for (technique delta : text ? std::span<const technique>(varchar_delta_techniques) : std::span<const technique>(delta_techniques)) {
        const in_predicate_result got = t.count_in(schema.columns[c].name, list, {main, delta, group});
        ASSERT_EQ(got.total(), expected) << "seed " << seed << " main " << to_string(main) << " delta "
                                         << to_string(delta) << " group " << group;
      }
    }
  }
  for (std::size_t query = 0; query < 10 && !reference.rows.empty(); ++query) {
    const std::size_t row = random() % reference.rows.size();
    const value absent = schema.columns[schema.key].type == column_type::varchar && query % 2 == 0
                             ? value("shared/prefix/of/texts/x")
                             : value(static_cast<std::int64_t>(pool) * 3 + 1);
    const value key = query % 3 == 0 ? absent : reference.rows[row][schema.key];
    const auto expected_row = reference.find(schema.key, key);
    ASSERT_EQ(t.find_key(key), expected_row);
    for (reconstruction how : reconstructions) {
      for (std::size_t group : {std::size_t{1}, std::size_t{2}, columns, columns + 5}) {
        const auto got = t.select_by_key(key, how, group);
        ASSERT_EQ(got.has_value(), expected_row.has_value());
        if (got) {
          ASSERT_EQ(*got, reference.rows[*expected_row]) << "seed " << seed << " " << to_string(how);
        }
        ASSERT_EQ(t.reconstruct(row, how, group), reference.rows[row]);
      }
    }
  }
}

TEST(Table, AgreesWithARowStoreOnRandomSchemasAndQueries) {
  for (std::uint64_t seed = 0; seed < 60; ++seed) check_against_reference(seed);
}

TEST(Table, ChecksArguments) {
  table t(column_schema::parse("id:int64,q:int32"));
  t.generate(10, 3, 1);
  EXPECT_EQ(t.size(), 10u);
  EXPECT_THROW((void)t.reconstruct(10, reconstruction::naive, 1), std::invalid_argument);
  EXPECT_THROW((void)t.reconstruct(0, reconstruction::elided, 0), std::invalid_argument);
  const std::vector<value> list{1};
  EXPECT_THROW((void)t.count_in("q", list, {technique::naive, technique::naive, 0}), std::invalid_argument);
  EXPECT_THROW((void)t.count_in("q", list, {technique::naive, technique::gp, 4}), std::invalid_argument);
  EXPECT_THROW((void)t.count_in("q", list, {technique::naive, technique::amac, 4}), std::invalid_argument);
  EXPECT_THROW((void)t.count_in("q", list, {technique::naive, technique::fiber, 0}), std::invalid_argument);
  EXPECT_THROW((void)t.count_in("q", list, {technique::coro_nested, technique::naive, 0}), std::invalid_argument);
  EXPECT_THROW((void)t.count_in("nope", list, {}), std::invalid_argument);
  EXPECT_THROW(t.append_columns({{1}}), std::invalid_argument);
  EXPECT_THROW(t.append_columns({{1, 2}, {3}}), std::invalid_argument);
  EXPECT_THROW(t.append_columns({{1}, {std::int64_t{INT32_MAX} + 1}}), std::invalid_argument);
  EXPECT_THROW(t.append_columns({{1}, {"2"}}), std::invalid_argument);
  EXPECT_EQ(t.size(), 10u);
  EXPECT_EQ(t.at(1).size(), 10u);
  EXPECT_THROW(t.generate(1, 0, 1), std::invalid_argument);
  EXPECT_EQ(parse_reconstruction("elided"), reconstruction::elided);
  EXPECT_THROW((void)parse_reconstruction("x"), std::invalid_argument);
  for (reconstruction how : reconstructions) EXPECT_EQ(parse_reconstruction(to_string(how)), how);
  EXPECT_THROW((void)t.reconstruct(0, reconstruction::wrapped, 0), std::invalid_argument);
  EXPECT_THROW((void)arena_bytes_per_read(t.at(0), reconstruction::nested, 0), std::invalid_argument);
  EXPECT_THROW((void)arena_bytes_per_read(t.at(0), reconstruction::context, 10), std::invalid_argument);
}

// A root awaiting one column read, its frames from `context` like every frame below it.
[[gnu::noinline]] task<value> read_nested_root(const column& c, lookup_context& context, std::size_t row) {
  co_return co_await c.get_nested(context, row);
}
[[gnu::noinline]] task<value> read_wrapped_root(const column& c, lookup_context& context, std::size_t row) {
  co_return co_await c.get_wrapped(context, row);
}

// Suspended at its first fetch, a read's frames are all in the arena, none in the pool. How
// many there are is the compiler's (Clang at -O3 places the fragment's helpers inside their
// caller's frame); the wrapped read never takes more arena bytes than the nested one, and a
// whole read fits the arena.
TEST(Table, ContextReadsKeepTheirWholeChainInTheArena) {
  table t(column_schema::parse("id:int64,q:int32,p:decimal(9,2)"));
  t.generate(100, 7, 3);
  t.merge();
  t.generate(50, 7, 4);  // rows 100.. in the Delta
  for (std::size_t row : {std::size_t{5}, std::size_t{120}}) {
    const std::vector<value> expected = t.reconstruct(row, reconstruction::naive, 1);
    for (std::size_t c = 0; c < t.column_count(); ++c) {
      lookup_context context(reconstruction_arena_bytes);
      const auto pool_before = frame_pool::statistics().live_frames;
      for (bool elided : {false, true}) {
        task<value> root = elided ? read_wrapped_root(t.at(c), context, row) : read_nested_root(t.at(c), context, row);
        root.resume();
        EXPECT_GE(context.live_frames(), 2u) << "at least the root and the virtual call's task";
        EXPECT_EQ(frame_pool::statistics().live_frames, pool_before);
        while (!root.done()) root.resume();
        EXPECT_EQ(root.take_result(), expected[c]);
        root.reset();
        context.reset();
      }
      EXPECT_EQ(context.fallbacks(), 0u);
      const std::size_t nested = arena_bytes_per_read(t.at(c), reconstruction::context, row);
      const std::size_t elided = arena_bytes_per_read(t.at(c), reconstruction::wrapped, row);
      EXPECT_GT(elided, 0u);
      EXPECT_LT(elided, nested) << "the column-level frame is gone";
      EXPECT_LE(nested, reconstruction_arena_bytes);
    }
  }
}

// The output of reconstruct_into is reused from row to row, as a caller does: a value of the
// other kind, or a longer text, is overwritten by every form.
TEST(Table, ReconstructIntoOverwritesReusedValuesOfEitherKind) {
  table t(column_schema::parse("id:int64,name:varchar(20),p:decimal(9,2)"));
  t.generate(60, 11, 5);
  t.merge();
  t.generate(30, 11, 6);  // rows 60.. in the Delta
  for (const reconstruction how : reconstructions) {
    std::vector<value> out = {std::string(64, '#'), 77, "stale"};
    for (std::size_t row = 0; row < t.size(); row += 7) {
      t.reconstruct_into(row, how, 2, out);
      ASSERT_EQ(out, t.reconstruct(row, reconstruction::naive, 1)) << to_string(how) << " row " << row;
      out = {"text where an integer was", 12345, std::string(30, 'z')};
    }
  }
}

TEST(Table, OverPrebuiltColumns) {
  const column_schema schema = column_schema::parse("a:int32,b:int64");
  std::vector<std::unique_ptr<column>> columns;
  columns.push_back(make_column(schema.columns[0]));
  columns.push_back(make_column(schema.columns[1]));
  const std::vector<value> values{4, 5};
  columns[0]->append(values);
  columns[1]->append(values);
  const table t(schema, std::move(columns));
  EXPECT_EQ(t.reconstruct(1, reconstruction::elided, 2), (std::vector<value>{5, 5}));
  std::vector<std::unique_ptr<column>> wrong;
  wrong.push_back(make_column(schema.columns[1]));
  wrong.push_back(make_column(schema.columns[1]));
  EXPECT_THROW(table(schema, std::move(wrong)), std::invalid_argument);
  std::vector<std::unique_ptr<column>> ragged;
  ragged.push_back(make_column(schema.columns[0]));
  ragged.push_back(make_column(schema.columns[1]));
  ragged[0]->append(values);
  EXPECT_THROW(table(schema, std::move(ragged)), std::invalid_argument);
}

TEST(Table, GeneratedKeysAreUniqueAndFindable) {
  table t(column_schema::parse("a:int32,id:int64,p:decimal(9,3)", "id"));
  t.generate(500, 7, 3);
  t.merge();
  t.generate(100, 7, 4);
  for (int key : {0, 250, 499, 500, 599}) {
    const auto row = t.find_key(key);
    ASSERT_TRUE(row);
    EXPECT_EQ(*row, static_cast<std::size_t>(key));
  }
  EXPECT_FALSE(t.find_key(600));
  EXPECT_LE(t["a"].main_dictionary_size(), 7u);
}

TEST(Csv, LoadsRowsInAnyColumnOrder) {
  table t(column_schema::parse("id:int64,qty:int32,price:decimal(6,2)", "id"));
  std::istringstream in("price,id,qty\r\n1.5,10,-3\n0,11,7\n-9999.99,12,0\n");
  t.load_csv(in, "orders.csv");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t.reconstruct(0, reconstruction::naive, 1), (std::vector<value>{10, -3, 150}));
  EXPECT_EQ(t.reconstruct(2, reconstruction::flat, 2), (std::vector<value>{12, 0, -999999}));
  std::istringstream header_only("id,qty,price\n");
  t.load_csv(header_only, "empty.csv");
  EXPECT_EQ(t.size(), 3u);
}

TEST(Csv, AMalformedRowNamesItsLineAndLoadsNothing) {
  const column_schema schema = column_schema::parse("id:int64,qty:int32,price:decimal(6,2)", "id");
  struct bad_case {
    const char* text;
    std::size_t line;
    const char* says;
  };
  const bad_case cases[] = {
      {"", 1, "no header"},
      {"id,qty\n", 1, "lacks column 'price'"},
      {"id,qty,price,extra\n", 1, "'extra'"},
      {"id,qty,qty\n", 1, "twice"},
      {"id,qty,price\n1,2,3\n4,5\n", 3, "2 fields"},
      {"id,qty,price\n1,2,3\n4,5,6,7\n", 3, "4 fields"},
      {"id,qty,price\n1,2,3\n\n", 3, "1 fields"},
      {"id,qty,price\n1,2,3\n4,x,6\n", 3, "'x'"},
      {"id,qty,price\n1,2,3\n4,5,6.123\n", 3, "fraction digits"},
      {"id,qty,price\n1,2,3\n4,5,6\n7,3000000000,1\n", 4, "out of range"},
      {"id,qty,price\n1,2,10000\n", 2, "precision"},
      {"id,qty,price\n1,,3\n", 2, "qty"},
  };
  const column_schema with_text = column_schema::parse("id:int64,name:varchar(4)", "id");
  const bad_case text_cases[] = {
      {"id,name\n1,abcd\n2,abcde\n", 3, "longer than 4 bytes"},
      {"id,name\n1,ab,c\n", 2, "3 fields"},
      {"name,id\n,1\nx,y\n", 3, "'y'"},
  };
  for (const bad_case& c : text_cases) {
    table t(with_text);
    t.generate(5, 2, 1);
    std::istringstream in(c.text);
    try {
      t.load_csv(in, "names.csv");
      ADD_FAILURE() << "no error for: " << c.text;
    } catch (const csv_error& e) {
      EXPECT_EQ(e.line(), c.line) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
    }
    EXPECT_EQ(t.size(), 5u) << c.text;
    EXPECT_EQ(t.at(1).size(), 5u);
  }
  for (const bad_case& c : cases) {
    table t(schema);
    t.generate(5, 2, 1);
    std::istringstream in(c.text);
    try {
      t.load_csv(in, "data.csv");
      ADD_FAILURE() << "no error for: " << c.text;
    } catch (const csv_error& e) {
      const std::string message = e.what();
      EXPECT_EQ(e.line(), c.line) << message;
      EXPECT_TRUE(message.starts_with("data.csv:" + std::to_string(c.line) + ": ")) << message;
      EXPECT_NE(message.find(c.says), std::string::npos) << message;
    }
    EXPECT_EQ(t.size(), 5u) << c.text;
    for (std::size_t col = 0; col < t.column_count(); ++col) EXPECT_EQ(t.at(col).size(), 5u);
  }
  table t(schema);
  EXPECT_THROW(t.load_csv_file("/nonexistent/braid/column.csv"), csv_error);
}

TEST(Csv, LoadsVarcharFieldsAsTheyAre) {
  table t(column_schema::parse("id:int64,name:varchar(6),price:decimal(4,1)", "id"));
  std::istringstream in("name,id,price\r\n ada ,1,2.5\n,2,0\nsix by,3,-1\n");
  t.load_csv(in, "people.csv");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t.reconstruct(0, reconstruction::naive, 1), (std::vector<value>{1, " ada ", 25}));
  EXPECT_EQ(t.reconstruct(1, reconstruction::nested, 3), (std::vector<value>{2, "", 0}));
  t.merge();
  EXPECT_EQ(t.reconstruct(2, reconstruction::flat, 2), (std::vector<value>{3, "six by", -10}));
  const std::vector<value> list{"", "six by", "nobody", 3};
  EXPECT_EQ(t.count_in("name", list, {technique::coro, technique::coro, 2}).total(), 2u);
}

TEST(Table, GeneratesVarcharColumnsWithSharedPrefixes) {
  const column_schema schema = column_schema::parse("id:varchar(8),name:varchar(50),tag:varchar(1),q:int32", "id");
  table t(schema);
  t.generate(2000, 300, 9);
  table again(schema);
  again.generate(2000, 300, 9);
  t.merge();
  for (std::size_t row = 0; row < t.size(); row += 97) {
    EXPECT_EQ(t.reconstruct(row, reconstruction::elided, 4), again.reconstruct(row, reconstruction::naive, 1)) << row;
  }
  const auto& name = dynamic_cast<const varchar_column&>(t["name"]);
  EXPECT_GT(name.main_dictionary_size(), 250u);
  EXPECT_LE(name.main_dictionary_size(), 300u);
  std::size_t full_bytes = 0;
  std::size_t longest = 0;
  for (std::uint32_t code = 0; code < name.main().dictionary_size(); ++code) {
    const std::size_t length = name.main().extract(code).size();
    full_bytes += length;
    longest = std::max(longest, length);
  }
  EXPECT_LE(longest, 50u);
  EXPECT_GT(longest, 30u);
  EXPECT_LT(name.main().dictionary().text_bytes(), full_bytes / 2);  // the shared prefixes are stored once per block
  EXPECT_LE(t["tag"].main_dictionary_size(), 36u);
  for (const char* key : {"0", "1234", "1999"}) {
    const auto row = t.find_key(key);
    ASSERT_TRUE(row) << key;
    EXPECT_EQ(*row, std::stoul(key));
    const auto selected = t.select_by_key(key, reconstruction::flat, 2);
    ASSERT_TRUE(selected);
    EXPECT_EQ((*selected)[0], value(key));
  }
  EXPECT_FALSE(t.find_key("2000"));
  EXPECT_FALSE(t.find_key(5));
  table narrow(column_schema::parse("id:varchar(2),v:int64", "id"));
  narrow.generate(100, 3, 1);
  EXPECT_THROW(narrow.generate(1, 3, 1), std::invalid_argument);  // key 100 needs 3 bytes
  EXPECT_EQ(narrow.size(), 100u);
}

TEST(Table, VarcharColumnsRefuseLocateTechniquesTheyLack) {
  table t(column_schema::parse("id:int64,name:varchar(10)", "id"));
  t.generate(50, 5, 2);
  const std::vector<value> list{"x"};
  for (technique main : {technique::fiber, technique::imlp_dynamic}) {
    EXPECT_THROW((void)t.count_in("name", list, {main, technique::naive, 4}), std::invalid_argument) << to_string(main);
  }
  for (technique delta : {technique::gp, technique::amac, technique::fiber}) {
    EXPECT_THROW((void)t.count_in("name", list, {technique::naive, delta, 4}), std::invalid_argument) << to_string(delta);
  }
  EXPECT_THROW((void)t.count_in("name", list, {technique::coro, technique::coro, 0}), std::invalid_argument);
  EXPECT_THROW((void)t.count_in("name", list, {technique::gp, technique::naive, 0}), std::invalid_argument);
  // Main's gp and amac run (the Delta empty or not) and count what naive counts.
  const std::vector<value> present{t.at(1).get(0), t.at(1).get(7), "x"};
  for (const bool merged : {false, true}) {
    if (merged) t.merge();
    const in_predicate_result expected = t.count_in("name", present, {technique::naive, technique::naive, 1});
    EXPECT_GT(expected.total(), 0u);
    for (technique main : {technique::gp, technique::amac}) {
      for (std::size_t group : {std::size_t{1}, std::size_t{2}, std::size_t{16}}) {
        const in_predicate_result got = t.count_in("name", present, {main, technique::naive, group});
        EXPECT_EQ(got.main_rows, expected.main_rows) << to_string(main) << " merged " << merged;
        EXPECT_EQ(got.delta_rows, expected.delta_rows) << to_string(main) << " merged " << merged;
      }
    }
  }
  const column_schema schema = column_schema::parse("v:varchar(3)");
  std::vector<std::unique_ptr<column>> longer;
  longer.push_back(make_column(column_spec{"v", column_type::varchar, 0, 0, 4}));
  EXPECT_THROW(table(schema, std::move(longer)), std::invalid_argument);
}

// ---- find_key through the key column's first-row maps ------------------------------------------

// Every key of `reference` (each first row, duplicates included) and keys that are absent:
// find_key against the reference's scan; each column's find_first (the key column's through
// its maps, the others' by their scan) likewise. Only the key column keeps maps: a word per
// distinct value of each fragment.
void check_find_key(const table& t, const row_store& reference, const std::vector<value>& absent, const std::string& what) {
  ASSERT_EQ(t.size(), reference.rows.size()) << what;
  const std::size_t key = t.schema().key;
  for (const auto& row : reference.rows) {
    ASSERT_EQ(t.find_key(row[key]), reference.find(key, row[key])) << what << " key " << row[key].to_string();
  }
  for (const value& v : absent) {
    ASSERT_EQ(t.find_key(v), reference.find(key, v)) << what << " absent " << v.to_string();
  }
  for (std::size_t c = 0; c < t.column_count(); ++c) {
    const column& col = t.at(c);
    ASSERT_EQ(col.indexes_first_rows(), c == key) << what << " column " << c;
    const std::size_t words = c == key ? col.main_dictionary_size() + col.delta_dictionary_size() : 0;
    ASSERT_EQ(col.first_row_index_bytes(), words * sizeof(std::size_t)) << what << " column " << c;
    for (std::size_t r = 0; r < reference.rows.size(); r += 7) {
      ASSERT_EQ(col.find_first(reference.rows[r][c]), reference.find(c, reference.rows[r][c])) << what << " column " << c;
    }
  }
}

// A key from a small pool (so duplicates), of the key column's type.
value pooled_key(std::mt19937_64& random, const column_spec& spec, std::size_t pool) {
  const auto k = static_cast<std::int64_t>(random() % pool);
  if (spec.type == column_type::varchar) return std::string(k % 2 == 0 ? "key/" : "key/longer/") + std::to_string(k);
  return spec.type == column_type::decimal ? k * 100 + 25 : k - static_cast<std::int64_t>(pool / 2);
}

TEST(Table, FindKeyAgreesWithAScanThroughAppendsMergesAndFailedLoads) {
  const char* const key_types[] = {"int64", "int32", "decimal(9,2)", "varchar(20)"};
  for (std::uint64_t seed = 0; seed < 24; ++seed) {
    std::mt19937_64 random(seed);
    const std::string key_type = key_types[seed % std::size(key_types)];
    table t(column_schema::parse("v:int32,id:" + key_type + ",w:varchar(8)", "id"));
    const column_spec key_spec = t.schema().columns[1];
    row_store reference;
    const std::size_t pool = 1 + random() % 150;
    const std::vector<value> absent = {std::int64_t{1} << 40, std::int64_t{100'000}, std::int64_t{-100'000}, "key/x", "",
                                       "key/", "key/longer/"};
    const std::string what = "seed " + std::to_string(seed) + " " + key_type;
    check_find_key(t, reference, absent, what + " empty");
    for (std::size_t step = 0; step < 8; ++step) {
      const auto action = random() % 4;
      if (action == 0) {
        t.merge();
      } else if (action == 1) {
        // A CSV whose last line is malformed: nothing of it is loaded.
        std::ostringstream csv;
        csv << "id,w,v\n";
        for (std::size_t r = 0; r < 5; ++r) csv << pooled_key(random, key_spec, pool).to_string() << ",t" << r << "," << r << "\n";
        csv << "1,x,not-a-number\n";
        std::istringstream in(csv.str());
        EXPECT_THROW(t.load_csv(in, "keys.csv"), csv_error);
      } else {
        const std::size_t rows = random() % 60;
        std::vector<std::vector<value>> by_column(3, std::vector<value>(rows));
        for (std::size_t r = 0; r < rows; ++r) {
          by_column[0][r] = static_cast<std::int64_t>(random() % 5);
          by_column[1][r] = pooled_key(random, key_spec, pool);
          by_column[2][r] = std::string(random() % 2 == 0 ? "a" : "bb");
          reference.rows.push_back({by_column[0][r], by_column[1][r], by_column[2][r]});
        }
        t.append_columns(by_column);
      }
      check_find_key(t, reference, absent, what + " step " + std::to_string(step));
    }
  }
}

TEST(Table, FindKeyAfterCsvLoadsAndOverPrebuiltColumns) {
  table t(column_schema::parse("name:varchar(6),id:decimal(6,2)", "name"));
  std::istringstream first("id,name\n1.5,bob\n2,ada\n3,bob\n4,\n");
  t.load_csv(first, "a.csv");
  std::istringstream broken("name,id\ncarol,5\nada,x\n");
  EXPECT_THROW(t.load_csv(broken, "b.csv"), csv_error);
  EXPECT_EQ(t.find_key("carol"), std::nullopt);  // the failed load added nothing
  t.merge();
  std::istringstream second("name,id\ncarol,5\nada,6\n");
  t.load_csv(second, "c.csv");
  EXPECT_EQ(t.find_key("bob"), 0u);
  EXPECT_EQ(t.find_key("ada"), 1u);  // the first row, not the Delta's
  EXPECT_EQ(t.find_key(""), 3u);
  EXPECT_EQ(t.find_key("carol"), 4u);
  EXPECT_EQ(t.find_key("dave"), std::nullopt);
  EXPECT_EQ(t.find_key(5), std::nullopt);  // not a text
  EXPECT_EQ(t.select_by_key("carol", reconstruction::naive, 1), (std::vector<value>{"carol", 500}));

  // Columns filled before the table is built: the table indexes its key column then.
  const column_schema schema = column_schema::parse("a:int32,b:int64", "b");
  std::vector<std::unique_ptr<column>> columns;
  columns.push_back(make_column(schema.columns[0]));
  columns.push_back(make_column(schema.columns[1]));
  const std::vector<value> values{4, 5, 4, 6};
  for (auto& c : columns) c->append(values);
  columns[1]->merge();
  columns[1]->append(std::vector<value>{7, 5});
  columns[0]->append(std::vector<value>{7, 5});
  EXPECT_FALSE(columns[1]->indexes_first_rows());
  const table prebuilt(schema, std::move(columns));
  EXPECT_TRUE(prebuilt["b"].indexes_first_rows());
  EXPECT_FALSE(prebuilt["a"].indexes_first_rows());
  EXPECT_EQ(prebuilt.find_key(4), 0u);
  EXPECT_EQ(prebuilt.find_key(5), 1u);
  EXPECT_EQ(prebuilt.find_key(6), 3u);
  EXPECT_EQ(prebuilt.find_key(7), 4u);
  EXPECT_EQ(prebuilt.find_key(8), std::nullopt);
}

// The maps through a column's own writes, truncate among them (a table truncates only to undo
// an append): every value's first row against a scan of the column, for every column type.
TEST(Table, FirstRowMapsFollowAppendTruncateAndMerge) {
  const char* const specs[] = {"k:int32", "k:int64", "k:decimal(4,1)", "k:varchar(5)"};
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    std::mt19937_64 random(seed);
    const column_spec spec = column_schema::parse(specs[seed % std::size(specs)]).columns[0];
    std::unique_ptr<column> c = make_column(spec);
    std::vector<value> rows;
    auto some_value = [&] {
      const auto k = static_cast<std::int64_t>(random() % 30);
      return spec.type == column_type::varchar ? value("v" + std::to_string(k)) : value(k);
    };
    auto check = [&](const std::string& when) {
      ASSERT_EQ(c->size(), rows.size()) << when;
      for (std::int64_t k = -1; k <= 30; ++k) {
        const value v = spec.type == column_type::varchar ? value("v" + std::to_string(k)) : value(k);
        const auto expected = std::find(rows.begin(), rows.end(), v);
        const std::optional<std::size_t> want =
            expected == rows.end() ? std::nullopt : std::optional<std::size_t>(static_cast<std::size_t>(expected - rows.begin()));
        ASSERT_EQ(c->find_first(v), want) << "seed " << seed << " " << when << " value " << v.to_string();
      }
    };
    if (seed % 2 == 0) c->index_first_rows();  // before any row, or (odd seeds) after some
    for (std::size_t step = 0; step < 10; ++step) {
      if (step == 3) {
        c->index_first_rows();
        c->index_first_rows();  // idempotent
      }
      const auto action = random() % 4;
      if (action == 0) {
        c->merge();
      } else if (action == 1) {
        const std::size_t keep = c->main_size() + random() % (c->delta_size() + 1);
        c->truncate(keep);
        rows.resize(keep);
      } else {
        std::vector<value> batch(random() % 25);
        for (value& v : batch) v = some_value();
        c->append(batch);
        rows.insert(rows.end(), batch.begin(), batch.end());
      }
      check("step " + std::to_string(step));
    }
    EXPECT_TRUE(c->indexes_first_rows());
    EXPECT_EQ(c->first_row_index_bytes(), (c->main_dictionary_size() + c->delta_dictionary_size()) * sizeof(std::size_t));
    EXPECT_THROW(c->truncate(c->size() + 1), std::invalid_argument);
    if (c->main_size() > 0) {
      EXPECT_THROW(c->truncate(c->main_size() - 1), std::invalid_argument);
    }
  }
}

}  // namespace
}  // namespace braid
