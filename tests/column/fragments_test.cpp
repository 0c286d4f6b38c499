// The column store's building blocks: the bit-packed index vector, value parsing, the Main
// and Delta fragments (every form of locate / extract / get against the plain one), merge.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "braid/column/column.hpp"
#include "braid/column/value_type.hpp"
#include "braid/core/context_scheduler.hpp"
#include "braid/core/scheduler.hpp"

namespace braid {
namespace {

TEST(BitPackedVector, RoundTripsEveryWidth) {
  for (unsigned bits = 1; bits <= 32; ++bits) {
    std::mt19937_64 random(bits);
    const std::size_t n = 1000;
    bit_packed_vector codes(n, bits);
    std::vector<std::uint32_t> expected(n);
    const std::uint64_t limit = std::uint64_t{1} << bits;
    for (std::size_t i = 0; i < n; ++i) {
      expected[i] = static_cast<std::uint32_t>(random() % limit);
      codes.set(i, expected[i]);
    }
    codes.set(n / 2, static_cast<std::uint32_t>(limit - 1));  // overwrite with all ones
    expected[n / 2] = static_cast<std::uint32_t>(limit - 1);
    codes.set(n / 2 + 1, 0);
    expected[n / 2 + 1] = 0;
    std::vector<std::uint32_t> scanned;
    codes.for_each(0, n, [&](std::uint32_t code) { scanned.push_back(code); });
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(codes[i], expected[i]) << bits << " bits, code " << i;
    EXPECT_EQ(scanned, expected);
  }
  EXPECT_EQ(bit_packed_vector::bits_for(0), 1u);
  EXPECT_EQ(bit_packed_vector::bits_for(2), 1u);
  EXPECT_EQ(bit_packed_vector::bits_for(3), 2u);
  EXPECT_EQ(bit_packed_vector::bits_for(256), 8u);
  EXPECT_EQ(bit_packed_vector::bits_for(257), 9u);
  EXPECT_THROW(bit_packed_vector(4, 0), std::invalid_argument);
  EXPECT_THROW(bit_packed_vector(4, 33), std::invalid_argument);
}

TEST(ValueType, ParsesAndFormatsDecimals) {
  const column_spec price{"price", column_type::decimal, 6, 2};
  EXPECT_EQ(parse_value(price, "12.34"), 1234);
  EXPECT_EQ(parse_value(price, "-12.3"), -1230);
  EXPECT_EQ(parse_value(price, "7"), 700);
  EXPECT_EQ(parse_value(price, "0.05"), 5);
  EXPECT_EQ(parse_value(price, "0009999.99"), 999999);
  EXPECT_EQ(format_value(price, -1230), "-12.30");
  EXPECT_EQ(format_value(price, 5), "0.05");
  for (const char* bad : {"", "-", "1.234", "10000", "1e3", "1.", ".5", "+1", " 1", "1,0"}) {
    EXPECT_THROW((void)parse_value(price, bad), std::invalid_argument) << bad;
  }
  const column_spec small{"q", column_type::int32};
  EXPECT_EQ(parse_value(small, "-2147483648"), INT32_MIN);
  EXPECT_THROW((void)parse_value(small, "2147483648"), std::invalid_argument);
  EXPECT_THROW((void)parse_value(small, "12a"), std::invalid_argument);
  const column_spec big{"b", column_type::int64};
  EXPECT_EQ(parse_value(big, "-9223372036854775808"), INT64_MIN);
  EXPECT_THROW((void)parse_value(big, "9223372036854775808"), std::invalid_argument);
}

TEST(ValueType, ValuesHoldIntegersOrTexts) {
  const value integer = 42;
  const value text = "forty-two";
  EXPECT_FALSE(integer.is_text());
  EXPECT_TRUE(text.is_text());
  EXPECT_EQ(integer.integer(), 42);
  EXPECT_EQ(text.text(), "forty-two");
  EXPECT_THROW((void)integer.text(), std::invalid_argument);
  EXPECT_THROW((void)text.integer(), std::invalid_argument);
  EXPECT_EQ(value(), value(0));
  EXPECT_NE(value("1"), value(1));
  EXPECT_LT(value(INT64_MAX), value(""));  // integers before texts
  EXPECT_LT(value("ab"), value("b"));
  EXPECT_EQ(text.to_string(), "forty-two");
  EXPECT_EQ(value(-3).to_string(), "-3");
  EXPECT_NE(value("a").fingerprint(), value("b").fingerprint());
  EXPECT_EQ(value(7).fingerprint(), 7u);
  value reused = std::string(100, 'x');
  const char* const buffer = reused.text().data();
  reused = std::string_view("a shorter text");
  EXPECT_EQ(reused.text(), "a shorter text");
  EXPECT_EQ(reused.text().data(), buffer);  // the capacity was reused
  value copied = std::string(100, 'y');
  const char* const copied_buffer = copied.text().data();
  copied = text;  // a copy into a text: what reconstruct_into's delivery does
  EXPECT_EQ(copied, text);
  EXPECT_EQ(copied.text().data(), copied_buffer);
  value filled = 5;
  filled.text_to_fill() = "now text";
  EXPECT_EQ(filled, value("now text"));
}

TEST(ValueType, ParsesAndFormatsVarchar) {
  const column_spec name{"name", column_type::varchar, 0, 0, 5};
  EXPECT_EQ(parse_value(name, "ab,c"), value("ab,c"));
  EXPECT_EQ(parse_value(name, ""), value(""));
  EXPECT_EQ(parse_value(name, " 12 "), value(" 12 "));
  EXPECT_EQ(parse_value(name, "12345"), value("12345"));
  EXPECT_THROW((void)parse_value(name, "123456"), std::invalid_argument);
  EXPECT_EQ(format_value(name, value("xy")), "xy");
  EXPECT_TRUE(fits(name, value("12345")));
  EXPECT_FALSE(fits(name, value("123456")));
  EXPECT_FALSE(fits(name, value(1)));
  EXPECT_FALSE(fits(column_spec{"q", column_type::int32}, value("1")));
  EXPECT_THROW((void)format_value(column_spec{"q", column_type::int32}, value("1")), std::invalid_argument);
  const column_schema s = column_schema::parse("id:varchar(1),name:varchar(65535),p:decimal(4,2)", "name");
  EXPECT_EQ(s.columns[1].type, column_type::varchar);
  EXPECT_EQ(s.columns[1].length, 65535u);
  EXPECT_EQ(s.key, 1u);
  EXPECT_EQ(s.to_string(), "id:varchar(1),name:varchar(65535),p:decimal(4,2)");
  for (const char* bad : {"a:varchar(0)", "a:varchar(65536)", "a:varchar()", "a:varchar(x)", "a:varchar(5", "a:varchar",
                          "a:varchar(-1)", "a:varchar(1,2)"}) {
    EXPECT_THROW((void)column_schema::parse(bad), std::invalid_argument) << bad;
  }
  EXPECT_THROW((void)make_column(column_spec{"v", column_type::varchar, 0, 0, 0}), std::invalid_argument);
}

TEST(ValueType, ParsesSchemas) {
  const column_schema s = column_schema::parse("id:int64,qty:int32,price:decimal(10,2)", "qty");
  ASSERT_EQ(s.columns.size(), 3u);
  EXPECT_EQ(s.key, 1u);
  EXPECT_EQ(s.columns[2].precision, 10u);
  EXPECT_EQ(s.columns[2].scale, 2u);
  EXPECT_EQ(s.to_string(), "id:int64,qty:int32,price:decimal(10,2)");
  EXPECT_EQ(column_schema::parse("a:int32").key, 0u);
  for (const char* bad : {"", "a", "a:int16", "a:int32,a:int64", "a:decimal(19,2)", "a:decimal(4,5)", "a:decimal(4",
                          "a:int32,", ":int32", "a:decimal(x,1)"}) {
    EXPECT_THROW((void)column_schema::parse(bad), std::invalid_argument) << bad;
  }
  EXPECT_THROW((void)column_schema::parse("a:int32", "b"), std::invalid_argument);
}

template <class Key, class Op>
Key run_one(Op op) {
  std::vector<Key> out = run(interleaved_scheduler{1}, std::vector<int>{0}, [&](int) { return op(); });
  return out[0];
}

template <class Key>
void check_fragment_forms(std::uint64_t seed) {
  std::mt19937_64 random(seed);
  const std::size_t rows = 1 + random() % 3000;
  const std::size_t distinct = 1 + random() % 500;
  std::vector<Key> values(rows);
  for (Key& v : values) {
    v = static_cast<Key>(static_cast<std::int64_t>(random() % distinct) * 7919 - 100000);
  }
  if (seed % 3 == 0) values[0] = std::numeric_limits<Key>::min();
  if (seed % 3 == 1) values[rows - 1] = std::numeric_limits<Key>::max();
  main_fragment<Key> main(values, page_size::small_4k);
  delta_fragment<Key> delta;
  delta.append(std::span<const Key>(values).subspan(0, rows / 2));
  delta.append(std::span<const Key>(values).subspan(rows / 2));
  ASSERT_EQ(main.size(), rows);
  ASSERT_EQ(delta.size(), rows);
  ASSERT_EQ(main.dictionary_size(), delta.dictionary_size());
  delta.index().check_invariants();
  for (std::size_t row = 0; row < rows; ++row) {
    ASSERT_EQ(main.get(row), values[row]);
    ASSERT_EQ(delta.get(row), values[row]);
    ASSERT_EQ(main.extract(*main.locate(values[row])), values[row]);
    ASSERT_EQ(delta.extract(*delta.locate(values[row])), values[row]);
  }
  // Codes: Main's preserve order, Delta's follow first arrival.
  for (std::size_t code = 1; code < main.dictionary_size(); ++code) ASSERT_LT(main.extract(code - 1), main.extract(code));
  EXPECT_EQ(delta.extract(0), values[0]);
  EXPECT_EQ(delta.locate(values[0]), 0u);
  // Every coroutine form, sequential and interleaved, against the plain get.
  std::vector<std::size_t> probe_rows(std::min<std::size_t>(rows, 200));
  for (std::size_t& r : probe_rows) r = random() % rows;
  auto gets = [&]<class M>(M) {
    const auto flat = run(interleaved_scheduler{8}, probe_rows, [&](std::size_t r) { return main.template get_lookup<M>(r); });
    const auto task_form = run(interleaved_scheduler{8}, probe_rows, [&](std::size_t r) { return main.template get_task<M>(r); });
    const auto nested = run(interleaved_scheduler{8}, probe_rows, [&](std::size_t r) { return main.template get_nested<M>(r); });
    const auto delta_flat = run(interleaved_scheduler{8}, probe_rows, [&](std::size_t r) { return delta.template get_lookup<M>(r); });
    const auto delta_task = run(interleaved_scheduler{8}, probe_rows, [&](std::size_t r) { return delta.template get_task<M>(r); });
    const auto delta_nested = run(interleaved_scheduler{8}, probe_rows, [&](std::size_t r) { return delta.template get_nested<M>(r); });
    const auto in_context = run(interleaved_scheduler{8}, context_arena{4096}, probe_rows,
                                [&](lookup_context& c, std::size_t r) { return main.template get_nested<M>(r, c); });
    const auto delta_in_context = run(interleaved_scheduler{8}, context_arena{4096}, probe_rows,
                                      [&](lookup_context& c, std::size_t r) { return delta.template get_nested<M>(r, c); });
    for (std::size_t i = 0; i < probe_rows.size(); ++i) {
      const Key expected = values[probe_rows[i]];
      ASSERT_EQ(flat[i], expected);
      ASSERT_EQ(task_form[i], expected);
      ASSERT_EQ(nested[i], expected);
      ASSERT_EQ(delta_flat[i], expected);
      ASSERT_EQ(delta_task[i], expected);
      ASSERT_EQ(delta_nested[i], expected);
      ASSERT_EQ(in_context[i], expected);
      ASSERT_EQ(delta_in_context[i], expected);
    }
  };
  gets(sequential{});
  gets(interleaved{});
  // locate: present and absent values.
  std::vector<Key> probes;
  for (std::size_t i = 0; i < 200; ++i) probes.push_back(static_cast<Key>(static_cast<std::int64_t>(random() % (2 * distinct)) * 7919 - 100000 + (i % 5 == 0 ? 1 : 0)));
  const auto main_located = run(interleaved_scheduler{8}, probes, [&](Key k) { return main.template locate_lookup<interleaved>(k); });
  const auto delta_located = run(interleaved_scheduler{8}, probes, [&](Key k) { return delta.template locate_lookup<interleaved>(k); });
  const auto nested_located = run(interleaved_scheduler{8}, probes, [&](Key k) { return main.dictionary().template lookup_nested<interleaved>(k); });
  const auto plain_nested = run(interleaved_scheduler{8}, probes, [&](Key k) { return main.dictionary().template lookup_nested<sequential>(k); });
  const auto delta_nested = run(interleaved_scheduler{8}, probes, [&](Key k) { return delta.index().template lookup_nested<interleaved>(k); });
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const auto m = main.locate(probes[i]);
    ASSERT_EQ(main_located[i].has_value(), m.has_value());
    if (m) {
      ASSERT_EQ(*main_located[i], *m);
    }
    ASSERT_EQ(nested_located[i], main_located[i]);
    ASSERT_EQ(plain_nested[i], main_located[i]);
    ASSERT_EQ(delta_located[i], delta.locate(probes[i]));
    ASSERT_EQ(delta_nested[i], delta_located[i]);
    ASSERT_EQ(m.has_value(), delta.locate(probes[i]).has_value());
  }
}

TEST(Fragments, EveryFormAgreesWithThePlainOne) {
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    check_fragment_forms<std::int32_t>(seed);
    check_fragment_forms<std::int64_t>(seed);
  }
}

