// bplus_tree, for nodes of 1, 2, 3 and 4 cache lines and of a 4 KiB page: random interleavings
// of inserts, overwrites, erases, lookups and scans against std::map, with every invariant
// (sorted keys, separators, fill bounds, uniform depth, leaf chain) checked after every batch;
// every lookup technique (plain, flattened coroutine, nested tasks, fiber) and every scan
// technique at group sizes 1..64; bulk loads at several fills followed by updates; the edges
// (empty tree, erasing everything, sorted and reverse-sorted inserts) and the errors.
#include "braid/index/bplus_tree.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <vector>

#include "braid/core/scheduler.hpp"
#include "index/ordered_index_test_support.hpp"

namespace braid::testing {
namespace {

const std::vector<technique> tree_techniques = {technique::naive, technique::coro, technique::fiber, technique::adaptive};

template <class Tree>
class BplusTree : public ::testing::Test {};

using node_sizes = ::testing::Types<bplus_tree<std::uint64_t, std::uint64_t, 64>,
                                    bplus_tree<std::uint64_t, std::uint64_t, 128>,
                                    bplus_tree<std::uint64_t, std::uint64_t, 192>,
                                    bplus_tree<std::uint64_t, std::uint64_t, 256>,
                                    bplus_tree<std::uint64_t, std::uint64_t, 4096>>;
TYPED_TEST_SUITE(BplusTree, node_sizes);

// Every lookup technique, the nested tasks and both sequential coroutines, against the oracle.
template <class Tree>
void expect_lookups_agree(const Tree& tree, const oracle_map& oracle, std::span<const std::uint64_t> keys,
                          const std::string& where, const std::vector<std::size_t>& groups = ordered_group_sizes) {
  expect_multi_find_agrees(tree, oracle, keys, tree_techniques, where, groups);
  const auto expected = expected_lookups(oracle, keys);
  for (std::size_t group : groups) {
    std::vector<std::optional<std::uint64_t>> got(keys.size(), std::optional<std::uint64_t>{12345});
    tree.multi_find(keys, std::span(got), technique::coro_nested, group);
    ASSERT_EQ(got, expected) << where << ": nested tasks, group " << group;
  }
  ASSERT_EQ(run(sequential_scheduler{}, keys, [&](std::uint64_t key) { return tree.template lookup<sequential>(key); }),
            expected)
      << where << ": lookup<sequential>";
  ASSERT_EQ(
      run(sequential_scheduler{}, keys, [&](std::uint64_t key) { return tree.template lookup_nested<sequential>(key); }),
      expected)
      << where << ": lookup_nested<sequential>";
}

// Scan requests: length 0, past the end, the last and first entries, whole-tree scans (for
// small trees), and random starts with short limits or limits past the end near the end.
template <class Tree>
std::vector<typename Tree::scan_request> random_requests(const oracle_map& oracle, std::size_t count,
                                                         std::uint64_t key_range, std::mt19937_64& random) {
  std::vector<typename Tree::scan_request> requests = {{0, 0}, {key_range + 5, 3}};
  if (oracle.size() <= 5000) requests.push_back({0, oracle.size() + 2});
  if (!oracle.empty()) {
    requests.push_back({oracle.rbegin()->first, 4});
    requests.push_back({oracle.begin()->first, 1});
  }
  while (requests.size() < count) {
    if (random() % 4 == 0 && !oracle.empty()) {
      const std::uint64_t near_end = oracle.rbegin()->first - std::min<std::uint64_t>(oracle.rbegin()->first, 300);
      requests.push_back({near_end + random() % 300, oracle.size() + 1});
    } else {
      requests.push_back({random() % (key_range + 2), random() % 60});
    }
  }
  return requests;
}

template <class Tree>
Tree bulk_tree(const oracle_map& oracle, double fill) {
  std::vector<std::uint64_t> keys, values;
  for (const auto& [key, value] : oracle) {
    keys.push_back(key);
    values.push_back(value);
  }
  return Tree(keys, values, page_size::small_4k, fill);
}

TYPED_TEST(BplusTree, EmptyTreeFindsAndScansNothing) {
  TypeParam tree(page_size::small_4k);
  const oracle_map oracle;
  tree.check_invariants();
  EXPECT_EQ(tree.height(), 0u);
  EXPECT_FALSE(tree.erase(3));
  expect_lookups_agree(tree, oracle, std::vector<std::uint64_t>{0, 3, ~std::uint64_t{0}}, "empty tree");
  expect_lookups_agree(tree, oracle, std::span<const std::uint64_t>{}, "no keys");
  expect_multi_scan_agrees(tree, oracle, {{0, 5}, {7, 0}}, tree_techniques, "empty tree");
}

TYPED_TEST(BplusTree, RandomInterleavingsOfUpdatesLookupsAndScans) {
  // Odd seeds start from an empty tree, even seeds from a bulk load at half fill (every node at
  // its minimum: the first erases merge at every level). Page-sized nodes need a wider key
  // range to reach three levels.
  const bool page_sized = TypeParam::leaf_capacity >= 100;
  const std::uint64_t key_range = page_sized ? 140'000 : 3'000;
  const int batches = page_sized ? 14 : 30;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE(seed_label(seed));
    std::mt19937_64 random(seed);
    const bool from_bulk_load = seed % 2 == 0;
    oracle_map oracle;
    if (from_bulk_load) {
      for (std::uint64_t key = 0; key < key_range; key += 2) oracle.emplace(key, value_for(key));
    }
    TypeParam tree = from_bulk_load ? bulk_tree<TypeParam>(oracle, 0.5) : TypeParam(page_size::small_4k);
    ASSERT_NO_THROW(tree.check_invariants());
    std::size_t tallest = tree.height();
    for (int batch = 0; batch < batches; ++batch) {
      // Grow, then churn with more erases than inserts, then shrink.
      const unsigned insert_share = batch < batches / 2 ? 80 : batch < batches * 3 / 4 ? 45 : 10;
      const auto operations = static_cast<int>(std::min<std::uint64_t>(key_range / 8 + random() % (key_range / 8), 3000));
      for (int op = 0; op < operations; ++op) {
        const std::uint64_t key = random() % key_range;
        const unsigned choice = static_cast<unsigned>(random() % 100);
        if (choice < insert_share) {
          const std::uint64_t value = random();
          if (random() % 4 == 0) {
            const bool inserted = oracle.insert_or_assign(key, value).second;
            ASSERT_EQ(tree.insert_or_assign(key, value), inserted) << "insert_or_assign " << key;
          } else {
            ASSERT_EQ(tree.insert(key, value), oracle.emplace(key, value).second) << "insert " << key;
          }
        } else {
          ASSERT_EQ(tree.erase(key), oracle.erase(key) == 1) << "erase " << key;
        }
      }
      ASSERT_EQ(tree.size(), oracle.size());
      ASSERT_NO_THROW(tree.check_invariants()) << "after batch " << batch;
      tallest = std::max(tallest, tree.height());
      const std::string where = "batch " + std::to_string(batch);
      const auto groups = rotating_group(static_cast<std::size_t>(batch));
      expect_lookups_agree(tree, oracle, lookup_mix(oracle, 80, key_range, random), where, groups);
      expect_multi_scan_agrees(tree, oracle, random_requests<TypeParam>(oracle, 10, key_range, random),
                               tree_techniques, where, groups);
    }
    if (!page_sized || from_bulk_load) {
      EXPECT_GE(tallest, 3u) << "the workload should reach three levels";
    }
  }
}

TYPED_TEST(BplusTree, ErasingEverythingLeavesAnEmptyTreeThatGrowsAgain) {
  std::mt19937_64 random(11);
  TypeParam tree(page_size::small_4k);
  oracle_map oracle;
  for (std::uint64_t key : random_keys(3000, 100'000, random)) {
    tree.insert(key, value_for(key));
    oracle.emplace(key, value_for(key));
  }
  std::vector<std::uint64_t> order;
  for (const auto& entry : oracle) order.push_back(entry.first);
  std::shuffle(order.begin(), order.end(), random);
  for (std::size_t i = 0; i < order.size(); ++i) {
    ASSERT_TRUE(tree.erase(order[i]));
    if (i % 97 == 0) {
      ASSERT_NO_THROW(tree.check_invariants()) << "after " << i + 1 << " erases";
    }
  }
  EXPECT_EQ(tree.size(), 0u);
  EXPECT_EQ(tree.height(), 0u);
  tree.check_invariants();
  EXPECT_TRUE(tree.insert(5, 50));
  EXPECT_EQ(tree.find(5), 50u);
}

TYPED_TEST(BplusTree, SortedAndReverseSortedInserts) {
  for (bool reverse : {false, true}) {
    TypeParam tree(page_size::small_4k);
    oracle_map oracle;
    for (std::uint64_t i = 0; i < 5000; ++i) {
      const std::uint64_t key = reverse ? 5000 - i : i;
      tree.insert(key * 3, key);
      oracle.emplace(key * 3, key);
    }
    tree.check_invariants();
    std::mt19937_64 random(reverse);
    expect_lookups_agree(tree, oracle, lookup_mix(oracle, 200, 15'010, random), reverse ? "reverse" : "sorted");
    entries all;
    tree.for_each([&](auto key, auto value) { all.emplace_back(key, value); });
    EXPECT_EQ(all, entries(oracle.begin(), oracle.end()));
  }
}

TYPED_TEST(BplusTree, BulkLoadAtEveryFillThenUpdates) {
  std::size_t round = 0;  // picks the group size, cycling through all of them
  for (double fill : {0.5, 0.7, 1.0}) {
    for (std::size_t count : {std::size_t{1}, TypeParam::leaf_capacity, TypeParam::leaf_capacity + 1, std::size_t{5000},
                              std::size_t{70'000}}) {
      SCOPED_TRACE("fill " + std::to_string(fill) + " count " + std::to_string(count));
      std::mt19937_64 random(count);
      oracle_map oracle;
      while (oracle.size() < count) {
        const std::uint64_t key = random() % (count * 10);
        oracle.emplace(key, value_for(key));
      }
      TypeParam tree = bulk_tree<TypeParam>(oracle, fill);
      ASSERT_EQ(tree.size(), count);
      ASSERT_NO_THROW(tree.check_invariants());
      if (count >= 5000) {  // leaves hold about max(fill * capacity, the minimum) entries
        const double target = static_cast<double>(std::max<std::size_t>(
            static_cast<std::size_t>(fill * TypeParam::leaf_capacity), TypeParam::min_leaf_entries));
        EXPECT_GE(tree.describe_shape().leaf_fill, 0.95 * target / TypeParam::leaf_capacity);
      }
      expect_lookups_agree(tree, oracle, lookup_mix(oracle, 100, count * 10, random), "bulk", rotating_group(round++));
      if (count > 10'000) continue;  // updates on the big one are covered by the interleavings
      for (int op = 0; op < 3000; ++op) {
        const std::uint64_t key = random() % (count * 10);
        if (random() % 2 == 0) {
          ASSERT_EQ(tree.insert(key, key), oracle.emplace(key, key).second);
        } else {
          ASSERT_EQ(tree.erase(key), oracle.erase(key) == 1);
        }
      }
      ASSERT_NO_THROW(tree.check_invariants());
      expect_lookups_agree(tree, oracle, lookup_mix(oracle, 100, count * 10, random), "bulk then updates",
                           rotating_group(round));
      expect_multi_scan_agrees(tree, oracle, random_requests<TypeParam>(oracle, 8, count * 10, random),
                               tree_techniques, "bulk then updates", rotating_group(round++));
    }
  }
}

TYPED_TEST(BplusTree, FreedNodesAreReused) {
  // Erasing every key frees every node; inserting the same keys again builds the same tree from
  // the free list, without growing the arena.
  TypeParam tree(page_size::small_4k);
  for (int round = 0; round < 3; ++round) {
    for (std::uint64_t key = 0; key < 20'000; ++key) ASSERT_TRUE(tree.insert(key * 7919 % 20'000, key));
    static std::size_t bytes_after_first_round = 0;
    if (round == 0) bytes_after_first_round = tree.memory_bytes();
    EXPECT_EQ(tree.memory_bytes(), bytes_after_first_round) << "round " << round;
    tree.check_invariants();
    for (std::uint64_t key = 0; key < 20'000; ++key) ASSERT_TRUE(tree.erase(key));
    EXPECT_EQ(tree.height(), 0u);
  }
}

TYPED_TEST(BplusTree, RejectsBadInput) {
  const std::vector<std::uint64_t> values = {1, 2, 3};
  EXPECT_THROW(TypeParam(std::vector<std::uint64_t>{3, 2, 1}, values), std::invalid_argument);
  EXPECT_THROW(TypeParam(std::vector<std::uint64_t>{1, 1, 2}, values), std::invalid_argument);
  EXPECT_THROW(TypeParam(std::vector<std::uint64_t>{1, 2}, values), std::invalid_argument);
  EXPECT_THROW(TypeParam(std::vector<std::uint64_t>{1, 2, 3}, values, page_size::small_4k, 0.3), std::invalid_argument);
  const TypeParam tree(std::vector<std::uint64_t>{1, 2, 3}, values, page_size::small_4k);
  const std::vector<std::uint64_t> keys = {1, 2};
  std::vector<std::optional<std::uint64_t>> output(2), short_output(1);
  EXPECT_THROW(tree.multi_find(keys, std::span(output), technique::gp, 4), std::invalid_argument);
  EXPECT_THROW(tree.multi_find(keys, std::span(output), technique::amac, 4), std::invalid_argument);
  EXPECT_THROW(tree.multi_find(keys, std::span(short_output), technique::coro, 4), std::invalid_argument);
  EXPECT_THROW(tree.multi_find(keys, std::span(output), technique::coro_nested, 0), std::invalid_argument);
}

// A visitor with state of its own: an lvalue keeps what the scan did to it, an rvalue (moved
// into the scan) still sees every entry; the plain scan and the scan on a fiber alike.
struct counting_visitor {
  std::size_t calls = 0;
  std::uint64_t sum = 0;
  std::vector<std::uint64_t>* seen = nullptr;
  void operator()(std::uint64_t key, std::uint64_t value) {
    ++calls;
    sum += value;
    if (seen != nullptr) seen->push_back(key);
  }
};

TYPED_TEST(BplusTree, ScansCallLvalueVisitorsInPlaceAndRvalueVisitorsOnEveryEntry) {
  TypeParam tree(page_size::small_4k);
  const std::uint64_t count = 3 * TypeParam::leaf_capacity + 7;  // several leaves
  for (std::uint64_t key = 0; key < count; ++key) tree.insert(2 * key, key);
  const std::uint64_t start = 9;  // absent: the scan starts at key 10 (value 5)
  const std::size_t limit = 2 * TypeParam::leaf_capacity + 1;
  const std::uint64_t expected_sum = (5 + 5 + limit - 1) * limit / 2;

  counting_visitor in_place;
  EXPECT_EQ(tree.scan(start, limit, in_place), limit);
  EXPECT_EQ(in_place.calls, limit);
  EXPECT_EQ(in_place.sum, expected_sum);

  std::vector<std::uint64_t> keys;
  EXPECT_EQ(tree.scan(start, limit, counting_visitor{0, 0, &keys}), limit);
  ASSERT_EQ(keys.size(), limit);
  for (std::size_t i = 0; i < limit; ++i) ASSERT_EQ(keys[i], 10 + 2 * i) << i;

  // A limit beyond any count (for_each's and many callers' "to the end") visits the rest.
  constexpr std::size_t unlimited = std::numeric_limits<std::size_t>::max();
  counting_visitor to_end;
  EXPECT_EQ(tree.scan(start, unlimited, to_end), count - 5);
  EXPECT_EQ(to_end.calls, count - 5);
  std::size_t coroutine_calls = 0;
  auto walk_to_end = tree.template scan_coroutine<sequential>(start, unlimited, [&](std::uint64_t, std::uint64_t) { ++coroutine_calls; });
  while (!walk_to_end.done()) walk_to_end.resume();
  EXPECT_EQ(walk_to_end.take_result(), count - 5);
  EXPECT_EQ(coroutine_calls, count - 5);

  counting_visitor on_fiber;
  std::vector<std::uint64_t> fiber_keys;
  fiber<std::size_t> walk([&](fiber_context& context) {
    const std::size_t first = tree.scan_on_fiber(context, start, limit, on_fiber);
    return first + tree.scan_on_fiber(context, 2 * count - 2, unlimited, counting_visitor{0, 0, &fiber_keys});
  });
  while (!walk.done()) walk.resume();
  EXPECT_EQ(walk.take_result(), limit + 1);
  EXPECT_EQ(on_fiber.calls, limit);
  EXPECT_EQ(on_fiber.sum, expected_sum);
  EXPECT_EQ(fiber_keys, std::vector<std::uint64_t>{2 * count - 2});
}

TYPED_TEST(BplusTree, PageSizedNodesArePageAligned) {
  if constexpr (TypeParam::node_bytes == 4096) {
    TypeParam tree(page_size::small_4k);
    for (std::uint64_t key = 0; key < 2000; ++key) tree.insert(key, key);
    EXPECT_EQ(alignof(typename TypeParam::leaf_node), 4096u);
    EXPECT_EQ(sizeof(typename TypeParam::inner_node), 4096u);
    EXPECT_EQ(tree.height(), 2u);
  }
}

}  // namespace
}  // namespace braid::testing
