#include "braid/query/table.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace braid::query {
namespace {

// A row of the test table: one value of each kind, two text columns (one with few distinct
// values, one nearly unique).
struct sample_row {
  std::int64_t id;
  std::int64_t price_cents;  // decimal, scale 2
  std::int32_t day;
  std::string flag;
  std::string comment;
};

std::vector<column_spec> sample_columns() {
  return {{"id", {value_kind::integer, 0}},
          {"price", {value_kind::decimal, 2}},
          {"day", {value_kind::date, 0}},
          {"flag", {value_kind::text, 0}},
          {"comment", {value_kind::text, 0}}};
}

std::vector<sample_row> sample_rows(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  const std::vector<std::string> flags = {"R", "A", "N", "", "AA", "\xff"};
  std::vector<sample_row> rows;
  for (std::size_t i = 0; i < count; ++i) {
    sample_row row;
    row.id = static_cast<std::int64_t>(random()) >> (random() % 64);
    row.price_cents = static_cast<std::int64_t>(random() % 2000001) - 1000000;
    row.day = static_cast<std::int32_t>(random() % 20000) - 5000;
    row.flag = flags[random() % flags.size()];
    row.comment = "c" + std::to_string(random() % (count + 1));
    rows.push_back(row);
  }
  if (count > 0) rows[0].id = INT64_MIN;
  if (count > 1) rows[1].id = INT64_MAX;
  return rows;
}

std::vector<cell> cells_of(const sample_row& row) {
  return {cell::integer(row.id), cell::decimal(row.price_cents, 2), cell::date(row.day), cell::text(row.flag),
          cell::text(row.comment)};
}

table build(const std::vector<sample_row>& rows, std::size_t tuples) {
  table_builder builder("sample", sample_columns());
  for (const sample_row& row : rows) {
    const std::vector<cell> cells = cells_of(row);
    builder.append_row(cells);
  }
  EXPECT_EQ(builder.rows(), rows.size());
  return std::move(builder).finish(tuples);
}

bool line_aligned(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 64 == 0; }

// Layout, headers and every value, read through column_data and through at().
void expect_table_holds(const table& t, const std::vector<sample_row>& rows, std::size_t tuples) {
  ASSERT_EQ(t.rows(), rows.size());
  ASSERT_EQ(t.tuples_per_fragment(), tuples);
  ASSERT_EQ(t.columns().size(), 5U);
  ASSERT_EQ(t.fragment_count(), (rows.size() + tuples - 1) / tuples);
  // Offsets: header line first, each array on its own lines, in column order, none overlapping.
  std::size_t expected_offset = 64;
  for (std::size_t c = 0; c < t.columns().size(); ++c) {
    EXPECT_EQ(t.column_offset(c), expected_offset) << c;
    EXPECT_EQ(t.column_offset(c) % 64, 0U);
    const std::size_t bytes = tuples * width_of(t.columns()[c].type);
    expected_offset += (bytes + 63) / 64 * 64;
  }
  EXPECT_EQ(t.fragment_bytes(), expected_offset);
  EXPECT_EQ(t.fragment_bytes() % 64, 0U);

  const text_dictionary& flags = t.dictionary(3);
  const text_dictionary& comments = t.dictionary(4);
  std::uint64_t row = 0;
  for (std::size_t f = 0; f < t.fragment_count(); ++f) {
    ASSERT_TRUE(line_aligned(t.fragment(f)));
    if (f > 0) {
      EXPECT_EQ(t.fragment(f), t.fragment(f - 1) + t.fragment_bytes());  // one contiguous block
    }
    const fragment_header& header = t.header(f);
    EXPECT_EQ(header.index, f);
    EXPECT_EQ(header.first_row, row);
    const std::size_t expected_tuples = f + 1 < t.fragment_count() ? tuples : rows.size() - f * tuples;
    ASSERT_EQ(header.tuples, expected_tuples);
    for (std::size_t c = 0; c < 5; ++c) EXPECT_TRUE(line_aligned(t.column_data<std::byte>(f, c)));
    const auto* ids = t.column_data<std::int64_t>(f, 0);
    const auto* prices = t.column_data<std::int64_t>(f, 1);
    const auto* days = t.column_data<std::int32_t>(f, 2);
    const auto* flag_codes = t.column_data<std::uint32_t>(f, 3);
    const auto* comment_codes = t.column_data<std::uint32_t>(f, 4);
    for (std::size_t i = 0; i < header.tuples; ++i, ++row) {
      const sample_row& expected = rows[row];
      ASSERT_EQ(ids[i], expected.id) << row;
      ASSERT_EQ(prices[i], expected.price_cents) << row;
      ASSERT_EQ(days[i], expected.day) << row;
      ASSERT_EQ(flags.text(flag_codes[i]), expected.flag) << row;
      ASSERT_EQ(comments.text(comment_codes[i]), expected.comment) << row;
      ASSERT_EQ(t.at(row, 0), cell::integer(expected.id));
      ASSERT_EQ(t.at(row, 1), cell::decimal(expected.price_cents, 2));
      ASSERT_EQ(t.at(row, 2), cell::date(expected.day));
      ASSERT_EQ(t.at(row, 3), cell::text(expected.flag));
      ASSERT_EQ(t.at(row, 4), cell::text(expected.comment));
    }
  }
  EXPECT_EQ(row, rows.size());
}

TEST(QueryTable, WidthOfEachKind) {
  EXPECT_EQ(width_of({value_kind::integer, 0}), 8U);
  EXPECT_EQ(width_of({value_kind::decimal, 2}), 8U);
  EXPECT_EQ(width_of({value_kind::date, 0}), 4U);
  EXPECT_EQ(width_of({value_kind::text, 0}), 4U);
}

TEST(QueryTable, ValuesRoundTripAtEveryFragmentSize) {
  const std::vector<sample_row> rows = sample_rows(5000, 11);
  for (const std::size_t tuples : {std::size_t{1}, std::size_t{7}, std::size_t{1024}, std::size_t{5000}, std::size_t{65536}}) {
    SCOPED_TRACE(tuples);
    const table t = build(rows, tuples);
    expect_table_holds(t, rows, tuples);
  }
}

TEST(QueryTable, FragmentSizeBiggerThanTheRowsGivesOnePartialFragment) {
  const std::vector<sample_row> rows = sample_rows(10, 3);
  const table t = build(rows, 1024);
  ASSERT_EQ(t.fragment_count(), 1U);
  EXPECT_EQ(t.header(0).tuples, 10U);
  expect_table_holds(t, rows, 1024);
}

TEST(QueryTable, EmptyTableHasNoFragments) {
  const table t = build({}, 1024);
  EXPECT_EQ(t.rows(), 0U);
  EXPECT_EQ(t.fragment_count(), 0U);
  EXPECT_EQ(t.fragment_bytes(), 64U + 1024 * 8 + 1024 * 8 + 1024 * 4 + 1024 * 4 + 1024 * 4);
  EXPECT_EQ(t.dictionary(3).size(), 0U);
  EXPECT_THROW((void)t.at(0, 0), std::invalid_argument);
  const table copy = t.with_tuples_per_fragment(7);
  EXPECT_EQ(copy.fragment_count(), 0U);
  EXPECT_EQ(copy.fragment_bytes(), 64U + 64 + 64 + 64 + 64 + 64);
}

TEST(QueryTable, TextCodesPreserveOrder) {
  const std::vector<sample_row> rows = sample_rows(3000, 5);
  const table t = build(rows, 100);
  for (const std::size_t c : {std::size_t{3}, std::size_t{4}}) {
    const text_dictionary& dictionary = t.dictionary(c);
    std::set<std::string> distinct;
    for (const sample_row& row : rows) distinct.insert(c == 3 ? row.flag : row.comment);
    ASSERT_EQ(dictionary.values(), std::vector<std::string>(distinct.begin(), distinct.end()));
    // Code order is text order, for every pair of rows of the first fragments.
    for (std::uint64_t a = 0; a < 200; ++a) {
      for (std::uint64_t b = 0; b < 200; ++b) {
        const std::uint32_t code_a = t.column_data<std::uint32_t>(a / 100, c)[a % 100];
        const std::uint32_t code_b = t.column_data<std::uint32_t>(b / 100, c)[b % 100];
        const auto text = [&](std::uint64_t row) { return c == 3 ? rows[row].flag : rows[row].comment; };
        ASSERT_EQ(code_a < code_b, text(a) < text(b)) << a << " " << b;
        ASSERT_EQ(code_a == code_b, text(a) == text(b)) << a << " " << b;
      }
    }
  }
  const text_dictionary& flags = t.dictionary(3);
  ASSERT_EQ(flags.values(), (std::vector<std::string>{"", "A", "AA", "N", "R", "\xff"}));
  EXPECT_EQ(flags.code_of(""), 0U);
  EXPECT_EQ(flags.code_of("AA"), 2U);
  EXPECT_EQ(flags.code_of("\xff"), 5U);  // bytewise: 0xff after every ASCII text
  EXPECT_EQ(flags.code_of("B"), std::nullopt);
  EXPECT_EQ(flags.lower_bound(""), 0U);
  EXPECT_EQ(flags.lower_bound("A"), 1U);
  EXPECT_EQ(flags.lower_bound("AB"), 3U);  // prefix range ["A", "B") is codes [1, 3)
  EXPECT_EQ(flags.lower_bound("B"), 3U);
  EXPECT_EQ(flags.lower_bound("\xff\xff"), 6U);
  EXPECT_EQ(flags.text(4), "R");
  EXPECT_THROW((void)flags.text(6), std::out_of_range);
}

TEST(QueryTable, TextDictionaryRefusesUnsortedOrRepeatedValues) {
  EXPECT_NO_THROW(text_dictionary({"a", "b"}));
  EXPECT_THROW(text_dictionary({"b", "a"}), std::invalid_argument);
  EXPECT_THROW(text_dictionary({"a", "a"}), std::invalid_argument);
  const text_dictionary empty;
  EXPECT_EQ(empty.code_of("a"), std::nullopt);
  EXPECT_EQ(empty.lower_bound("a"), 0U);
}

TEST(QueryTable, WithTuplesPerFragmentKeepsTheContent) {
  const std::vector<sample_row> rows = sample_rows(2500, 9);
  const table original = build(rows, 7);
  for (const std::size_t tuples : {std::size_t{1}, std::size_t{3}, std::size_t{7}, std::size_t{1024}, std::size_t{65536}}) {
    SCOPED_TRACE(tuples);
    const table copy = original.with_tuples_per_fragment(tuples);
    EXPECT_EQ(copy.name(), "sample");
    expect_table_holds(copy, rows, tuples);
    EXPECT_EQ(copy.dictionary(4).values(), original.dictionary(4).values());
  }
  EXPECT_THROW((void)original.with_tuples_per_fragment(0), std::invalid_argument);
  EXPECT_THROW((void)original.with_tuples_per_fragment(65537), std::invalid_argument);
}

TEST(QueryTable, ColumnIndexAndDictionaryArguments) {
  const table t = build(sample_rows(5, 1), 4);
  EXPECT_EQ(t.column_index("id"), 0U);
  EXPECT_EQ(t.column_index("comment"), 4U);
  try {
    (void)t.column_index("nope");
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sample"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("nope"), std::string::npos);
  }
  EXPECT_THROW((void)t.dictionary(0), std::invalid_argument);  // integer
  EXPECT_THROW((void)t.dictionary(2), std::invalid_argument);  // date
  EXPECT_THROW((void)t.dictionary(5), std::invalid_argument);
  EXPECT_THROW((void)t.at(5, 0), std::invalid_argument);
  EXPECT_THROW((void)t.at(0, 5), std::invalid_argument);
  EXPECT_THROW((void)t.column_offset(5), std::out_of_range);
}

TEST(QueryTable, BuilderRefusesBadSchemas) {
  using kind = value_kind;
  EXPECT_THROW(table_builder("t", {}), std::invalid_argument);
  EXPECT_THROW(table_builder("t", {{"", {kind::integer, 0}}}), std::invalid_argument);
  EXPECT_THROW(table_builder("t", {{"a", {kind::integer, 0}}, {"a", {kind::text, 0}}}), std::invalid_argument);
  EXPECT_THROW(table_builder("t", {{"a", {kind::decimal, 19}}}), std::invalid_argument);
  EXPECT_NO_THROW(table_builder("t", {{"a", {kind::decimal, 18}}}));
  EXPECT_THROW(table_builder("t", {{"a", {kind::integer, 2}}}), std::invalid_argument);
  EXPECT_THROW(table_builder("t", {{"a", {kind::text, 1}}}), std::invalid_argument);
  EXPECT_THROW(table_builder("t", {{"a", {static_cast<kind>(9), 0}}}), std::invalid_argument);
}

TEST(QueryTable, BuilderRefusesBadRowsAndAppendsNothing) {
  table_builder builder("t", sample_columns());
  const std::vector<cell> good = cells_of({1, 250, 10, "A", "x"});
  builder.append_row(good);
  const auto refused = [&](std::vector<cell> row) {
    EXPECT_THROW(builder.append_row(row), std::invalid_argument);
    EXPECT_EQ(builder.rows(), 1U);
  };
  refused({});                                                          // too few
  refused({good[0], good[1], good[2], good[3], good[4], good[4]});      // too many
  refused({cell::text("1"), good[1], good[2], good[3], good[4]});       // text for an integer
  refused({good[0], cell::decimal(250, 1), good[2], good[3], good[4]}); // another scale
  refused({good[0], cell::integer(250), good[2], good[3], good[4]});    // integer for a decimal
  refused({good[0], good[1], cell::date(std::int64_t{1} << 31), good[3], good[4]});  // date outside int32
  refused({good[0], good[1], good[2], cell::integer(1), good[4]});      // number for a text
  refused({cell::integer(int128{1} << 63), good[1], good[2], good[3], good[4]});  // outside int64
  // The same through the raw form.
  std::vector<raw_value> raw(5);
  EXPECT_THROW(builder.append_raw(std::span<const raw_value>(raw).first(4)), std::invalid_argument);
  raw[2].number = std::int64_t{1} << 40;
  EXPECT_THROW(builder.append_raw(raw), std::invalid_argument);
  EXPECT_EQ(builder.rows(), 1U);
  raw = {{7, {}}, {-5, {}}, {-1, {}}, {0, "B"}, {0, "y"}};
  builder.append_raw(raw);
  EXPECT_EQ(builder.rows(), 2U);
  // A refused fragment size leaves the builder usable.
  EXPECT_THROW((void)std::move(builder).finish(0), std::invalid_argument);
  EXPECT_THROW((void)std::move(builder).finish(65537), std::invalid_argument);
  const table t = std::move(builder).finish(1);
  ASSERT_EQ(t.rows(), 2U);
  EXPECT_EQ(t.at(0, 1), cell::decimal(250, 2));
  EXPECT_EQ(t.at(1, 0), cell::integer(7));
  EXPECT_EQ(t.at(1, 1), cell::decimal(-5, 2));
  EXPECT_EQ(t.at(1, 2), cell::date(-1));
  EXPECT_EQ(t.at(1, 3), cell::text("B"));
  EXPECT_EQ(t.at(0, 4), cell::text("x"));
  EXPECT_EQ(t.dictionary(3).values(), (std::vector<std::string>{"A", "B"}));
}

TEST(QueryTable, PaddingBetweenColumnsIsZero) {
  // 7 tuples: 56-byte and 28-byte arrays, each padded to 64; the padding stays zero.
  const table t = build(sample_rows(20, 4), 7);
  for (std::size_t f = 0; f < t.fragment_count(); ++f) {
    for (std::size_t c = 0; c < 5; ++c) {
      const std::size_t used = t.header(f).tuples * width_of(t.columns()[c].type);
      const std::size_t end = c + 1 < 5 ? t.column_offset(c + 1) : t.fragment_bytes();
      const std::byte* base = t.fragment(f);
      for (std::size_t b = t.column_offset(c) + used; b < end; ++b) ASSERT_EQ(base[b], std::byte{0}) << f << " " << c;
    }
  }
}

TEST(QueryTable, MovedTableKeepsItsData) {
  const std::vector<sample_row> rows = sample_rows(100, 2);
  table a = build(rows, 16);
  table b = std::move(a);
  expect_table_holds(b, rows, 16);
  table c;
  EXPECT_EQ(c.rows(), 0U);
  EXPECT_EQ(c.fragment_count(), 0U);
  c = std::move(b);
  expect_table_holds(c, rows, 16);
}

}  // namespace
}  // namespace braid::query
