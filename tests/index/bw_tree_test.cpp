// The Bw-tree on one thread, against std::map: upserts, erases and every get technique (plain,
// coroutine, group prefetching, AMAC) with group sizes {1, 2, 3, 7, 16, 64}, on trees with tiny
// nodes (deep trees, constant consolidations and splits) and on the default configuration;
// batches that mix writes into the gets; scans; reclamation. Seeds are printed on failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "braid/core/scheduler.hpp"
#include "braid/index/bw_tree.hpp"

namespace braid::testing {
namespace {

using model_type = std::map<std::uint64_t, std::uint64_t>;
using tiny_tree = bw_tree<std::uint64_t, std::uint64_t, 4, 4, 2>;
using small_tree = bw_tree<std::uint64_t, std::uint64_t, 8, 6, 3>;
using default_tree = bw_tree<>;

constexpr std::size_t group_sizes[] = {1, 2, 3, 7, 16, 64};
constexpr technique all_techniques[] = {technique::naive, technique::gp, technique::amac, technique::coro, technique::adaptive};

std::optional<std::uint64_t> expected_value(const model_type& model, std::uint64_t key) {
  const auto found = model.find(key);
  if (found == model.end()) return std::nullopt;
  return found->second;
}

template <class Tree>
void expect_same_contents(const Tree& tree, const model_type& model) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> scanned;
  tree.scan(0, [&](std::uint64_t key, std::uint64_t value) { scanned.emplace_back(key, value); });
  ASSERT_EQ(scanned.size(), model.size());
  auto expected = model.begin();
  for (std::size_t index = 0; index < scanned.size(); ++index, ++expected) {
    ASSERT_EQ(scanned[index].first, expected->first) << "position " << index;
    ASSERT_EQ(scanned[index].second, expected->second) << "position " << index;
  }
}

template <class Tree>
void random_operations(std::uint64_t seed, std::size_t operations, std::uint64_t key_range, Tree& tree,
                       model_type& model) {
  std::mt19937_64 random(seed);
  for (std::size_t step = 0; step < operations; ++step) {
    const std::uint64_t key = random() % key_range;
    switch (random() % 6) {
      case 0:
      case 1:
      case 2: {
        const std::uint64_t value = random();
        const bool absent = !model.contains(key);
        if (step % 3 == 0) {
          ASSERT_EQ(tree.insert_or_assign(key, value), absent) << "insert_or_assign, step " << step;
          model[key] = value;
        } else if (step % 3 == 1) {
          tree.upsert(key, value);  // blind
          model[key] = value;
        } else {
          ASSERT_EQ(tree.insert(key, value), absent) << "insert, step " << step;
          model.try_emplace(key, value);
        }
        break;
      }
      case 3:
        ASSERT_EQ(tree.erase(key), model.erase(key) == 1) << "erase, step " << step;
        break;
      case 4: ASSERT_EQ(tree.find(key), expected_value(model, key)) << "find, step " << step; break;
      default: {
        auto lookup = tree.template lookup<interleaved>(key);
        while (!lookup.done()) lookup.resume();
        ASSERT_EQ(lookup.take_result(), expected_value(model, key)) << "lookup<interleaved>, step " << step;
      }
    }
  }
}

template <class Tree>
void random_operations_match(std::uint64_t first_seed, std::size_t operations, std::uint64_t key_range) {
  for (std::uint64_t seed = first_seed; seed < first_seed + 4; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Tree tree;
    model_type model;
    random_operations(seed, operations, key_range, tree, model);
    if (::testing::Test::HasFatalFailure()) return;
    expect_same_contents(tree, model);
  }
}

TEST(BwTree, TinyNodesRandomOperationsMatchStdMap) { random_operations_match<tiny_tree>(1, 20'000, 2'000); }
TEST(BwTree, SmallNodesRandomOperationsMatchStdMap) { random_operations_match<small_tree>(11, 40'000, 50'000); }
TEST(BwTree, DefaultNodesRandomOperationsMatchStdMap) { random_operations_match<default_tree>(21, 60'000, 40'000); }

template <class Tree>
void every_technique_matches(std::uint64_t seed) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  Tree tree;
  model_type model;
  random_operations(seed, 30'000, 20'000, tree, model);
  std::mt19937_64 random(seed + 1000);
  std::vector<std::uint64_t> keys;  // hits, misses and duplicates
  for (int index = 0; index < 4'000; ++index) keys.push_back(random() % 25'000);
  for (int index = 0; index < 200; ++index) keys.push_back(keys[random() % keys.size()]);
  for (const technique how : all_techniques) {
    for (const std::size_t group : group_sizes) {
      for (const std::size_t count : {keys.size(), std::size_t{0}, std::size_t{1}, group / 2 + 1}) {
        SCOPED_TRACE(std::string(to_string(how)) + " group " + std::to_string(group) + " count " + std::to_string(count));
        std::vector<std::optional<std::uint64_t>> results(count, 98765u);
        tree.multi_find(std::span(keys.data(), count), results, how, group);
        for (std::size_t index = 0; index < count; ++index) {
          ASSERT_EQ(results[index], expected_value(model, keys[index])) << "key " << keys[index];
        }
      }
    }
  }
}

