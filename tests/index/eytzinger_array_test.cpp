// eytzinger_array: every technique returns the node that holds the key, which is the key's
// place in sorted order once mapped by sorted_position; absent keys are absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "braid/index/eytzinger_array.hpp"
#include "index/lookup_differential.hpp"

namespace braid {
namespace {

using result = std::optional<std::size_t>;

TEST(EytzingerArray, EmptyAndTinyArrays) {
  const eytzinger_array<std::int64_t> empty(std::vector<std::int64_t>{}, page_size::small_4k);
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.find(0), std::nullopt);
  const eytzinger_array<std::int64_t> one(std::vector<std::int64_t>{7, 7, 7}, page_size::small_4k);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one.find(7), result{1});
  EXPECT_EQ(one.find(6), std::nullopt);
  EXPECT_EQ(one.find(8), std::nullopt);
  EXPECT_EQ(one.sorted_position(1), 0u);
}

TEST(EytzingerArray, LayoutIsBreadthFirstAndRanksRoundTrip) {
  std::vector<std::int32_t> keys(1000);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<std::int32_t>(3 * i);
  std::shuffle(keys.begin(), keys.end(), std::mt19937_64(5));
  const eytzinger_array<std::int32_t> array(keys, page_size::small_4k);
  ASSERT_EQ(array.size(), 1000u);
  for (std::size_t node = 1; node <= array.size(); ++node) {
    const std::size_t rank = array.sorted_position(node);
    EXPECT_EQ(array[node], static_cast<std::int32_t>(3 * rank));
    if (2 * node <= array.size()) {
      EXPECT_LT(array[2 * node], array[node]);
    }
    if (2 * node + 1 <= array.size()) {
      EXPECT_GT(array[2 * node + 1], array[node]);
    }
  }
}

// For one seed: arrays of 0..3 and a random number of keys, built with every level hot (no
// suspension) and with none; batches of every length with hits, misses between keys, below the
// first, above the last, and repeats. The oracle is std::lower_bound over the sorted keys.
template <class Key>
void check_against_lower_bound(std::uint64_t seed, Key below_all, Key above_all) {
  std::mt19937_64 random(seed);
  for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3},
                            static_cast<std::size_t>(4 + random() % 3000)}) {
    std::vector<Key> input;
    for (std::size_t i = 0; i < count; ++i) input.push_back(static_cast<Key>(2 * (random() % (4 * count + 8))));
    std::vector<Key> oracle = input;
    std::sort(oracle.begin(), oracle.end());
    oracle.erase(std::unique(oracle.begin(), oracle.end()), oracle.end());
    for (std::size_t hot_bytes : {std::size_t{0}, eytzinger_array<Key>::default_hot_bytes}) {
      const eytzinger_array<Key> array(input, page_size::small_4k, hot_bytes);
      ASSERT_EQ(array.size(), oracle.size());
      const std::string context = "seed " + std::to_string(seed) + ", " + std::to_string(oracle.size()) +
                                  " keys, hot bytes " + std::to_string(hot_bytes);
      for (std::size_t length : testing::batch_lengths) {
        std::vector<Key> keys;
        std::vector<result> expected;
        while (keys.size() < length) {
          Key key = static_cast<Key>(2 * (random() % (4 * count + 8)) + random() % 2);
          if (random() % 40 == 0) key = random() % 2 == 0 ? below_all : above_all;
          if (!keys.empty() && random() % 8 == 0) key = keys[random() % keys.size()];
          keys.push_back(key);
          const auto bound = std::lower_bound(oracle.begin(), oracle.end(), key);
          const bool present = bound != oracle.end() && *bound == key;
          const result found = array.find(key);
          ASSERT_EQ(found.has_value(), present) << context;
          if (present) {
            ASSERT_EQ(array.sorted_position(*found), static_cast<std::size_t>(bound - oracle.begin())) << context;
          }
          ASSERT_EQ(array.find_without_prefetch(key), found) << context;
          auto sequential_lookup = array.template lookup<sequential>(key);
          ASSERT_TRUE(sequential_lookup.done()) << context << ": the sequential coroutine suspended";
          ASSERT_EQ(sequential_lookup.take_result(), found) << context;
          expected.push_back(found);
        }
        testing::expect_all_techniques_agree(array, keys, expected, result{12345},
                                             context + ", batch of " + std::to_string(length));
      }
    }
  }
}

TEST(EytzingerArray, Int32EveryTechniqueMatchesLowerBound) {
  for (std::uint64_t seed : testing::differential_seeds()) {
    check_against_lower_bound<std::int32_t>(seed, std::numeric_limits<std::int32_t>::min(),
                                            std::numeric_limits<std::int32_t>::max());
  }
}

TEST(EytzingerArray, Int64EveryTechniqueMatchesLowerBound) {
  for (std::uint64_t seed : testing::differential_seeds()) {
    check_against_lower_bound<std::int64_t>(seed, std::numeric_limits<std::int64_t>::min(),
                                            std::numeric_limits<std::int64_t>::max());
  }
}

TEST(EytzingerArray, InterleavedSearchesSuspendBelowTheHotLevels) {
  std::vector<std::int64_t> keys(100000);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<std::int64_t>(i);
  const eytzinger_array<std::int64_t> array(keys, page_size::small_4k);
  auto lookup = array.lookup<interleaved>(0);  // the leftmost path: nodes 1, 2, 4, ..., 65536
  int suspensions = 0;
  while (!lookup.done()) {
    lookup.resume();
    ++suspensions;
  }
  // 100,000 keys: 17 levels; 8,192 hot nodes: 13 levels walked at once, then one suspension
  // for each of the 4 levels below.
  EXPECT_EQ(suspensions, 4);
  EXPECT_EQ(lookup.take_result(), array.find(0));
}

TEST(EytzingerArray, RejectsBadArguments) {
  testing::expect_bad_batches_rejected(
      eytzinger_array<std::int32_t>(std::vector<std::int32_t>{1, 2, 3}, page_size::small_4k));
}

}  // namespace
}  // namespace braid
