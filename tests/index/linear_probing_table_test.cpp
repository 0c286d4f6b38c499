// linear_probing_table: container behaviour against std::unordered_map (growth, the key 0,
// wrap-around), and every lookup technique against the plain lookup, over many seeds.
#include "braid/index/linear_probing_table.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "index/lookup_differential.hpp"

namespace braid {
namespace {

using table_type = linear_probing_table<>;
using result = table_type::result_type;

TEST(LinearProbingTable, InsertAndFindAgreeWithUnorderedMapWhileGrowing) {
  table_type table(0, page_size::small_4k);
  const std::size_t initial_capacity = table.capacity();
  std::unordered_map<std::uint64_t, std::uint64_t> oracle;
  std::mt19937_64 random(5);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t key = random() % 15000;  // includes 0 and repeats
    const std::uint64_t value = random();
    ASSERT_EQ(table.insert(key, value), oracle.emplace(key, value).second) << "key " << key;
    ASSERT_LE(table.load_factor(), table_type::default_max_load);
  }
  EXPECT_GT(table.capacity(), initial_capacity);
  EXPECT_TRUE(std::has_single_bit(table.capacity()));
  EXPECT_EQ(table.size(), oracle.size());
  for (std::uint64_t key = 0; key < 16000; ++key) {
    const auto found = oracle.find(key);
    ASSERT_EQ(table.find(key), found == oracle.end() ? result{} : result{found->second}) << "key " << key;
  }
}

TEST(LinearProbingTable, SizedForExpectedKeysAtTheMaximumLoad) {
  EXPECT_EQ(table_type(1000, page_size::small_4k).capacity(), 2048u);
  EXPECT_EQ(table_type(1024, page_size::small_4k).capacity(), 2048u);
  EXPECT_EQ(table_type(1000, page_size::small_4k, 0.9).capacity(), 2048u);
  EXPECT_EQ(table_type(900, page_size::small_4k, 0.9).capacity(), 1024u);
  EXPECT_THROW(table_type(10, page_size::small_4k, 1.0), std::invalid_argument);
  EXPECT_THROW(table_type(10, page_size::small_4k, 0.0), std::invalid_argument);
}

TEST(LinearProbingTable, KeyZeroLivesBesideTheArray) {
  table_type table(16, page_size::small_4k);
  EXPECT_EQ(table.find(0), result{});
  EXPECT_TRUE(table.insert(0, 9));
  EXPECT_FALSE(table.insert(0, 10));
  EXPECT_EQ(table.find(0), result{9});
  EXPECT_EQ(table.size(), 1u);
  EXPECT_EQ(table.load_factor(), 0.0);
  EXPECT_EQ(table.lines_visited(0), 0u);
}

TEST(LinearProbingTable, LinesVisitedCountsLineCrossings) {
  table_type table(0, page_size::small_4k, 0.9);  // 8 slots: two lines
  ASSERT_EQ(table.capacity(), 8u);
  // Fill 7 of 8 slots: any absent key's probe now runs to the single free slot.
  std::uint64_t key = 1;
  while (table.size() < 7) table.insert(key++, 0);
  std::size_t most = 0;
  for (std::uint64_t absent = 1000; absent < 1100; ++absent) most = std::max(most, table.lines_visited(absent));
  EXPECT_GE(most, 2u);  // some probe crosses into the other line
  EXPECT_LE(most, 3u);  // at most: rest of the home line, the other line, the home line again
}

TEST(LinearProbingTable, RejectsBadArguments) {
  testing::expect_bad_batches_rejected(table_type(16, page_size::small_4k));
}

// Tables at several loads (up to 90%, so probes run across lines and wrap around the end),
// with and without the key 0; batches of every length with 0 / 50 / 100 % hits and repeats.
TEST(LinearProbingTable, EveryTechniqueMatchesThePlainLookup) {
  for (std::uint64_t seed : testing::differential_seeds()) {
    std::mt19937_64 random(seed);
    for (double max_load : {0.5, 0.9}) {
      const std::size_t stored = 50 + random() % 1500;
      table_type table(stored, page_size::small_4k, max_load);
      std::unordered_map<std::uint64_t, std::uint64_t> oracle;
      std::vector<std::uint64_t> present;
      const bool with_zero = random() % 2 == 0;
      while (oracle.size() < stored) {
        std::uint64_t key = random() >> (random() % 60);  // small and large keys
        if (key == 0 && !with_zero) continue;
        if (oracle.emplace(key, random()).second) present.push_back(key);
        table.insert(key, oracle[key]);
      }
      ASSERT_EQ(table.size(), oracle.size());
      const std::string context = "seed " + std::to_string(seed) + ", load " + std::to_string(table.load_factor());
      auto draw_key = [&](std::bernoulli_distribution& hit, const std::vector<std::uint64_t>& keys) {
        std::uint64_t key = hit(random) ? present[random() % present.size()] : random() | 1;
        if (!keys.empty() && random() % 8 == 0) key = keys[random() % keys.size()];
        if (random() % 50 == 0) key = 0;
        return key;
      };
      ASSERT_NO_FATAL_FAILURE(testing::expect_hash_batches_agree(table, oracle, draw_key, result{0xDEAD}, context));
    }
  }
}

TEST(LinearProbingTable, EmptyTableReportsEverythingAbsent) {
  const table_type table(0, page_size::small_4k);
  std::vector<std::uint64_t> keys = {0, 1, 2, 3, 0xFFFFFFFFFFFFFFFFull};
  std::vector<result> expected(keys.size());
  testing::expect_all_techniques_agree(table, keys, expected, result{1}, "empty table");
}

}  // namespace
}  // namespace braid
