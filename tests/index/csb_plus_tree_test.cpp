// csb_plus_tree: every lookup technique against std::map for node sizes of 1, 2, 4 and 64 cache
// lines (hits, misses, repeats, empty tree, a single leaf, sizes at the fill boundaries, empty
// input, group sizes 1..64 and larger than the input), the structural invariants after every
// bulk load (separators, node groups contiguous, uniform depth, half-full nodes), range scans
// and the bulk-load errors; the Delta variant (leaves of dictionary codes) against std::map from
// value to code, for every technique and group size.
#include "braid/index/csb_plus_tree.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

#include "braid/core/scheduler.hpp"
#include "index/ordered_index_test_support.hpp"

namespace braid::testing {
namespace {

const std::vector<technique> all_techniques = {technique::naive, technique::gp, technique::amac, technique::coro,
                                               technique::fiber, technique::adaptive};

template <class Tree>
class CsbPlusTree : public ::testing::Test {};

using node_sizes = ::testing::Types<csb_plus_tree<std::uint64_t, std::uint64_t, 64>,
                                    csb_plus_tree<std::uint64_t, std::uint64_t, 128>,
                                    csb_plus_tree<std::uint64_t, std::uint64_t, 256>,
                                    csb_plus_tree<std::uint64_t, std::uint64_t, 4096>>;
TYPED_TEST_SUITE(CsbPlusTree, node_sizes);

template <class Tree>
Tree build_tree(const oracle_map& oracle) {
  std::vector<std::uint64_t> keys, values;
  for (const auto& [key, value] : oracle) {
    keys.push_back(key);
    values.push_back(value);
  }
  return Tree(keys, values, page_size::small_4k);
}

oracle_map random_oracle(std::size_t count, std::uint64_t key_range, std::mt19937_64& random) {
  oracle_map oracle;
  for (std::uint64_t key : random_keys(count, key_range, random)) oracle.emplace(key, value_for(key));
  return oracle;
}

TYPED_TEST(CsbPlusTree, EmptyTreeReportsEveryKeyAbsent) {
  const TypeParam empty;
  const oracle_map oracle;
  EXPECT_EQ(empty.levels(), 0u);
  empty.check_invariants();
  expect_multi_find_agrees(empty, oracle, std::vector<std::uint64_t>{0, 1, 7, ~std::uint64_t{0}}, all_techniques,
                           "empty tree");
  const TypeParam also_empty = build_tree<TypeParam>(oracle);
  expect_multi_find_agrees(also_empty, oracle, std::vector<std::uint64_t>{0, 1}, all_techniques, "built empty");
  EXPECT_EQ(also_empty.scan(0, 10, [](auto, auto) {}), 0u);
}

TYPED_TEST(CsbPlusTree, EveryTechniqueAgreesWithStdMapAtEverySize) {
  constexpr std::size_t leaf = TypeParam::leaf_capacity;
  constexpr std::size_t fanout = TypeParam::inner_capacity + 1;
  // Sizes around the fill boundaries: one leaf, two leaves, a full two-level tree, one more.
  std::vector<std::size_t> counts = {1, 2, leaf - 1, leaf, leaf + 1, leaf * fanout, leaf * fanout + 1, 3000};
  if (leaf * fanout * fanout < 40'000) counts.push_back(leaf * fanout * fanout + 1);
  std::erase_if(counts, [](std::size_t count) { return count > 40'000; });  // keeps the test fast
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    std::mt19937_64 random(seed);
    for (std::size_t count : counts) {
      SCOPED_TRACE(seed_label(seed) + " count " + std::to_string(count));
      const std::uint64_t key_range = seed % 2 == 0 ? count * 4 : ~std::uint64_t{0};
      oracle_map oracle;
      while (oracle.size() < count) oracle.emplace(random() % key_range, 0);
      for (auto& [key, value] : oracle) value = value_for(key);
      const TypeParam tree = build_tree<TypeParam>(oracle);
      ASSERT_EQ(tree.size(), count);
      tree.check_invariants();
      const auto keys = lookup_mix(oracle, 250, key_range, random);
      ASSERT_NO_FATAL_FAILURE(expect_lookups_agree(tree, oracle, keys, 2, all_techniques));
    }
  }
}

TYPED_TEST(CsbPlusTree, TreesGrowOneLevelPerFanout) {
  std::mt19937_64 random(4);
  const oracle_map oracle = random_oracle(20'000, ~std::uint64_t{0}, random);
  const TypeParam tree = build_tree<TypeParam>(oracle);
  std::size_t expected_levels = 1;
  for (std::size_t nodes = (oracle.size() + TypeParam::leaf_capacity - 1) / TypeParam::leaf_capacity; nodes > 1;
       nodes = (nodes + TypeParam::inner_capacity) / (TypeParam::inner_capacity + 1)) {
    ++expected_levels;
  }
  EXPECT_EQ(tree.levels(), expected_levels);
  tree.check_invariants();
}

TYPED_TEST(CsbPlusTree, ScansAgreeWithStdMap) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    SCOPED_TRACE(seed_label(seed));
    std::mt19937_64 random(seed);
    const oracle_map oracle = random_oracle(1 + random() % 2500, 10'000, random);
    const TypeParam tree = build_tree<TypeParam>(oracle);
    std::vector<std::pair<std::uint64_t, std::size_t>> requests = {
        {0, 0}, {0, 1}, {0, oracle.size() + 9}, {oracle.rbegin()->first, 5}, {oracle.rbegin()->first + 1, 5}};
    for (int i = 0; i < 100; ++i) requests.emplace_back(random() % 10'002, random() % 3 == 0 ? 5000 : random() % 50);
    for (const auto& [start, limit] : requests) {
      std::vector<std::pair<std::uint64_t, std::uint64_t>> got;
      const std::size_t visited = tree.scan(start, limit, [&](auto key, auto value) { got.emplace_back(key, value); });
      ASSERT_EQ(got, expected_scan(oracle, start, limit)) << "start " << start << " limit " << limit;
      ASSERT_EQ(visited, got.size());
    }
  }
}

TYPED_TEST(CsbPlusTree, NonTemporalHintGivesTheSameResults) {
  std::mt19937_64 random(8);
  const oracle_map oracle = random_oracle(3000, 20'000, random);
  const TypeParam tree = build_tree<TypeParam>(oracle);
  const auto keys = lookup_mix(oracle, 300, 20'000, random);
  for (technique how : all_techniques) {
    std::vector<std::optional<std::uint64_t>> got(keys.size());
    tree.template multi_find<prefetch_hint::nta>(keys, std::span(got), how, 8);
    ASSERT_EQ(got, expected_lookups(oracle, keys)) << to_string(how);
  }
}

TYPED_TEST(CsbPlusTree, MovesLeaveTheSourceEmpty) {
  std::mt19937_64 random(71);
  const oracle_map oracle = random_oracle(3000, ~std::uint64_t{0}, random);
  TypeParam source = build_tree<TypeParam>(oracle);
  const std::vector<std::uint64_t> keys = lookup_mix(oracle, 200, ~std::uint64_t{0}, random);
  TypeParam moved(std::move(source));
  EXPECT_EQ(source.size(), 0u);  // NOLINT(bugprone-use-after-move): a moved-from tree is empty
  EXPECT_EQ(source.levels(), 0u);
  source.check_invariants();
  expect_multi_find_agrees(source, oracle_map{}, keys, all_techniques, "moved-from");
  moved.check_invariants();
  expect_multi_find_agrees(moved, oracle, keys, all_techniques, "move-constructed");
  TypeParam assigned;
  assigned = std::move(moved);
  EXPECT_EQ(moved.node_count(), 0u);  // NOLINT(bugprone-use-after-move)
  assigned.check_invariants();
  expect_multi_find_agrees(assigned, oracle, keys, all_techniques, "move-assigned");
  assigned = build_tree<TypeParam>(oracle_map{});
  EXPECT_TRUE(assigned.empty());
}

TYPED_TEST(CsbPlusTree, BulkLoadRejectsUnsortedOrRepeatedKeys) {
  const std::vector<std::uint64_t> values = {1, 2, 3};
  EXPECT_THROW(TypeParam(std::vector<std::uint64_t>{1, 3, 2}, values), std::invalid_argument);
  EXPECT_THROW(TypeParam(std::vector<std::uint64_t>{1, 2, 2}, values), std::invalid_argument);
  EXPECT_THROW(TypeParam(std::vector<std::uint64_t>{1, 2}, values), std::invalid_argument);
  const TypeParam tree(std::vector<std::uint64_t>{1, 2, 3}, values, page_size::small_4k);
  std::vector<std::optional<std::uint64_t>> short_output(1);
  const std::vector<std::uint64_t> keys = {1, 2};
  EXPECT_THROW(tree.multi_find(keys, std::span(short_output), technique::amac, 4), std::invalid_argument);
  std::vector<std::optional<std::uint64_t>> output(2);
  EXPECT_THROW(tree.multi_find(keys, std::span(output), technique::gp, 0), std::invalid_argument);
}

// ---- csb_plus_tree_over_codes ----------------------------------------------------------------

template <class Tree>
class CsbPlusTreeOverCodes : public ::testing::Test {};

using coded_node_sizes = ::testing::Types<csb_plus_tree_over_codes<std::uint64_t, 64>,
                                          csb_plus_tree_over_codes<std::uint64_t, 256>>;
TYPED_TEST_SUITE(CsbPlusTreeOverCodes, coded_node_sizes);

const std::vector<technique> coded_techniques = {technique::naive, technique::coro, technique::coro_nested, technique::fiber,
                                                 technique::adaptive};

// Every technique and group size against the oracle (value -> code).
template <class Tree>
void expect_codes_agree(const Tree& tree, const std::map<std::uint64_t, std::uint32_t>& oracle,
                        const std::vector<std::uint64_t>& values, const std::string& where) {
  std::vector<std::optional<std::uint32_t>> expected(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (auto found = oracle.find(values[i]); found != oracle.end()) expected[i] = found->second;
  }
  for (technique how : coded_techniques) {
    for (std::size_t group : ordered_group_sizes) {
      std::vector<std::optional<std::uint32_t>> got(values.size(), std::optional<std::uint32_t>{777});
      tree.multi_find(values, std::span(got), how, group);
      for (std::size_t i = 0; i < values.size(); ++i) {
        ASSERT_EQ(got[i], expected[i]) << where << ": " << to_string(how) << " group " << group << " value " << values[i];
      }
    }
  }
  ASSERT_EQ(run(sequential_scheduler{}, values, [&](std::uint64_t value) { return tree.template lookup<sequential>(value); }),
            expected)
      << where << ": lookup<sequential>";
}

TYPED_TEST(CsbPlusTreeOverCodes, LocatesEveryValueAsStdMapDoes) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    std::mt19937_64 random(seed);
    for (std::size_t count : {std::size_t{1}, std::size_t{2}, TypeParam::leaf_capacity, TypeParam::leaf_capacity + 1,
                              std::size_t{700}, std::size_t{9000}}) {
      SCOPED_TRACE(seed_label(seed) + " count " + std::to_string(count));
      const std::uint64_t key_range = seed % 2 == 0 ? count * 3 : ~std::uint64_t{0};
      // A dictionary in insertion order: distinct values, unsorted.
      std::vector<std::uint64_t> dictionary;
      std::map<std::uint64_t, std::uint32_t> oracle;
      while (dictionary.size() < count) {
        const std::uint64_t value = random() % key_range;
        if (oracle.emplace(value, static_cast<std::uint32_t>(dictionary.size())).second) dictionary.push_back(value);
      }
      const TypeParam tree(dictionary, page_size::small_4k);
      ASSERT_EQ(tree.size(), count);
      ASSERT_NO_THROW(tree.check_invariants());
      oracle_map as_values;
      for (const auto& [value, code] : oracle) as_values.emplace(value, code);
      expect_codes_agree(tree, oracle, lookup_mix(as_values, 200, key_range, random), "locate");
    }
  }
}

TYPED_TEST(CsbPlusTreeOverCodes, MovesLeaveTheSourceEmpty) {
  TypeParam source(std::vector<std::uint64_t>{30, 10, 20}, page_size::small_4k);
  TypeParam moved(std::move(source));
  EXPECT_EQ(source.size(), 0u);  // NOLINT(bugprone-use-after-move): a moved-from index is empty
  EXPECT_TRUE(source.dictionary().empty());
  source.check_invariants();
  expect_codes_agree(source, {}, {10, 20}, "moved-from");
  expect_codes_agree(moved, {{10, 1}, {20, 2}, {30, 0}}, {10, 15, 20, 30}, "move-constructed");
  TypeParam assigned(std::vector<std::uint64_t>{5}, page_size::small_4k);
  assigned = std::move(moved);
  EXPECT_EQ(moved.levels(), 0u);  // NOLINT(bugprone-use-after-move)
  assigned.check_invariants();
  expect_codes_agree(assigned, {{10, 1}, {20, 2}, {30, 0}}, {5, 10, 20, 30}, "move-assigned");
}

TYPED_TEST(CsbPlusTreeOverCodes, EmptyRepeatedAndUnavailable) {
  const TypeParam empty(std::vector<std::uint64_t>{}, page_size::small_4k);
  empty.check_invariants();
  expect_codes_agree(empty, {}, {0, 5}, "empty");
  EXPECT_THROW(TypeParam(std::vector<std::uint64_t>{4, 9, 4}), std::invalid_argument);
  const TypeParam tree(std::vector<std::uint64_t>{30, 10, 20}, page_size::small_4k);
  EXPECT_EQ(tree.find(10), 1u);
  EXPECT_EQ(tree.find(30), 0u);
  EXPECT_FALSE(tree.find(15).has_value());
  const std::vector<std::uint64_t> values = {10, 20};
  std::vector<std::optional<std::uint32_t>> out(2);
  EXPECT_THROW(tree.multi_find(values, std::span(out), technique::gp, 4), std::invalid_argument);
  EXPECT_THROW(tree.multi_find(values, std::span(out), technique::amac, 4), std::invalid_argument);
}

}  // namespace
}  // namespace braid::testing