TEST(Fragments, EmptyFragments) {
  main_fragment<std::int64_t> main;
  delta_fragment<std::int64_t> delta;
  EXPECT_EQ(main.size(), 0u);
  EXPECT_FALSE(main.locate(1));
  EXPECT_FALSE(delta.locate(1));
  delta.append(std::span<const std::int64_t>{});
  EXPECT_EQ(delta.size(), 0u);
  main_fragment<std::int64_t> empty_rows(std::span<const std::int64_t>{}, page_size::small_4k);
  EXPECT_EQ(empty_rows.size(), 0u);
  EXPECT_FALSE(empty_rows.locate(0));
}

TEST(Fragments, DeltaTruncateDropsRowsAndTheirValues) {
  delta_fragment<std::int64_t> delta;
  const std::vector<std::int64_t> first{5, 3, 5};
  const std::vector<std::int64_t> second{9, 3, 11};
  delta.append(first);
  delta.append(second);
  EXPECT_EQ(delta.dictionary_size(), 4u);
  delta.truncate(3);
  EXPECT_EQ(delta.size(), 3u);
  EXPECT_EQ(delta.dictionary_size(), 2u);
  EXPECT_FALSE(delta.locate(9));
  EXPECT_EQ(delta.get(1), 3);
  delta.append(second);
  EXPECT_EQ(delta.locate(11), 3u);
}

