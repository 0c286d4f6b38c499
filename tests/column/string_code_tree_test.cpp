// string_code_tree against a std::map from text to code: find, lookup<M> (sequential and
// interleaved) and lookup_nested<M> agree with it for present keys and for absent keys below,
// above and between; over strings with long shared prefixes (window ties), embedded zero and
// 0xff bytes, the empty string and texts of several KiB; at node-boundary sizes (one leaf, a
// leaf's capacity +- 1, several levels); the invariant check passes on built trees and fails
// over other texts; the tree holds codes only, so a copy answers through a moved arena; bad
// input is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "braid/column/string_code_tree.hpp"
#include "braid/core/scheduler.hpp"

namespace braid {
namespace {

using tree_type = string_code_tree<>;
using code_type = std::uint32_t;

// Texts in arrival order (code i = texts[i]) stored as a fragment stores them.
struct arena {
  std::vector<char> bytes;
  std::vector<string_dictionary::entry> entries;

  explicit arena(const std::vector<std::string>& texts) {
    for (const std::string& text : texts) {
      entries.push_back({bytes.size(), text.size()});
      bytes.insert(bytes.end(), text.begin(), text.end());
    }
    bytes.push_back('\0');
  }
  [[nodiscard]] code_texts texts() const { return {entries.data(), bytes.data(), entries.size()}; }
};

std::vector<code_type> codes_in_text_order(const std::vector<std::string>& texts) {
  std::vector<code_type> codes(texts.size());
  for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<code_type>(i);
  std::sort(codes.begin(), codes.end(), [&](code_type a, code_type b) { return texts[a] < texts[b]; });
  return codes;
}

// `count` distinct strings in a random order, of the flavour `shape` picks.
std::vector<std::string> distinct_texts(std::mt19937_64& random, std::size_t count, int shape) {
  std::map<std::string, bool> seen;
  std::vector<std::string> texts;
  const std::string shared = "https://example.org/a/rather/long/shared/prefix/";
  while (texts.size() < count) {
    std::string text;
    const std::size_t length = random() % 12;
    switch (shape) {
      case 0:  // short, letters only
        for (std::size_t i = 0; i < length; ++i) text += static_cast<char>('a' + random() % 4);
        break;
      case 1:  // a long shared prefix, then a short tail: ties on windows near the root
        text = shared.substr(0, 8 + random() % (shared.size() - 8));
        for (std::size_t i = 0; i < length % 6; ++i) text += static_cast<char>('0' + random() % 3);
        break;
      case 2:  // zero-padded numbers: 8 equal bytes, then digits
        text = std::to_string(random() % 100000);
        text.insert(0, 16 - text.size(), '0');
        text += std::string(random() % 3, '\0');
        break;
      case 3:  // any bytes, zeros and 0xff included, sometimes long
        for (std::size_t i = 0; i < length; ++i) text += static_cast<char>(random() % 3 == 0 ? 0 : random() % 3 == 0 ? 0xff : random() % 256);
        if (random() % 16 == 0) text += std::string(65 + random() % 4000, static_cast<char>('a' + random() % 3));
        break;
      default:  // prefixes of one another
        text = std::string(random() % 40, 'q');
        break;
    }
    if (seen.emplace(text, true).second) texts.push_back(std::move(text));
  }
  return texts;
}

// Probes: every text, and absent ones below, above and between.
std::vector<std::string> probes_for(const std::vector<std::string>& texts, std::mt19937_64& random) {
  std::vector<std::string> probes = {"", std::string(1, '\0'), std::string(3, '\xff'), "~~~~~~~~~~~~~~~~~", "0000000000000000",
                                     "https://example.org/a/rather/long/shared/prefix/~"};
  for (const std::string& text : texts) {
    probes.push_back(text);
    if (random() % 3 == 0) probes.push_back(text + '\0');
    if (random() % 3 == 0 && !text.empty()) probes.push_back(text.substr(0, text.size() - 1));
    if (random() % 3 == 0 && !text.empty()) {
      std::string below = text;
      below.back() = static_cast<char>(below.back() - 1);
      probes.push_back(below);
    }
  }
  return probes;
}

void expect_every_form_agrees(const tree_type& tree, const code_texts& texts, const std::vector<std::string>& probe_texts,
                              const std::map<std::string, code_type>& oracle, std::size_t group) {
  const std::vector<std::string_view> probes(probe_texts.begin(), probe_texts.end());
  const auto flat = run(interleaved_scheduler{group}, probes, [&](std::string_view key) { return tree.lookup<interleaved>(key, texts); });
  const auto nested =
      run(interleaved_scheduler{group}, probes, [&](std::string_view key) { return tree.lookup_nested<interleaved>(key, texts); });
  const auto nested_plain =
      run(interleaved_scheduler{group}, probes, [&](std::string_view key) { return tree.lookup_nested<sequential>(key, texts); });
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const auto at = oracle.find(probe_texts[i]);
    const std::optional<code_type> expected = at == oracle.end() ? std::nullopt : std::optional<code_type>(at->second);
    ASSERT_EQ(tree.find(probes[i], texts), expected) << i;
    ASSERT_EQ(flat[i], expected) << i;
    ASSERT_EQ(nested[i], expected) << i;
    ASSERT_EQ(nested_plain[i], expected) << i;
    auto plain = tree.lookup<sequential>(probes[i], texts);
    ASSERT_TRUE(plain.done());
    ASSERT_EQ(plain.take_result(), expected) << i;
  }
}

TEST(StringCodeTree, AgreesWithAMapOverManySeedsShapesAndSizes) {
  const std::size_t leaf = tree_type::leaf_capacity;
  const std::size_t fanout = tree_type::inner_capacity + 1;
  const std::vector<std::size_t> sizes = {0, 1, 2, leaf - 1, leaf, leaf + 1, 2 * leaf, fanout * leaf - 1, fanout * leaf,
                                          fanout * leaf + 1, fanout * fanout * leaf + 1, 1500};
  for (std::uint64_t seed = 0; seed < 12; ++seed) {
    for (int shape = 0; shape < 5; ++shape) {
      std::mt19937_64 random(seed * 31 + static_cast<std::uint64_t>(shape));
      // Shapes 0 and 4 run out of distinct strings: short letters give 4^11, prefixes of q 40.
      const std::size_t size = shape == 4 ? std::min<std::size_t>(sizes[seed % sizes.size()], 40) : sizes[seed % sizes.size()];
      const std::vector<std::string> texts = distinct_texts(random, size, shape);
      const arena stored(texts);
      const tree_type tree(codes_in_text_order(texts), stored.texts());
      ASSERT_EQ(tree.size(), texts.size());
      ASSERT_NO_THROW(tree.check_invariants(stored.texts()));
      std::map<std::string, code_type> oracle;
      for (std::size_t i = 0; i < texts.size(); ++i) oracle.emplace(texts[i], static_cast<code_type>(i));
      ASSERT_EQ(tree.sorted_codes(), codes_in_text_order(texts));
      const std::size_t group = std::vector<std::size_t>{1, 3, 16, 100000}[seed % 4];
      expect_every_form_agrees(tree, stored.texts(), probes_for(texts, random), oracle, group);
    }
  }
}

TEST(StringCodeTree, LevelsAtNodeBoundaries) {
  const std::size_t leaf = tree_type::leaf_capacity;
  const std::size_t fanout = tree_type::inner_capacity + 1;
  auto levels_for = [](std::size_t n) {
    std::vector<std::string> texts(n);
    for (std::size_t i = 0; i < n; ++i) texts[i] = "key/" + std::to_string(1000000 + i);
    const arena stored(texts);
    const tree_type tree(codes_in_text_order(texts), stored.texts());
    tree.check_invariants(stored.texts());
    return tree.levels();
  };
  EXPECT_EQ(levels_for(0), 0u);
  EXPECT_EQ(levels_for(1), 1u);
  EXPECT_EQ(levels_for(leaf), 1u);
  EXPECT_EQ(levels_for(leaf + 1), 2u);
  EXPECT_EQ(levels_for(fanout * leaf), 2u);
  EXPECT_EQ(levels_for(fanout * leaf + 1), 3u);
  EXPECT_EQ(levels_for(fanout * fanout * leaf), 3u);
  EXPECT_EQ(levels_for(fanout * fanout * leaf + 1), 4u);
}

TEST(StringCodeTree, LongSharedPrefixesAndKilobyteTexts) {
  // 600 texts sharing 3 KiB, then 8 bytes that tie in pairs, then a distinguishing tail.
  std::vector<std::string> texts;
  const std::string shared(3000, 'p');
  for (std::size_t i = 0; i < 600; ++i) texts.push_back(shared + "abcdefg" + std::to_string(i / 2) + "/" + std::to_string(i % 2));
  std::mt19937_64 random(7);
  std::shuffle(texts.begin(), texts.end(), random);
  const arena stored(texts);
  const tree_type tree(codes_in_text_order(texts), stored.texts());
  ASSERT_GE(tree.levels(), 3u);
  tree.check_invariants(stored.texts());
  std::map<std::string, code_type> oracle;
  for (std::size_t i = 0; i < texts.size(); ++i) oracle.emplace(texts[i], static_cast<code_type>(i));
  std::vector<std::string> probes = probes_for(texts, random);
  probes.push_back(shared);
  probes.push_back(shared + "abcdefg");
  probes.push_back(shared + "abcdefg99/");
  expect_every_form_agrees(tree, stored.texts(), probes, oracle, 8);
}

TEST(StringCodeTree, HoldsCodesOnlySoACopyAnswersThroughAMovedArena) {
  std::mt19937_64 random(3);
  const std::vector<std::string> texts = distinct_texts(random, 700, 1);
  std::optional<tree_type> copy;
  {
    const arena first(texts);
    const tree_type tree(codes_in_text_order(texts), first.texts());
    copy = tree;
  }
  const arena second(texts);  // other addresses, the same texts
  copy->check_invariants(second.texts());
  for (std::size_t i = 0; i < texts.size(); ++i) ASSERT_EQ(copy->find(texts[i], second.texts()), i);
}

TEST(StringCodeTree, TheInvariantCheckFailsOverOtherTexts) {
  std::vector<std::string> texts(200);
  for (std::size_t i = 0; i < texts.size(); ++i) texts[i] = "t" + std::to_string(1000 + i);
  const arena stored(texts);
  const tree_type tree(codes_in_text_order(texts), stored.texts());
  tree.check_invariants(stored.texts());
  std::vector<std::string> reversed(texts.rbegin(), texts.rend());  // the codes' order reversed
  const arena other(reversed);
  EXPECT_THROW(tree.check_invariants(other.texts()), std::logic_error);
  const arena fewer(std::vector<std::string>(texts.begin(), texts.begin() + 100));
  EXPECT_THROW(tree.check_invariants(fewer.texts()), std::logic_error);
}

TEST(StringCodeTree, RefusesUnsortedRepeatedOrOutOfRangeCodes) {
  const std::vector<std::string> texts = {"b", "a", "c", "a"};
  const arena stored(texts);
  const std::vector<code_type> unsorted = {0, 1, 2};
  const std::vector<code_type> repeated = {1, 3};
  const std::vector<code_type> twice = {1, 1};
  const std::vector<code_type> out_of_range = {1, 4};
  EXPECT_THROW(tree_type(unsorted, stored.texts()), std::invalid_argument);
  EXPECT_THROW(tree_type(repeated, stored.texts()), std::invalid_argument);
  EXPECT_THROW(tree_type(twice, stored.texts()), std::invalid_argument);
  EXPECT_THROW(tree_type(out_of_range, stored.texts()), std::invalid_argument);
  const std::vector<code_type> sorted = {1, 0, 2};
  const tree_type tree(sorted, stored.texts());
  EXPECT_EQ(tree.find("c", stored.texts()), 2u);
  EXPECT_EQ(tree.find("a", stored.texts()), 1u);  // code 3's "a" is not in the tree
}

}  // namespace
}  // namespace braid
