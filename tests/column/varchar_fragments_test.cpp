// The VARCHAR Main and Delta fragments against the plain rows they encode: every form of
// locate / extract / get (plain, coroutine and nested, sequential and interleaved) equals the
// plain one; Delta appends in batches (repeats within and across batches), truncates, is built
// from a dictionary and codes; Main is built from a dictionary and codes; codes are ordered in
// Main and in arrival order in Delta.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "braid/column/varchar_fragments.hpp"
#include "braid/core/scheduler.hpp"

namespace braid {
namespace {

std::vector<std::string> random_rows(std::mt19937_64& random, std::size_t rows, std::size_t distinct, std::size_t length) {
  std::vector<std::string> pool(distinct);
  for (std::size_t i = 0; i < distinct; ++i) {
    const std::string stem = i % 4 == 0 ? "" : i % 4 == 1 ? "row/of/a/long/shared/prefix/" : "x";
    pool[i] = stem + std::to_string(i * 7919 % 1000);
    pool[i].resize(std::min(pool[i].size(), length));
  }
  std::vector<std::string> texts(rows);
  for (std::string& text : texts) text = pool[random() % distinct];
  return texts;
}

std::vector<std::string_view> views_of(const std::vector<std::string>& texts) { return {texts.begin(), texts.end()}; }

template <class Fragment>
void expect_every_get_form(const Fragment& fragment, const std::vector<std::string>& rows, std::mt19937_64& random) {
  std::vector<std::size_t> probe_rows(std::min<std::size_t>(rows.size(), 300));
  for (std::size_t& r : probe_rows) r = random() % rows.size();
  auto gets = [&]<class M>(M) {
    const auto flat = run(interleaved_scheduler{8}, probe_rows, [&](std::size_t r) { return fragment.template get_lookup<M>(r); });
    const auto one_task = run(interleaved_scheduler{8}, probe_rows, [&](std::size_t r) { return fragment.template get_task<M>(r); });
    const auto nested = run(interleaved_scheduler{8}, probe_rows, [&](std::size_t r) { return fragment.template get_nested<M>(r); });
    for (std::size_t i = 0; i < probe_rows.size(); ++i) {
      const std::string& expected = rows[probe_rows[i]];
      ASSERT_EQ(flat[i], expected);
      ASSERT_EQ(one_task[i], expected);
      ASSERT_EQ(nested[i], expected);
    }
  };
  gets(sequential{});
  gets(interleaved{});
  std::string reused(100, '?');
  for (std::size_t row = 0; row < rows.size(); ++row) {
    ASSERT_EQ(fragment.get(row), rows[row]);
    fragment.get_into(row, reused);
    ASSERT_EQ(reused, rows[row]);
    ASSERT_EQ(fragment.extract(*fragment.locate(rows[row])), rows[row]);
  }
}

template <class Fragment>
void expect_locate_forms(const Fragment& fragment, const std::vector<std::string>& rows) {
  std::vector<std::string> probe_texts = {"", "absent", "row/of/a/long/shared/prefix/", "row/of/a/long/shared/prefix/9999", "~"};
  for (std::size_t i = 0; i < rows.size(); i += 7) probe_texts.push_back(rows[i]);
  for (std::size_t i = 0; i < rows.size(); i += 11) probe_texts.push_back(rows[i] + "!");
  const std::vector<std::string_view> probes = views_of(probe_texts);
  const auto located = run(interleaved_scheduler{8}, probes, [&](std::string_view key) {
    return fragment.template locate_lookup<interleaved>(key);
  });
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const auto plain = fragment.locate(probes[i]);
    ASSERT_EQ(located[i], plain) << probes[i];
    ASSERT_EQ(plain.has_value(), std::find(rows.begin(), rows.end(), probe_texts[i]) != rows.end()) << probes[i];
  }
}

TEST(VarcharFragments, EveryFormAgreesWithThePlainRows) {
  for (std::uint64_t seed = 0; seed < 25; ++seed) {
    std::mt19937_64 random(seed);
    const std::vector<std::string> rows = random_rows(random, 1 + random() % 2000, 1 + random() % 300, 1 + random() % 50);
    const varchar_main_fragment main(views_of(rows));
    varchar_delta_fragment delta;
    const std::vector<std::string_view> views = views_of(rows);
    const std::size_t cut = random() % (rows.size() + 1);
    delta.append(std::span<const std::string_view>(views).subspan(0, cut));
    delta.append(std::span<const std::string_view>(views).subspan(cut));
    ASSERT_EQ(main.size(), rows.size());
    ASSERT_EQ(delta.size(), rows.size());
    ASSERT_EQ(main.dictionary_size(), delta.dictionary_size());
    for (std::uint32_t code = 1; code < main.dictionary_size(); ++code) ASSERT_LT(main.extract(code - 1), main.extract(code));
    EXPECT_EQ(delta.extract(0), rows[0]);  // arrival order
    const auto view = delta.sorted_view();
    for (std::size_t i = 1; i < view.size(); ++i) ASSERT_LT(delta.text(view[i - 1]), delta.text(view[i]));
    expect_every_get_form(main, rows, random);
    expect_every_get_form(delta, rows, random);
    expect_locate_forms(main, rows);
    expect_locate_forms(delta, rows);
  }
}

TEST(VarcharFragments, DeltaTruncateDropsRowsAndTheirTexts) {
  varchar_delta_fragment delta;
  const std::vector<std::string_view> first{"pear", "", "pear"};
  const std::vector<std::string_view> second{"apple", "", "zucchini", "apple"};
  delta.append(first);
  delta.append(second);
  EXPECT_EQ(delta.dictionary_size(), 4u);
  EXPECT_EQ(delta.locate("zucchini"), 3u);
  delta.truncate(5);
  EXPECT_EQ(delta.size(), 5u);
  EXPECT_EQ(delta.dictionary_size(), 3u);
  EXPECT_FALSE(delta.locate("zucchini"));
  EXPECT_EQ(delta.get(3), "apple");
  delta.truncate(3);
  EXPECT_EQ(delta.dictionary_size(), 2u);
  EXPECT_FALSE(delta.locate("apple"));
  EXPECT_EQ(delta.sorted_view().size(), 2u);
  delta.append(second);
  EXPECT_EQ(delta.locate("apple"), 2u);
  EXPECT_EQ(delta.get(5), "zucchini");
  EXPECT_EQ(delta.get(6), "apple");
  delta.truncate(0);
  EXPECT_EQ(delta.dictionary_size(), 0u);
  EXPECT_FALSE(delta.locate(""));
}

TEST(VarcharFragments, EmptyFragments) {
  const varchar_main_fragment main;
  varchar_delta_fragment delta;
  EXPECT_FALSE(main.locate(""));
  EXPECT_FALSE(delta.locate(""));
  delta.append(std::span<const std::string_view>{});
  EXPECT_EQ(delta.size(), 0u);
  const varchar_main_fragment no_rows(std::span<const std::string_view>{});
  EXPECT_EQ(no_rows.size(), 0u);
  EXPECT_FALSE(no_rows.locate("a"));
}

TEST(VarcharFragments, BuiltFromADictionaryAndCodes) {
  const std::vector<std::string_view> sorted{"", "ab", "abc", "b"};
  bit_packed_vector codes(5, 2);
  const std::uint32_t row_codes[] = {3, 0, 0, 2, 1};
  for (std::size_t i = 0; i < 5; ++i) codes.set(i, row_codes[i]);
  const varchar_main_fragment main(string_dictionary(sorted), codes);
  EXPECT_EQ(main.get(0), "b");
  EXPECT_EQ(main.get(1), "");
  EXPECT_EQ(main.locate("abc"), 2u);
  bit_packed_vector too_big(1, 3);
  too_big.set(0, 4);
  EXPECT_THROW(varchar_main_fragment(string_dictionary(sorted), too_big), std::invalid_argument);
  const std::vector<std::string_view> arrival{"b", "", "abc"};
  const varchar_delta_fragment delta(arrival, {2, 2, 0, 1});
  EXPECT_EQ(delta.get(0), "abc");
  EXPECT_EQ(delta.get(3), "");
  EXPECT_EQ(delta.locate("b"), 0u);
  EXPECT_THROW(varchar_delta_fragment(arrival, {3}), std::invalid_argument);
  const std::vector<std::string_view> repeated{"x", "x"};
  EXPECT_THROW(varchar_delta_fragment(repeated, {0}), std::invalid_argument);
}

}  // namespace
}  // namespace braid
