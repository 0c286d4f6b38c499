// The VARCHAR Main and Delta fragments against the plain rows they encode: every form of
// locate / extract / get (plain, coroutine and nested, sequential and interleaved) equals the
// plain one; Delta appends in batches (repeats within and across batches), truncates, is built
// from a dictionary and codes; Main is built from a dictionary and codes; codes are ordered in
// Main and in arrival order in Delta. The Delta's tree (string_code_tree) against a std::map:
// every multi_find technique it has, with groups 1, 3, 16 and larger than the batch, across
// appends, truncates and appends after truncates, at the tree's node-boundary sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "braid/column/varchar_fragments.hpp"
#include "braid/core/scheduler.hpp"
#include "braid/index/technique.hpp"

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


// ---- the Delta's CSB+-tree over codes, against a std::map of the rows' texts -------------------

// Batches of rows for a Delta: repeats within and across batches, the empty string, texts of
// several KiB, and texts sharing 8 bytes and more (the tree's window ties).
std::vector<std::vector<std::string>> delta_batches(std::mt19937_64& random, std::size_t batches, std::size_t distinct) {
  std::vector<std::string> pool(distinct);
  for (std::size_t i = 0; i < distinct; ++i) {
    switch (i % 5) {
      case 0: pool[i] = std::to_string(i * 2654435761u % 100000); break;
      case 1: pool[i] = "row/of/a/long/shared/prefix/" + std::to_string(i); break;
      case 2: pool[i] = std::string(8 + i % 9, 'm') + std::to_string(i); break;  // equal first 8 bytes
      case 3: pool[i] = std::string(70 + i * 37 % 3000, static_cast<char>('a' + i % 3)) + std::to_string(i); break;
      default: pool[i] = i % 2 == 0 ? "" : std::string(1, static_cast<char>(i % 256)); break;
    }
  }
  std::vector<std::vector<std::string>> result(batches);
  for (auto& batch : result) {
    batch.resize(random() % 300);
    for (std::string& text : batch) text = pool[random() % distinct];
  }
  return result;
}

// Absent and present probes: every distinct text, texts just below, above and between them.
std::vector<std::string> delta_probes(const std::map<std::string, std::uint32_t>& present) {
  std::vector<std::string> probes = {"", std::string(1, '\0'), "~~~~", "row/of/a/long/shared/prefix/", "mmmmmmmm", std::string(5000, 'b')};
  for (const auto& [text, code] : present) {
    probes.push_back(text);
    probes.push_back(text + '\0');
    if (!text.empty()) probes.push_back(text.substr(0, text.size() - 1));
  }
  return probes;
}

void expect_delta_matches(const varchar_delta_fragment& delta, const std::vector<std::string>& rows) {
  ASSERT_NO_THROW(delta.check_invariants());
  ASSERT_EQ(delta.size(), rows.size());
  std::map<std::string, std::uint32_t> present;
  for (std::size_t row = 0; row < rows.size(); ++row) {
    ASSERT_EQ(delta.get(row), rows[row]);
    present.emplace(rows[row], delta.codes()[row]);
  }
  ASSERT_EQ(delta.dictionary_size(), present.size());  // codes of truncated strings are gone
  std::vector<std::uint32_t> in_order;
  for (const auto& [text, code] : present) in_order.push_back(code);
  ASSERT_EQ(delta.sorted_view(), in_order);
  const std::vector<std::string> probe_texts = delta_probes(present);
  const std::vector<std::string_view> probes = views_of(probe_texts);
  std::vector<std::optional<std::uint32_t>> expected(probes.size());
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const auto at = present.find(probe_texts[i]);
    if (at != present.end()) expected[i] = at->second;
    ASSERT_EQ(delta.locate(probes[i]), expected[i]) << probe_texts[i];
  }
  for (const technique how : {technique::naive, technique::coro, technique::coro_nested, technique::adaptive}) {
    for (const std::size_t group : {std::size_t{1}, std::size_t{3}, std::size_t{16}, probes.size() + 5}) {
      std::vector<std::optional<std::uint32_t>> located(probes.size(), 12345u);
      delta.multi_find(probes, located, how, group);
      ASSERT_EQ(located, expected) << to_string(how) << " group " << group;
    }
  }
}