TEST(Fragments, BuiltFromADictionaryAndCodes) {
  const std::vector<std::int64_t> sorted{-5, 0, 7, 100};
  bit_packed_vector codes(5, 2);
  const std::uint32_t row_codes[] = {3, 0, 0, 2, 1};
  for (std::size_t i = 0; i < 5; ++i) codes.set(i, row_codes[i]);
  const main_fragment<std::int64_t> main(sorted_array<std::int64_t>(sorted, page_size::small_4k), codes);
  EXPECT_EQ(main.get(0), 100);
  EXPECT_EQ(main.get(4), 0);
  EXPECT_EQ(main.locate(7), 2u);
  bit_packed_vector too_big(1, 3);
  too_big.set(0, 4);
  EXPECT_THROW((main_fragment<std::int64_t>(sorted_array<std::int64_t>(sorted, page_size::small_4k), too_big)),
               std::invalid_argument);
  const std::vector<std::int64_t> arrival{7, -5, 100};
  const delta_fragment<std::int64_t> delta(arrival, {2, 2, 0, 1}, page_size::small_4k);
  EXPECT_EQ(delta.get(0), 100);
  EXPECT_EQ(delta.get(3), -5);
  EXPECT_EQ(delta.locate(7), 0u);
  EXPECT_THROW((delta_fragment<std::int64_t>(arrival, {3}, page_size::small_4k)), std::invalid_argument);
  const std::vector<std::int64_t> repeated{1, 1};
  EXPECT_THROW((delta_fragment<std::int64_t>(repeated, {0}, page_size::small_4k)), std::invalid_argument);
}

