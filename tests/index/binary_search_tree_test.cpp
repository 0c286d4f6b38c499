// binary_search_tree: every lookup technique against std::map (hits, misses, repeats, empty
// tree, empty input, group sizes 1..64 and larger than the input), the bulk constructor against
// one-by-one inserts (same shape, node for node), random interleavings of inserts, erases,
// lookups and scans with the invariant check after every batch, and the error cases.
#include "braid/index/binary_search_tree.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "braid/core/scheduler.hpp"
#include "index/ordered_index_test_support.hpp"

namespace braid::testing {
namespace {

using tree = binary_search_tree<std::uint64_t, std::uint64_t>;

const std::vector<technique> all_techniques = {technique::naive,        technique::gp,          technique::amac,
                                               technique::coro,         technique::fiber,       technique::adaptive,
                                               technique::imlp_dynamic, technique::imlp_static, technique::imlp_hybrid};

// `seed`: what the shared checks give a build (a skip list draws its towers from it); a tree
// has no random parts.
tree build_tree(const std::vector<std::uint64_t>& keys, oracle_map& oracle, std::uint64_t /*seed*/ = 0) {
  const std::vector<std::uint64_t> values = insertion_values(keys, oracle);
  return tree(keys, values, page_size::small_4k);
}

TEST(BinarySearchTree, EmptyTreeReportsEveryKeyAbsent) {
  const tree empty;
  const oracle_map oracle;
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_FALSE(empty.find(1).has_value());
  EXPECT_EQ(empty.scan(0, 10, [](auto, auto) {}), 0u);
  empty.check_invariants();
  const std::vector<std::uint64_t> keys = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ~std::uint64_t{0}};
  expect_multi_find_agrees(empty, oracle, keys, all_techniques, "empty tree");
  expect_multi_find_agrees(empty, oracle, std::span<const std::uint64_t>{}, all_techniques, "empty tree, no keys");
}

TEST(BinarySearchTree, EveryTechniqueAgreesWithStdMap) {
  expect_random_lookups_agree(all_techniques, build_tree, [](const tree& t, const std::vector<std::uint64_t>& keys) {
    for (std::uint64_t key : keys) ASSERT_EQ(t.find_branchy(key), t.find(key)) << "key " << key;
  });
}

TEST(BinarySearchTree, NonTemporalHintGivesTheSameResults) {
  std::mt19937_64 random(99);
  oracle_map oracle;
  const tree t = build_tree(random_keys(800, 5000, random), oracle);
  const auto keys = lookup_mix(oracle, 400, 5000, random);
  const auto expected = expected_lookups(oracle, keys);
  for (technique how : all_techniques) {
    std::vector<std::optional<std::uint64_t>> got(keys.size());
    t.multi_find<prefetch_hint::nta>(keys, std::span(got), how, 16);
    ASSERT_EQ(got, expected) << to_string(how);
  }
}

// The generated lookup under every schedule, layout and dispatch, against the plain lookup and
// the kernel's own plain routine, for groups 1 .. larger than the input and the 128-wide cap.
TEST(BinarySearchTree, GeneratedLookupAgreesInEveryLayoutAndDispatch) {
  using kernel = imlp_kernels::binary_search_tree_find<prefetch_hint::t0, tree::node, std::uint64_t, std::uint64_t>;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE(seed_label(seed));
    std::mt19937_64 random(seed);
    oracle_map oracle;
    const tree t = build_tree(random_keys(seed == 1 ? 0 : 50 + random() % 900, 4000, random), oracle);
    auto keys = lookup_mix(oracle, 300, 4000, random);
    keys.push_back(0);
    keys.push_back(~std::uint64_t{0});
    const auto expected = expected_lookups(oracle, keys);
    for (std::size_t group : {std::size_t{1}, std::size_t{3}, std::size_t{16}, std::size_t{17}, std::size_t{48},
                              std::size_t{200}, keys.size() + 5}) {
      for (imlp_schedule schedule : {imlp_schedule::dynamic, imlp_schedule::static_batch, imlp_schedule::hybrid}) {
        SCOPED_TRACE(std::string(to_string(schedule)) + " group " + std::to_string(group));
        std::vector<std::optional<std::uint64_t>> got(keys.size());
        t.find_imlp<prefetch_hint::t0, imlp_layout::soa, imlp_dispatch::switch_table>(keys, got, group, schedule);
        ASSERT_EQ(got, expected) << "soa switch";
        got.assign(keys.size(), std::nullopt);
        t.find_imlp<prefetch_hint::t0, imlp_layout::aos, imlp_dispatch::switch_table>(keys, got, group, schedule);
        ASSERT_EQ(got, expected) << "aos switch";
        got.assign(keys.size(), std::nullopt);
        t.find_imlp<prefetch_hint::t0, imlp_layout::aos, imlp_dispatch::computed_goto>(keys, got, group, schedule);
        ASSERT_EQ(got, expected) << "aos goto";
        got.assign(keys.size(), std::nullopt);
        t.find_imlp<prefetch_hint::nta, imlp_layout::soa, imlp_dispatch::computed_goto>(keys, got, group, schedule);
        ASSERT_EQ(got, expected) << "soa goto";
      }
    }
    const tree::node* root = nullptr;
    t.for_each_node_preorder([&](const tree::node& n, std::size_t depth) {
      if (depth == 1) root = &n;
    });
    for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(kernel::plain({root}, keys[i]), expected[i]) << keys[i];
  }
}