TEST(BwTree, EveryTechniqueAndGroupSizeMatchesFindOnTinyNodes) { every_technique_matches<tiny_tree>(31); }
TEST(BwTree, EveryTechniqueAndGroupSizeMatchesFindOnDefaultNodes) { every_technique_matches<default_tree>(32); }

TEST(BwTree, OtherPrefetchHintsGiveTheSameResults) {
  small_tree tree;
  model_type model;
  random_operations(41, 20'000, 10'000, tree, model);
  std::vector<std::uint64_t> keys;
  for (std::uint64_t key = 0; key < 12'000; key += 3) keys.push_back(key);
  struct batch {
    const std::vector<std::uint64_t>& keys;
    std::vector<std::optional<std::uint64_t>> out;
    std::size_t size() const { return keys.size(); }
    static bool is_get(std::size_t) { return true; }
    std::uint64_t key(std::size_t index) const { return keys[index]; }
    static void apply(std::size_t) {}
    void deliver(std::size_t index, std::optional<std::uint64_t> result) { out[index] = result; }
  };
  batch gp{keys, std::vector<std::optional<std::uint64_t>>(keys.size())};
  batch amac{keys, std::vector<std::optional<std::uint64_t>>(keys.size())};
  tree.find_group_prefetching<prefetch_hint::nta>(gp, 5);
  tree.find_amac<prefetch_hint::t1>(amac, 9);
  const auto coro = run(interleaved_scheduler{6}, keys,
                        [&](std::uint64_t key) { return tree.lookup<interleaved_with<prefetch_hint::nta>>(key); });
  for (std::size_t index = 0; index < keys.size(); ++index) {
    ASSERT_EQ(gp.out[index], expected_value(model, keys[index]));
    ASSERT_EQ(amac.out[index], expected_value(model, keys[index]));
    ASSERT_EQ(coro[index], expected_value(model, keys[index]));
  }
}

// A batch that mixes writes into the gets, as the YCSB experiments do.
struct mixed_batch {
  struct operation {
    bool get;
    std::uint64_t key;
    std::uint64_t value;
  };
  small_tree& tree;
  std::vector<operation> operations;
  std::vector<std::optional<std::uint64_t>> out;
  std::vector<bool> delivered;

  std::size_t size() const { return operations.size(); }
  bool is_get(std::size_t index) const { return operations[index].get; }
  std::uint64_t key(std::size_t index) const { return operations[index].key; }
  void apply(std::size_t index) { tree.insert_or_assign(operations[index].key, operations[index].value); }
  void deliver(std::size_t index, std::optional<std::uint64_t> result) {
    EXPECT_FALSE(delivered[index]) << "delivered twice";
    delivered[index] = true;
    out[index] = result;
  }
};

TEST(BwTree, HandWrittenTechniquesApplyWritesInInputOrder) {
  for (const bool amac : {false, true}) {
    for (const std::size_t group : group_sizes) {
      SCOPED_TRACE(std::string(amac ? "amac" : "gp") + " group " + std::to_string(group));
      small_tree tree;
      model_type model;
      random_operations(51, 10'000, 3'000, tree, model);
      std::mt19937_64 random(52 + group);
      mixed_batch batch{tree, {}, {}, {}};
      for (int index = 0; index < 5'000; ++index) {
        batch.operations.push_back({random() % 10 != 0, random() % 3'000, random()});
      }
      batch.out.assign(batch.operations.size(), std::nullopt);
      batch.delivered.assign(batch.operations.size(), false);
      if (amac) {
        tree.find_amac(batch, group);
      } else {
        tree.find_group_prefetching(batch, group);
      }
      // A get sees every write before it in the input (applied before it started), and maybe
      // writes after it that were applied while it was in flight.
      model_type now = model;
      for (std::size_t index = 0; index < batch.operations.size(); ++index) {
        const auto& operation = batch.operations[index];
        if (!operation.get) {
          now[operation.key] = operation.value;
          continue;
        }
        ASSERT_TRUE(batch.delivered[index]);
        if (batch.out[index] == expected_value(now, operation.key)) continue;
        bool written_later = false;
        for (std::size_t later = index + 1; later < batch.operations.size() && !written_later; ++later) {
          written_later = !batch.operations[later].get && batch.operations[later].key == operation.key &&
                          batch.out[index] == batch.operations[later].value;
        }
        ASSERT_TRUE(written_later) << "get " << index << " returned a value from no write at or around it";
      }
      expect_same_contents(tree, now);
    }
  }
}

// Fills a small-node tree and its model with 20,000 random operations on keys below 100,000
// (seed `seed`), then calls probe(tree, model, index, random) for 200 probe indexes, `random`
// seeded with seed + 1; scans may start anywhere below 110,000.
template <class Probe>
void scan_probes(std::uint64_t seed, Probe probe) {
  small_tree tree;
  model_type model;
  random_operations(seed, 20'000, 100'000, tree, model);
  std::mt19937_64 random(seed + 1);
  for (int index = 0; index < 200 && !::testing::Test::HasFatalFailure(); ++index) probe(tree, model, index, random);
}

TEST(BwTree, ScanFromAnyKey) {
  scan_probes(61, [](const small_tree& tree, const model_type& model, int, std::mt19937_64& random) {
    const std::uint64_t from = random() % 110'000;
    std::size_t limit = random() % 50;
    std::vector<std::uint64_t> seen;
    tree.scan(from, [&](std::uint64_t key, std::uint64_t value) {
      EXPECT_EQ(value, expected_value(model, key));
      seen.push_back(key);
      return seen.size() < limit;
    });
    auto expected = model.lower_bound(from);
    for (const std::uint64_t key : seen) {
      ASSERT_NE(expected, model.end());
      ASSERT_EQ(key, expected->first);
      ++expected;
    }
    if (limit == 0) limit = 1;  // the visitor is called at least once when a key exists
    ASSERT_EQ(seen.size(), std::min<std::size_t>(limit, static_cast<std::size_t>(std::distance(model.lower_bound(from), model.end()))));
  });
}

TEST(BwTree, ProtocolScanVisitsUpToTheLimit) {
  scan_probes(63, [](const small_tree& tree, const model_type& model, int probe, std::mt19937_64& random) {
    const std::uint64_t start = probe == 0 ? 0 : random() % 110'000;
    const std::size_t limit = probe == 1 ? 0 : probe == 2 ? model.size() + 5 : random() % 70;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> seen;
    const std::size_t visited = tree.scan(start, limit, [&](std::uint64_t key, std::uint64_t value) { seen.emplace_back(key, value); });
    std::vector<std::pair<std::uint64_t, std::uint64_t>> expected;
    for (auto at = model.lower_bound(start); at != model.end() && expected.size() < limit; ++at) expected.emplace_back(*at);
    ASSERT_EQ(seen, expected) << "start " << start << " limit " << limit;
    ASSERT_EQ(visited, expected.size());
  });
}

TEST(BwTree, ExtremeKeys) {
  tiny_tree tree;
  constexpr std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  for (std::uint64_t key = 0; key < 200; ++key) {
    tree.insert_or_assign(key, key);
    tree.insert_or_assign(top - key, key);
  }
  EXPECT_EQ(tree.find(0), 0u);
  EXPECT_EQ(tree.find(top), 0u);
  EXPECT_EQ(tree.find(top - 199), 199u);
  EXPECT_EQ(tree.find(top / 2), std::nullopt);
  tree.erase(top);
  EXPECT_EQ(tree.find(top), std::nullopt);
  std::size_t count = tree.scan(top - 10, [](std::uint64_t, std::uint64_t) {});
  EXPECT_EQ(count, 10u);
}

TEST(BwTree, TreeGrowsSplitsAndReclaims) {
  small_tree tree;
  for (std::uint64_t key = 0; key < 20'000; ++key) tree.insert_or_assign((key * 2654435761u) % 1'000'003, key);
  const auto statistics = tree.statistics();
  EXPECT_GE(tree.height(), 4u);
  EXPECT_GT(statistics.splits, 1'000u);
  EXPECT_GE(statistics.root_splits, 3u);
  EXPECT_GT(statistics.consolidations, statistics.splits);
  for (int round = 0; round < 4; ++round) tree.collect_garbage();
  const auto reclamation = tree.reclamation_statistics();
  EXPECT_GT(reclamation.retired, statistics.consolidations) << "every consolidation retires its chain";
  EXPECT_EQ(reclamation.reclaimed, reclamation.retired) << "nothing holds retired records once no thread is pinned";
}

TEST(BwTree, MultiFindRejectsBadArguments) {
  default_tree tree;
  std::vector<std::uint64_t> keys = {1, 2};
  std::vector<std::optional<std::uint64_t>> too_short(1);
  EXPECT_THROW(tree.multi_find(keys, too_short, technique::amac, 4), std::invalid_argument);
  std::vector<std::optional<std::uint64_t>> results(2);
  EXPECT_THROW(tree.multi_find(keys, results, technique::gp, 0), std::invalid_argument);
  EXPECT_THROW(tree.multi_find(keys, results, technique::fiber, 4), std::invalid_argument);
}

TEST(BwTree, NarrowKeysAndValues) {
  bw_tree<std::uint32_t, std::uint16_t, 5, 5, 2> tree;
  std::map<std::uint32_t, std::uint16_t> model;
  std::mt19937 random(71);
  for (int step = 0; step < 5'000; ++step) {
    const std::uint32_t key = random() % 700;
    const auto value = static_cast<std::uint16_t>(random());
    tree.insert_or_assign(key, value);
    model[key] = value;
  }
  std::vector<std::uint32_t> keys;
  for (std::uint32_t key = 0; key < 800; ++key) keys.push_back(key);
  std::vector<std::optional<std::uint16_t>> results(keys.size());
  tree.multi_find(keys, results, technique::amac, 7);
  for (std::uint32_t key = 0; key < 800; ++key) {
    const auto found = model.find(key);
    ASSERT_EQ(results[key], found == model.end() ? std::nullopt : std::optional<std::uint16_t>(found->second));
  }
}

}  // namespace
}  // namespace braid::testing
