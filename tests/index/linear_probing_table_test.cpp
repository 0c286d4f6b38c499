// linear_probing_table: container behaviour against std::unordered_map (growth, the key 0,
// wrap-around), and every lookup technique against the plain lookup, over many seeds, for each
// placement (power-of-two mask, prime modulo) and completion (plain, serializing) policy.
#include "braid/index/linear_probing_table.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
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
using prime_table = linear_probing_table<std::uint64_t, slot_placement::prime_modulo>;
using serializing_table =
    linear_probing_table<std::uint64_t, slot_placement::power_of_two_mask, lookup_completion::serializing>;
using prime_serializing_table =
    linear_probing_table<std::uint64_t, slot_placement::prime_modulo, lookup_completion::serializing>;

bool slow_is_prime(std::size_t n) {
  if (n < 2) return false;
  for (std::size_t d = 2; d * d <= n; ++d) {
    if (n % d == 0) return false;
  }
  return true;
}

// The capacity the table's placement promises: a power of two, or a prime.
template <class Table>
bool capacity_has_its_shape(const Table& table) {
  if constexpr (Table::placement == slot_placement::prime_modulo) return slow_is_prime(table.capacity());
  return std::has_single_bit(table.capacity());
}

template <class Table>
class LinearProbingVariants : public ::testing::Test {};
using table_variants = ::testing::Types<table_type, prime_table, serializing_table, prime_serializing_table>;
TYPED_TEST_SUITE(LinearProbingVariants, table_variants);

TYPED_TEST(LinearProbingVariants, InsertAndFindAgreeWithUnorderedMapWhileGrowing) {
  using table_type = TypeParam;
  table_type table(0, page_size::small_4k);
  const std::size_t initial_capacity = table.capacity();
  std::unordered_map<std::uint64_t, std::uint64_t> oracle;
  std::mt19937_64 random(5);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t key = random() % 15000;  // includes 0 and repeats
    const std::uint64_t value = random();
    const std::size_t capacity_before = table.capacity();
    ASSERT_EQ(table.insert(key, value), oracle.emplace(key, value).second) << "key " << key;
    ASSERT_LE(table.load_factor(), table_type::default_max_load);
    if (table.capacity() != capacity_before) {  // grew: at least doubled, keeping its shape
      ASSERT_GE(table.capacity(), 2 * capacity_before);
      ASSERT_TRUE(capacity_has_its_shape(table)) << "capacity " << table.capacity();
    }
  }
  EXPECT_GT(table.capacity(), initial_capacity);
  EXPECT_TRUE(capacity_has_its_shape(table));
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

TEST(LinearProbingTable, PrimeCapacityIsTheSmallestPrimeThatHoldsTheKeys) {
  EXPECT_EQ(prime_table(0, page_size::small_4k).capacity(), 11u);  // at least two lines: 8 slots
  EXPECT_EQ(prime_table(1000, page_size::small_4k).capacity(), 2003u);
  EXPECT_EQ(prime_table(900, page_size::small_4k, 0.9).capacity(), 1009u);
  for (std::size_t expected = 0; expected < 3000; expected += 37) {
    const std::size_t capacity = prime_table(expected, page_size::small_4k).capacity();
    ASSERT_TRUE(slow_is_prime(capacity)) << capacity;
    ASSERT_GE(static_cast<double>(capacity) * prime_table::default_max_load, static_cast<double>(expected));
    for (std::size_t smaller = std::max<std::size_t>(capacity / 2, 8); smaller < capacity; ++smaller) {
      ASSERT_FALSE(slow_is_prime(smaller) &&
                   static_cast<double>(smaller) * prime_table::default_max_load >= static_cast<double>(expected))
          << "prime " << smaller << " would hold " << expected << " keys";
    }
  }
}