TEST(BinarySearchTree, BulkConstructorBuildsTheTreeOfOneByOneInserts) {
  expect_bulk_build_equals_inserts(
      700, 200, build_tree, [](std::uint64_t) { return tree(page_size::small_4k); },
      [](const tree& bulk, const tree& inserted, const oracle_map&) {
        ASSERT_EQ(bulk.size(), inserted.size());
        std::vector<std::tuple<std::uint64_t, std::uint64_t, std::size_t>> bulk_shape, inserted_shape;
        bulk.for_each_node_preorder([&](const tree::node& n, std::size_t depth) {
          bulk_shape.emplace_back(n.key, n.value, depth);
        });
        inserted.for_each_node_preorder([&](const tree::node& n, std::size_t depth) {
          inserted_shape.emplace_back(n.key, n.value, depth);
        });
        ASSERT_EQ(bulk_shape, inserted_shape);
        EXPECT_EQ(bulk.depths().max_depth, inserted.depths().max_depth);
      });
}

TEST(BinarySearchTree, SortedInsertsDegenerateIntoAListAndStillWork) {
  std::vector<std::uint64_t> keys(2000);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = 10 * i;
  oracle_map oracle;
  const tree t = build_tree(keys, oracle);
  EXPECT_EQ(t.depths().max_depth, keys.size());
  std::mt19937_64 random(5);
  expect_multi_find_agrees(t, oracle, lookup_mix(oracle, 200, 20'000, random), all_techniques, "list-shaped tree");
}

TEST(BinarySearchTree, RandomInterleavingsOfMutationsLookupsAndScans) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    SCOPED_TRACE(seed_label(seed));
    std::mt19937_64 random(seed);
    const std::uint64_t key_range = 400 + 200 * seed;
    tree t(page_size::small_4k);
    oracle_map oracle;
    for (int batch = 0; batch < 25; ++batch) {
      const int operations = 1 + static_cast<int>(random() % 120);
      const unsigned insert_share = batch < 10 ? 70 : 40;  // grow first, then churn
      apply_random_writes(t, oracle, operations, insert_share, key_range, random);
      if (::testing::Test::HasFatalFailure()) return;
      ASSERT_EQ(t.size(), oracle.size());
      t.check_invariants();
      const auto keys = lookup_mix(oracle, 60, key_range, random);
      expect_multi_find_agrees(t, oracle, keys, all_techniques, "batch " + std::to_string(batch),
                               rotating_group(static_cast<std::size_t>(batch)));
      for (int scan = 0; scan < 5; ++scan) {
        const std::uint64_t start = random() % (key_range + 10);
        const std::size_t limit = random() % 3 == 0 ? oracle.size() + 5 : random() % 20;
        std::vector<std::pair<std::uint64_t, std::uint64_t>> got;
        const std::size_t visited = t.scan(start, limit, [&](auto key, auto value) { got.emplace_back(key, value); });
        ASSERT_EQ(got, expected_scan(oracle, start, limit)) << "scan from " << start << " limit " << limit;
        ASSERT_EQ(visited, got.size());
      }
    }
  }
}

TEST(BinarySearchTree, ScansAtTheEdges) {
  oracle_map oracle;
  const tree t = build_tree({50, 10, 90, 30, 70}, oracle);
  auto scan = [&](std::uint64_t start, std::size_t limit) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> got;
    t.scan(start, limit, [&](auto key, auto value) { got.emplace_back(key, value); });
    return got;
  };
  for (std::uint64_t start : {0, 10, 11, 89, 90, 91, 1000}) {
    for (std::size_t limit : {0, 1, 2, 5, 6, 100}) {
      ASSERT_EQ(scan(start, limit), expected_scan(oracle, start, limit)) << start << " " << limit;
    }
  }
  std::vector<std::uint64_t> in_order;
  t.for_each([&](auto key, auto) { in_order.push_back(key); });
  EXPECT_EQ(in_order, (std::vector<std::uint64_t>{10, 30, 50, 70, 90}));
}

TEST(BinarySearchTree, ErasedNodesAreReused) {
  tree t(page_size::small_4k);
  std::size_t bytes = 0;
  ASSERT_NO_FATAL_FAILURE(churn_even_keys(t, 10, bytes));
  EXPECT_EQ(t.memory_bytes(), bytes);
  t.check_invariants();
}

TEST(BinarySearchTree, RejectsBadArguments) {
  oracle_map oracle;
  expect_bad_arguments_rejected(build_tree({1, 2, 3}, oracle), all_techniques);
}

TEST(BinarySearchTree, MovedFromTreeIsEmpty) {
  oracle_map oracle;
  tree source = build_tree({5, 3, 8}, oracle);
  tree target = std::move(source);
  EXPECT_EQ(target.size(), 3u);
  EXPECT_EQ(source.size(), 0u);  // NOLINT(bugprone-use-after-move): the documented state
  EXPECT_FALSE(source.find(5).has_value());
  EXPECT_EQ(target.find(5), value_for(5));
}

}  // namespace
}  // namespace braid::testing
