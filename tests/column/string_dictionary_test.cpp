// The front-coded string dictionary of a VARCHAR Main against a plain sorted
// std::vector<std::string>: locate (plain, coroutine, nested, every multi_find technique) for
// present and absent strings (below, above, between, sharing a block's prefix), extract,
// the block layout at 15 / 16 / 17 / 33 entries, empty strings, long shared prefixes, one entry;
// the hand-written gp and amac locates over many seeds, groups and block edges.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "braid/column/string_dictionary.hpp"
#include "braid/core/scheduler.hpp"

namespace braid {
namespace {

std::vector<std::string_view> views_of(const std::vector<std::string>& texts) { return {texts.begin(), texts.end()}; }

// Sorted distinct texts: `count` of them, mostly sharing long prefixes, of at most `length` bytes.
std::vector<std::string> random_sorted_texts(std::mt19937_64& random, std::size_t count, std::size_t length) {
  static const std::string stems[] = {"", "a", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "shared/prefix/",
                                      "shared/prefix/longer/", "z"};
  std::vector<std::string> texts;
  while (texts.size() < count * 2) {
    std::string text = stems[random() % std::size(stems)];
    const std::size_t tail = random() % 6;
    for (std::size_t i = 0; i < tail; ++i) text.push_back(static_cast<char>('a' + random() % 4));
    text.resize(std::min(text.size(), length));
    texts.push_back(text);
  }
  std::sort(texts.begin(), texts.end());
  texts.erase(std::unique(texts.begin(), texts.end()), texts.end());
  if (texts.size() > count) texts.resize(count);
  return texts;
}

// Probes: every present text and, for each, strings just below, above and between.
std::vector<std::string> probes_around(const std::vector<std::string>& texts) {
  std::vector<std::string> probes = {"", "\x01", "~~~~", std::string(60, 'a'), "shared/prefix", "shared/prefix/zzz"};
  for (const std::string& text : texts) {
    probes.push_back(text);
    probes.push_back(text + '\0');
    probes.push_back(text + "a");
    if (!text.empty()) {
      probes.push_back(text.substr(0, text.size() - 1));
      std::string above = text;
      above.back() = static_cast<char>(above.back() + 1);
      probes.push_back(above);
    }
  }
  return probes;
}

std::optional<std::uint32_t> reference_find(const std::vector<std::string>& texts, std::string_view key) {
  const auto at = std::lower_bound(texts.begin(), texts.end(), key);
  if (at == texts.end() || *at != key) return std::nullopt;
  return static_cast<std::uint32_t>(at - texts.begin());
}

constexpr technique techniques[] = {technique::naive, technique::gp,          technique::amac,
                                    technique::coro,  technique::coro_nested, technique::adaptive};

void check_against_reference(const std::vector<std::string>& texts, const std::string& what) {
  const string_dictionary dictionary(views_of(texts));
  ASSERT_EQ(dictionary.size(), texts.size()) << what;
  ASSERT_EQ(dictionary.block_count(), (texts.size() + 15) / 16) << what;
  for (std::uint32_t code = 0; code < texts.size(); ++code) {
    ASSERT_EQ(dictionary.extract(code), texts[code]) << what << " code " << code;
    ASSERT_TRUE(texts[code].starts_with(dictionary.prefix(code / 16))) << what;
    std::string reused(80, 'x');
    dictionary.extract_into(code, reused);
    ASSERT_EQ(reused, texts[code]);
  }
  const std::vector<std::string> probe_texts = probes_around(texts);
  const std::vector<std::string_view> probes = views_of(probe_texts);
  std::vector<std::optional<std::uint32_t>> expected(probes.size());
  for (std::size_t i = 0; i < probes.size(); ++i) {
    expected[i] = reference_find(texts, probes[i]);
    ASSERT_EQ(dictionary.find(probes[i]), expected[i]) << what << " probe '" << probes[i] << "'";
  }
  for (const technique how : techniques) {
    for (const std::size_t group : {std::size_t{1}, std::size_t{5}, std::size_t{64}}) {
      std::vector<std::optional<std::uint32_t>> located(probes.size(), 12345u);
      dictionary.multi_find(probes, located, how, group);
      ASSERT_EQ(located, expected) << what << " " << to_string(how) << " group " << group;
    }
  }
  const auto sequential_lookups = run(interleaved_scheduler{4}, probes, [&](std::string_view key) {
    return dictionary.lookup<sequential>(key);
  });
  const auto nested = run(interleaved_scheduler{4}, probes, [&](std::string_view key) {
    return dictionary.lookup_nested<interleaved>(key);
  });
  ASSERT_EQ(sequential_lookups, expected) << what;
  ASSERT_EQ(nested, expected) << what;
  std::vector<std::uint32_t> codes(texts.size());
  for (std::uint32_t code = 0; code < codes.size(); ++code) codes[code] = code;
  const auto extracted = run(interleaved_scheduler{8}, codes, [&](std::uint32_t code) {
    return dictionary.extract_task<interleaved>(code);
  });
  ASSERT_EQ(extracted, texts) << what;
}

TEST(StringDictionary, AgreesWithASortedVectorOnRandomTexts) {
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    std::mt19937_64 random(seed);
    const std::size_t count = std::vector<std::size_t>{1, 2, 15, 16, 17, 31, 32, 33, 200, 1000}[seed % 10];
    check_against_reference(random_sorted_texts(random, count, 1 + random() % 60), "seed " + std::to_string(seed));
  }
}

TEST(StringDictionary, EdgeCases) {
  check_against_reference({}, "empty");
  check_against_reference({""}, "one empty text");
  check_against_reference({"only"}, "one entry");
  check_against_reference({"", "a", "aa", "aaa"}, "each a prefix of the next");
  for (const std::size_t count : {15u, 16u, 17u, 48u}) {
    std::vector<std::string> texts;
    for (std::size_t i = 0; i < count; ++i) texts.push_back(std::string(40, 'p') + static_cast<char>('A' + i));
    check_against_reference(texts, std::to_string(count) + " texts sharing 40 bytes");
    const string_dictionary dictionary(views_of(texts));
    EXPECT_EQ(dictionary.prefix(0), std::string(40, 'p'));
    if (count > 16) {
      EXPECT_EQ(dictionary.prefix(1).size(), count == 17 ? 41u : 40u);  // a block of one shares its whole text
    }
    EXPECT_LT(dictionary.text_bytes(), count * 41 / 2);
  }
  std::vector<std::string> exact(20);
  for (std::size_t i = 0; i < exact.size(); ++i) exact[i] = std::string(65535, static_cast<char>('a' + i));
  check_against_reference(exact, "texts of 65535 bytes");
}

TEST(StringDictionary, ChecksItsInput) {
  const std::vector<std::string_view> unsorted{"b", "a"};
  EXPECT_THROW(string_dictionary{unsorted}, std::invalid_argument);
  const std::vector<std::string_view> repeated{"a", "a"};
  EXPECT_THROW(string_dictionary{repeated}, std::invalid_argument);
  const string_dictionary dictionary(std::vector<std::string_view>{"a", "b"});
  const std::vector<std::string_view> keys{"a"};
  std::vector<std::optional<std::uint32_t>> out(1);
  EXPECT_THROW(dictionary.multi_find(keys, out, technique::fiber, 4), std::invalid_argument);
  EXPECT_THROW(dictionary.multi_find(keys, out, technique::imlp_dynamic, 4), std::invalid_argument);
  EXPECT_THROW(dictionary.multi_find(keys, out, technique::gp, 0), std::invalid_argument);
  EXPECT_THROW(dictionary.multi_find(keys, out, technique::amac, 0), std::invalid_argument);
  EXPECT_THROW(dictionary.multi_find(keys, out, technique::coro, 0), std::invalid_argument);
  std::vector<std::optional<std::uint32_t>> short_out;
  EXPECT_THROW(dictionary.multi_find(keys, short_out, technique::naive, 1), std::invalid_argument);
  EXPECT_THROW(dictionary.multi_find(keys, short_out, technique::gp, 1), std::invalid_argument);
  EXPECT_THROW(dictionary.multi_find(keys, short_out, technique::amac, 1), std::invalid_argument);
  const std::vector<std::string_view> with_repeats{"b", "a", "b", ""};
  EXPECT_EQ(string_dictionary::sorted_distinct(with_repeats), (std::vector<std::string_view>{"", "a", "b"}));
}

// gp and amac against the sorted vector: every group from one lookup at a time to more than
// the input, results in input order, written over whatever `out` held.
void check_hand_written(const std::vector<std::string>& texts, const std::vector<std::string>& probe_texts, const std::string& what) {
  const string_dictionary dictionary(views_of(texts));
  const std::vector<std::string_view> probes = views_of(probe_texts);
  std::vector<std::optional<std::uint32_t>> expected(probes.size());
  for (std::size_t i = 0; i < probes.size(); ++i) expected[i] = reference_find(texts, probes[i]);
  for (const technique how : {technique::gp, technique::amac}) {
    for (const std::size_t group : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{16}, probes.size() + 7}) {
      std::vector<std::optional<std::uint32_t>> located(probes.size(), 4242u);
      dictionary.multi_find(probes, located, how, group);
      ASSERT_EQ(located, expected) << what << " " << to_string(how) << " group " << group;
      std::vector<std::optional<std::uint32_t>> hinted(probes.size(), 4242u);
      dictionary.multi_find<prefetch_hint::nta>(probes, hinted, how, group);
      ASSERT_EQ(hinted, expected) << what << " " << to_string(how) << " (nta) group " << group;
    }
  }
}