TEST(LinearProbingTable, PrimeTableGrowsToTheNextPrimeOfTwiceItsCapacity) {
  prime_table table(0, page_size::small_4k);
  std::uint64_t key = 1;
  for (int growth = 0; growth < 6; ++growth) {
    const std::size_t before = table.capacity();
    for (; table.capacity() == before; ++key) table.insert(key, key);
    std::size_t expected = 2 * before;
    while (!slow_is_prime(expected)) ++expected;
    ASSERT_EQ(table.capacity(), expected) << "growth " << growth;
  }
  for (std::uint64_t k = 1; k < key; ++k) ASSERT_EQ(table.find(k), result{k}) << k;
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

// 11 slots: lines {0..3}, {4..7} and the partial {8..10}; a probe that wraps enters slot 0 anew.
TEST(LinearProbingTable, LinesVisitedCountsThePrimeTablesPartialLastLine) {
  prime_table table(0, page_size::small_4k, 0.9);
  ASSERT_EQ(table.capacity(), 11u);
  std::uint64_t key = 1;
  while (table.size() < 9) table.insert(key++, 0);
  std::size_t most = 0;
  for (std::uint64_t absent = 1000; absent < 1400; ++absent) most = std::max(most, table.lines_visited(absent));
  EXPECT_GE(most, 2u);
  EXPECT_LE(most, 4u);  // rest of the home line, the two others, the home line again
}

TYPED_TEST(LinearProbingVariants, RejectsBadArguments) {
  testing::expect_bad_batches_rejected(TypeParam(16, page_size::small_4k));
}

// Tables at several loads (up to 90%, so probes run across lines and wrap around the end),
// sized up front or grown from empty, with and without the key 0; batches of every length with
// 0 / 50 / 100 % hits, repeats, the key 0 and UINT64_MAX.
TYPED_TEST(LinearProbingVariants, EveryTechniqueMatchesThePlainLookup) {
  using table_type = TypeParam;
  for (std::uint64_t seed : testing::differential_seeds()) {
    std::mt19937_64 random(seed);
    for (double max_load : {0.5, 0.9}) {
      const std::size_t stored = 50 + random() % 1500;
      const bool grown = random() % 2 == 0;
      table_type table(grown ? 0 : stored, page_size::small_4k, max_load);
      std::unordered_map<std::uint64_t, std::uint64_t> oracle;
      std::vector<std::uint64_t> present;
      const bool with_zero = random() % 2 == 0;
      while (oracle.size() < stored) {
        std::uint64_t key = random() >> (random() % 60);  // small and large keys
        if (random() % 400 == 0) key = UINT64_MAX;
        if (key == 0 && !with_zero) continue;
        if (oracle.emplace(key, random()).second) present.push_back(key);
        table.insert(key, oracle[key]);
      }
      ASSERT_EQ(table.size(), oracle.size());
      ASSERT_TRUE(capacity_has_its_shape(table));
      const std::string context = "seed " + std::to_string(seed) + ", load " + std::to_string(table.load_factor()) +
                                  ", capacity " + std::to_string(table.capacity()) + (grown ? " (grown)" : "");
      auto draw_key = [&](std::bernoulli_distribution& hit, const std::vector<std::uint64_t>& keys) {
        std::uint64_t key = hit(random) ? present[random() % present.size()] : random() | 1;
        if (!keys.empty() && random() % 8 == 0) key = keys[random() % keys.size()];
        if (random() % 50 == 0) key = 0;
        if (random() % 50 == 0) key = UINT64_MAX;
        return key;
      };
      ASSERT_NO_FATAL_FAILURE(testing::expect_hash_batches_agree(table, oracle, draw_key, result{0xDEAD}, context));
    }
  }
}

TYPED_TEST(LinearProbingVariants, EmptyTableReportsEverythingAbsent) {
  const TypeParam table(0, page_size::small_4k);
  std::vector<std::uint64_t> keys = {0, 1, 2, 3, 0xFFFFFFFFFFFFFFFFull};
  std::vector<result> expected(keys.size());
  testing::expect_all_techniques_agree(table, keys, expected, result{1}, "empty table");
}

}  // namespace
}  // namespace braid
