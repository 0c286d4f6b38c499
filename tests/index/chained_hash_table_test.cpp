// chained_hash_table: container behaviour against std::unordered_map, and every lookup
// technique against the plain lookup, over many seeds.
#include "braid/index/chained_hash_table.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "index/lookup_differential.hpp"

namespace braid {
namespace {

using table_type = chained_hash_table<std::uint32_t, std::uint64_t>;
using result = table_type::result_type;

std::uint64_t value_of_key(std::uint32_t key) { return std::uint64_t{key} * 0x9E3779B97F4A7C15ull + 1; }

// Keys drawn with replacement from [0, domain), as in the paper's build: duplicates occur and
// only the first is stored.
std::vector<std::uint32_t> draw_keys(std::mt19937_64& random, std::size_t count, std::uint32_t domain) {
  std::uniform_int_distribution<std::uint32_t> key(0, domain - 1);
  std::vector<std::uint32_t> keys(count);
  for (auto& k : keys) k = key(random);
  return keys;
}

TEST(ChainedHashTable, InsertAndFindAgreeWithUnorderedMap) {
  table_type table(97, 0, page_size::small_4k);
  std::unordered_map<std::uint32_t, std::uint64_t> oracle;
  std::mt19937_64 random(7);
  for (std::uint32_t k : draw_keys(random, 5000, 3000)) {
    const std::uint64_t value = random();
    EXPECT_EQ(table.insert(k, value), oracle.emplace(k, value).second);
  }
  EXPECT_EQ(table.size(), oracle.size());
  for (std::uint32_t k = 0; k < 3500; ++k) {
    const auto found = oracle.find(k);
    EXPECT_EQ(table.find(k), found == oracle.end() ? result{} : result{found->second}) << "key " << k;
  }
  EXPECT_EQ(table.bucket_count(), 97u);
  EXPECT_DOUBLE_EQ(table.average_chain_length(), static_cast<double>(oracle.size()) / 97.0);
}

TEST(ChainedHashTable, InsertAllKeepsTheFirstOccurrence) {
  std::mt19937_64 random(11);
  const std::vector<std::uint32_t> keys = draw_keys(random, 20000, 12000);
  for (bool start_empty : {true, false}) {
    table_type table(1000, 0, page_size::small_4k);
    std::unordered_map<std::uint32_t, std::uint64_t> oracle;
    if (!start_empty) {
      table.insert(keys[5], 123);  // present before: insert_all must not overwrite it
      oracle.emplace(keys[5], 123);
    }
    std::size_t expected_inserted = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) expected_inserted += oracle.emplace(keys[i], i * 3).second ? 1 : 0;
    EXPECT_EQ(
        table.insert_all(std::span<const std::uint32_t>(keys), [](std::size_t i) { return std::uint64_t{i * 3}; }),
        expected_inserted);
    EXPECT_EQ(table.size(), oracle.size());
    for (const auto& [k, v] : oracle) ASSERT_EQ(table.find(k), result{v}) << "key " << k;
  }
}

TEST(ChainedHashTable, NodesAreOneCacheLineFromPagedChunks) {
  static_assert(sizeof(table_type::node) == cache_line_bytes);
  static_assert(alignof(table_type::node) == cache_line_bytes);
  table_type table(10, 0, page_size::small_4k);
  for (std::uint32_t k = 0; k < 5000; ++k) table.insert(k, k);  // several chunks
  EXPECT_GE(table.memory_bytes(), 5000 * sizeof(table_type::node));
  for (std::uint32_t k = 0; k < 5000; ++k) ASSERT_EQ(table.find(k), result{k});
  EXPECT_FALSE(table.describe_pages().empty());
}

TEST(ChainedHashTable, NodesVisitedCountsTheChainWalk) {
  table_type one_chain(1, 0, page_size::small_4k);
  for (std::uint32_t k = 0; k < 500; ++k) one_chain.insert(k, k);  // each new key at the head
  EXPECT_EQ(one_chain.nodes_visited(499), 1u);
  EXPECT_EQ(one_chain.nodes_visited(0), 500u);
  EXPECT_EQ(one_chain.nodes_visited(1000), 500u);  // absent: the whole chain
  EXPECT_EQ(table_type(4, 0, page_size::small_4k).nodes_visited(3), 0u);
}

TEST(ChainedHashTable, RejectsBadArguments) {
  EXPECT_THROW(table_type(0), std::invalid_argument);
  testing::expect_bad_batches_rejected(table_type(16, 0, page_size::small_4k));
}

// The differential test proper: tables of long chains (few buckets), of one bucket per key,
// and empty; batches of hits, misses and repeated keys of every length.
void check_table_against_oracle(const table_type& table, const std::unordered_map<std::uint32_t, std::uint64_t>& oracle,
                                std::uint32_t domain, std::mt19937_64& random, const std::string& context) {
  std::vector<std::uint32_t> present;
  for (const auto& entry : oracle) present.push_back(entry.first);
  std::sort(present.begin(), present.end());  // deterministic for the seed
  std::uniform_int_distribution<std::uint32_t> any(0, domain * 2);
  auto draw_key = [&](std::bernoulli_distribution& hit, const std::vector<std::uint32_t>& keys) {
    std::uint32_t k = any(random);
    if (hit(random) && !present.empty()) k = present[random() % present.size()];
    if (!keys.empty() && random() % 8 == 0) k = keys[random() % keys.size()];  // repeated lookups
    return k;
  };
  testing::expect_hash_batches_agree(table, oracle, draw_key, result{0xDEADBEEF}, context);
}

TEST(ChainedHashTable, EveryTechniqueMatchesThePlainLookup) {
  for (std::uint64_t seed : testing::differential_seeds()) {
    std::mt19937_64 random(seed);
    const std::uint32_t domain = 200 + static_cast<std::uint32_t>(random() % 2000);
    const std::vector<std::uint32_t> build = draw_keys(random, domain, domain);
    std::unordered_map<std::uint32_t, std::uint64_t> oracle;
    for (std::uint32_t k : build) oracle.emplace(k, value_of_key(k));

    table_type long_chains(1 + random() % 40, 0, page_size::small_4k);
    long_chains.insert_all(std::span<const std::uint32_t>(build),
                           [&](std::size_t i) { return value_of_key(build[i]); });
    auto one_per_key = table_type::with_buckets_for(oracle.size(), page_size::small_4k);
    for (std::uint32_t k : build) one_per_key.insert(k, value_of_key(k));
    const table_type empty(8, 0, page_size::small_4k);

    const std::string context = "seed " + std::to_string(seed);
    check_table_against_oracle(long_chains, oracle, domain, random, context + ", long chains");
    check_table_against_oracle(one_per_key, oracle, domain, random, context + ", one bucket per key");
    check_table_against_oracle(empty, {}, domain, random, context + ", empty table");
  }
}

TEST(ChainedHashTable, SixtyFourBitKeys) {
  chained_hash_table<std::uint64_t, std::uint32_t> table(31, 0, page_size::small_4k);
  std::unordered_map<std::uint64_t, std::uint32_t> oracle;
  std::mt19937_64 random(3);
  std::vector<std::uint64_t> keys;
  for (int i = 0; i < 400; ++i) {
    const std::uint64_t k = random() | (std::uint64_t{1} << 63);
    table.insert(k, static_cast<std::uint32_t>(i));
    oracle.emplace(k, static_cast<std::uint32_t>(i));
    keys.push_back(k);
    keys.push_back(k ^ 1);  // absent neighbour
  }
  std::vector<std::optional<std::uint32_t>> expected;
  for (std::uint64_t k : keys) {
    const auto found = oracle.find(k);
    expected.push_back(found == oracle.end() ? std::nullopt : std::optional<std::uint32_t>(found->second));
  }
  testing::expect_all_techniques_agree(table, keys, expected, std::optional<std::uint32_t>(77), "64-bit keys");
}

}  // namespace
}  // namespace braid