TEST(Column, MergeKeepsEveryRow) {
  const column_spec spec{"c", column_type::int32};
  auto c = make_column(spec);
  std::vector<value> all;
  std::mt19937_64 random(7);
  for (int batch = 0; batch < 5; ++batch) {
    std::vector<value> values(1 + random() % 300);
    for (value& v : values) v = static_cast<std::int64_t>(random() % 100) - 50;
    c->append(values);
    all.insert(all.end(), values.begin(), values.end());
    if (batch % 2 == 1) c->merge();
    ASSERT_EQ(c->size(), all.size());
    for (std::size_t row = 0; row < all.size(); ++row) ASSERT_EQ(c->get(row), all[row]);
  }
  c->merge();
  EXPECT_EQ(c->delta_size(), 0u);
  EXPECT_EQ(c->main_size(), all.size());
  const std::vector<value> too_big{1, std::int64_t{INT32_MAX} + 1};
  EXPECT_THROW(c->append(too_big), std::invalid_argument);
  EXPECT_EQ(c->size(), all.size());
  EXPECT_THROW((void)make_column(column_spec{"d", column_type::decimal, 0, 0}), std::invalid_argument);
  EXPECT_THROW((void)make_column(column_spec{"", column_type::int64}), std::invalid_argument);
  const std::vector<value> text{"7"};
  EXPECT_THROW(c->append(text), std::invalid_argument);
  EXPECT_FALSE(c->find_first(value("7")));
  EXPECT_EQ(c->count_in(text, {}).total(), 0u);
}

}  // namespace
}  // namespace braid