TEST(VarcharDelta, AppendsAndTruncatesAgreeWithAMapOverManySeeds) {
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    std::mt19937_64 random(seed);
    const auto batches = delta_batches(random, 1 + random() % 5, 1 + random() % 400);
    varchar_delta_fragment delta;
    std::vector<std::string> rows;
    expect_delta_matches(delta, rows);
    for (const auto& batch : batches) {
      const std::vector<std::string_view> views = views_of(batch);
      delta.append(views);
      rows.insert(rows.end(), batch.begin(), batch.end());
      expect_delta_matches(delta, rows);
    }
    const std::size_t kept = rows.empty() ? 0 : random() % (rows.size() + 1);
    delta.truncate(kept);
    rows.resize(kept);
    expect_delta_matches(delta, rows);
    const auto more = delta_batches(random, 1, 1 + random() % 400);  // append after truncate
    delta.append(views_of(more.front()));
    rows.insert(rows.end(), more.front().begin(), more.front().end());
    expect_delta_matches(delta, rows);
  }
}

TEST(VarcharDelta, NodeBoundarySizesOfTheTree) {
  const std::size_t leaf = varchar_delta_fragment::index_type::leaf_capacity;
  const std::size_t fanout = varchar_delta_fragment::index_type::inner_capacity + 1;
  for (const std::size_t distinct : {std::size_t{1}, leaf - 1, leaf, leaf + 1, fanout * leaf - 1, fanout * leaf + 1,
                                     fanout * fanout * leaf + 1}) {
    std::vector<std::string> rows(distinct);
    for (std::size_t i = 0; i < distinct; ++i) rows[i] = "0000000000/" + std::to_string((i * 7919) % 100003);
    varchar_delta_fragment delta;
    delta.append(views_of(rows));
    expect_delta_matches(delta, rows);
    EXPECT_EQ(delta.index().levels(), distinct <= leaf ? 1u : distinct <= fanout * leaf ? 2u : distinct <= fanout * fanout * leaf ? 3u : 4u);
  }
}

TEST(VarcharDelta, OneStringAndTheEmptyString) {
  varchar_delta_fragment delta;
  std::vector<std::string> rows = {""};
  delta.append(views_of(rows));
  expect_delta_matches(delta, rows);
  rows = {"", "", "only"};
  delta = varchar_delta_fragment();
  delta.append(views_of(rows));
  expect_delta_matches(delta, rows);
  const std::vector<std::string_view> single{"x"};
  const varchar_delta_fragment built(single, {0, 0});
  expect_delta_matches(built, {"x", "x"});
}

TEST(VarcharDelta, ACopyOutlivesItsOriginal) {
  std::mt19937_64 random(11);
  const auto batches = delta_batches(random, 3, 200);
  std::vector<std::string> rows;
  std::optional<varchar_delta_fragment> copy;
  {
    varchar_delta_fragment original;
    for (const auto& batch : batches) {
      original.append(views_of(batch));
      rows.insert(rows.end(), batch.begin(), batch.end());
    }
    copy = original;
    original.truncate(0);
  }
  expect_delta_matches(*copy, rows);
}

TEST(VarcharDelta, RefusesTechniquesItLacks) {
  varchar_delta_fragment delta;
  const std::vector<std::string_view> rows{"a", "b"};
  delta.append(rows);
  std::vector<std::optional<std::uint32_t>> out(2);
  for (const technique how : {technique::gp, technique::amac, technique::fiber, technique::imlp_dynamic}) {
    EXPECT_THROW(delta.multi_find(rows, out, how, 4), std::invalid_argument) << to_string(how);
  }
  EXPECT_THROW(delta.multi_find(rows, out, technique::coro, 0), std::invalid_argument);
  std::vector<std::optional<std::uint32_t>> short_out(1);
  EXPECT_THROW(delta.multi_find(rows, short_out, technique::naive, 4), std::invalid_argument);
}

}  // namespace
}  // namespace braid