TEST(StringDictionary, GroupPrefetchingAndAmacAgreeWithASortedVectorOverManySeeds) {
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    std::mt19937_64 random(seed * 7919 + 1);
    const std::size_t count = 1 + random() % (seed % 3 == 0 ? 600 : 70);
    const std::vector<std::string> texts = random_sorted_texts(random, count, 1 + random() % 60);
    // Present and absent probes, shuffled: a group mixes searches that end at different
    // blocks, stop at the check, or take fewer rounds in a shorter last block.
    std::vector<std::string> probes = probes_around(texts);
    std::shuffle(probes.begin(), probes.end(), random);
    probes.resize(std::min<std::size_t>(probes.size(), 1 + random() % 300));
    check_hand_written(texts, probes, "seed " + std::to_string(seed));
  }
}

TEST(StringDictionary, GroupPrefetchingAndAmacOnEdges) {
  const std::vector<std::string> none;
  // An empty key list; an empty dictionary (every key absent, no block to read).
  check_hand_written({"a", "b"}, none, "no keys");
  check_hand_written({}, none, "empty dictionary, no keys");
  check_hand_written({}, {"", "a", "zzz"}, "empty dictionary");
  check_hand_written({"m"}, {"", "a", "m", std::string("m\0", 2), "ma", "n", "l"}, "one string");
  check_hand_written({""}, {"", "a", std::string(1, '\0')}, "the empty string alone");
  // Absent keys against neighbours that share a prefix: below, above, between, the empty
  // string, longer and shorter than a neighbour, differing in the last byte.
  const std::vector<std::string> shared = {"apple", "applesauce", "applet", "apply", "banana", "band", "bandana", "bandit"};
  check_hand_written(shared, {"", "a", "app", "appl", "apple", "applea", "applesauc", "applesauce", "applesauces",
                              "applet", "applets", "applf", "apply", "applz", "b", "ban", "banana", "bananas", "band",
                              "banda", "bandana", "bandb", "bandit", "bandits", "bandiu", "c", "zzzz"},
                     "shared prefixes");
  // Block edges: 15, 16, 17, 31, 32, 33 strings (a last block of one, a full last block, ...),
  // their texts sharing 30 bytes so each block's prefix is long; every string and each gap probed.
  for (const std::size_t count : {15u, 16u, 17u, 31u, 32u, 33u}) {
    std::vector<std::string> texts;
    for (std::size_t i = 0; i < count; ++i) texts.push_back(std::string(30, 'k') + static_cast<char>('B' + 2 * i));
    std::vector<std::string> probes = {"", std::string(30, 'k'), std::string(31, 'k'), std::string(29, 'k') + "l", "~"};
    for (std::size_t i = 0; i <= count; ++i) {
      probes.push_back(std::string(30, 'k') + static_cast<char>('A' + 2 * i));  // between i - 1 and i
      if (i < count) probes.push_back(texts[i]);
      if (i < count) probes.push_back(texts[i] + "x");
    }
    check_hand_written(texts, probes, std::to_string(count) + " strings");
    check_against_reference(texts, std::to_string(count) + " strings");
  }
}

// A stored string's parts compare with a key exactly as the whole string does, at every split
// of it into prefix and rest, for keys that end inside the prefix, equal it or run past it.
TEST(StringDictionary, TextPartsCompareAsTheWholeString) {
  std::mt19937_64 random(5);
  const std::string alphabet = "ab\xff";
  auto text_of = [&](std::size_t length) {
    std::string text(length, 'a');
    for (char& c : text) c = alphabet[random() % alphabet.size()];
    return text;
  };
  for (int round = 0; round < 20000; ++round) {
    const std::string whole = text_of(random() % 7);
    const std::size_t split = random() % (whole.size() + 1);
    const string_dictionary::text_parts parts{std::string_view(whole).substr(0, split), std::string_view(whole).substr(split)};
    const std::string key = random() % 4 == 0 ? whole : random() % 2 ? whole.substr(0, random() % (whole.size() + 1)) + text_of(random() % 3) : text_of(random() % 7);
    ASSERT_EQ(parts <=> std::string_view(key), std::string_view(whole) <=> std::string_view(key)) << whole << " | " << key << " at " << split;
    ASSERT_EQ(parts == std::string_view(key), whole == key) << whole << " | " << key << " at " << split;
  }
}

}  // namespace
}  // namespace braid
