// The Masstree-style index on one thread, against std::map: every operation and every get
// technique (plain, flat coroutine, nested tasks) with group sizes {1, 2, 3, 7, 16, 64}, on
// variable-length keys that exercise layers, suffixes, slice boundaries and splits; ordered
// scans; the edge cases. Seeds are printed on failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "braid/core/scheduler.hpp"
#include "braid/index/masstree.hpp"
#include "index/masstree_test_support.hpp"

namespace braid::testing {
namespace {

using tree_type = masstree<std::uint64_t>;
using model_type = std::map<std::string, std::uint64_t>;

constexpr std::size_t group_sizes[] = {1, 2, 3, 7, 16, 64};

// A number as an 8-byte big-endian key: keys of one layer, in the numbers' order.
std::string eight_byte_key(std::uint64_t number) {
  std::string key(8, '\0');
  for (int byte = 0; byte < 8; ++byte) key[7 - byte] = static_cast<char>(number >> (8 * byte));
  return key;
}

// Runs an operation that must finish without suspending to its end.
template <class Operation>
auto run_to_end(Operation operation) {
  if constexpr (!Operation::starts_eagerly) operation.resume();
  while (!operation.done()) operation.resume();
  return operation.take_result();
}

void expect_same_contents(const tree_type& tree, const model_type& model) {
  std::vector<std::pair<std::string, std::uint64_t>> scanned;
  tree.scan("", [&](std::string_view key, std::uint64_t value) { scanned.emplace_back(std::string(key), value); });
  ASSERT_EQ(scanned.size(), model.size());
  auto expected = model.begin();
  for (std::size_t index = 0; index < scanned.size(); ++index, ++expected) {
    ASSERT_EQ(scanned[index].first, expected->first) << "key at position " << index;
    ASSERT_EQ(scanned[index].second, expected->second) << "value at position " << index;
  }
}

// Random puts, removes and gets through every form of each operation.
void random_operations(std::uint64_t seed, std::size_t operations, tree_type& tree, model_type& model) {
  std::mt19937_64 random(seed);
  for (std::size_t step = 0; step < operations; ++step) {
    const std::string key = masstree_test_key(random);
    const std::uint64_t value = random();
    const std::optional<std::uint64_t> before = expected_value(model, key);
    switch (random() % 9) {
      case 0: ASSERT_EQ(tree.put(key, value), before) << "put, step " << step; model[key] = value; break;
      case 1:
        ASSERT_EQ(run_to_end(tree.put_flat<interleaved>(key, value)), before) << "put_flat, step " << step;
        model[key] = value;
        break;
      case 2:
        ASSERT_EQ(run_to_end(tree.put_nested<interleaved>(key, value)), before) << "put_nested, step " << step;
        model[key] = value;
        break;
      case 3: ASSERT_EQ(tree.remove(key), before) << "remove, step " << step; model.erase(key); break;
      case 4:
        ASSERT_EQ(run_to_end(tree.remove_flat<interleaved>(key)), before) << "remove_flat, step " << step;
        model.erase(key);
        break;
      case 5: ASSERT_EQ(tree.find(key), before) << "find, step " << step; break;
      case 6: ASSERT_EQ(run_to_end(tree.lookup<interleaved>(key)), before) << "lookup, step " << step; break;
      case 7: ASSERT_EQ(run_to_end(tree.lookup_nested<interleaved>(key)), before) << "lookup_nested, step " << step; break;
      default:
        ASSERT_EQ(run_to_end(tree.lookup<sequential_without_node_prefetch>(key)), before) << "unprefetched, step " << step;
        break;
    }
  }
}

// For every seed from `first` to `last`: a tree and its model after `operations` random
// operations with that seed, handed to check(tree, model, seed).
template <class Check>
void for_each_random_tree(std::uint64_t first, std::uint64_t last, std::size_t operations, Check check) {
  for (std::uint64_t seed = first; seed <= last && !::testing::Test::HasFatalFailure(); ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    tree_type tree;
    model_type model;
    random_operations(seed, operations, tree, model);
    if (!::testing::Test::HasFatalFailure()) check(tree, model, seed);
  }
}

TEST(Masstree, RandomOperationsMatchStdMap) {
  for_each_random_tree(1, 6, 30'000, [](const tree_type& tree, const model_type& model, std::uint64_t) {
    expect_same_contents(tree, model);
  });
}

TEST(Masstree, EveryGetTechniqueAndGroupSizeMatchesFind) {
  for (std::uint64_t seed = 11; seed <= 13; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    tree_type tree;
    model_type model;
    std::mt19937_64 random(seed);
    for (int step = 0; step < 6'000; ++step) {
      const std::string key = masstree_test_key(random);
      tree.put(key, random());
    }
    for (const auto& [key, value] : tree.scan("", 1'000'000)) model[key] = value;
    // Hits, misses (fresh random keys, half of which exist) and duplicates.
    std::vector<std::string> storage;
    for (int step = 0; step < 3'000; ++step) storage.push_back(masstree_test_key(random));
    for (int step = 0; step < 200; ++step) storage.push_back(storage[random() % storage.size()]);
    std::vector<std::string_view> keys(storage.begin(), storage.end());
    for (const technique how : {technique::naive, technique::coro_nested, technique::coro, technique::adaptive}) {
      for (const std::size_t group : group_sizes) {
        for (const std::size_t count : {keys.size(), std::size_t{0}, std::size_t{1}, group / 2 + 1}) {
          SCOPED_TRACE(std::string(to_string(how)) + " group " + std::to_string(group) + " count " + std::to_string(count));
          const std::span<const std::string_view> input(keys.data(), count);
          std::vector<std::optional<std::uint64_t>> results(count, 12345u);
          tree.multi_find(input, results, how, group);
          for (std::size_t index = 0; index < count; ++index) {
            ASSERT_EQ(results[index], expected_value(model, storage[index])) << "key " << index;
          }
        }
      }
    }
  }
}

TEST(Masstree, NonDefaultPrefetchHintsGiveTheSameResults) {
  tree_type tree;
  model_type model;
  random_operations(21, 5'000, tree, model);
  std::mt19937_64 random(22);
  std::vector<std::string> storage;
  for (int step = 0; step < 1'000; ++step) storage.push_back(masstree_test_key(random));
  const auto nta = run(interleaved_scheduler{8}, storage,
                       [&](const std::string& key) { return tree.lookup<interleaved_with<prefetch_hint::nta>>(key); });
  const auto t1 = run(interleaved_scheduler{8}, storage,
                      [&](const std::string& key) { return tree.lookup_nested<interleaved_with<prefetch_hint::t1>>(key); });
  for (std::size_t index = 0; index < storage.size(); ++index) {
    ASSERT_EQ(nta[index], expected_value(model, storage[index]));
    ASSERT_EQ(t1[index], expected_value(model, storage[index]));
  }
}

TEST(Masstree, InterleavedWritesOfDistinctKeys) {
  // Writes suspend only in their descent, so many can be in flight on one thread.
  for (const std::size_t group : group_sizes) {
    SCOPED_TRACE("group " + std::to_string(group));
    tree_type tree;
    model_type model;
    std::mt19937_64 random(group);
    std::vector<std::string> keys;
    for (int step = 0; step < 4'000; ++step) {
      std::string key = masstree_test_key(random);
      if (!model.contains(key)) {
        model[key] = model.size();
        keys.push_back(key);
      }
    }
    const auto inserted = run(interleaved_scheduler{group}, keys, [&](const std::string& key) {
      return tree.put_flat<interleaved>(key, model[key]);
    });
    for (const auto& previous : inserted) ASSERT_EQ(previous, std::nullopt);
    const auto updated = run(interleaved_scheduler{group}, keys, [&](const std::string& key) {
      return tree.put_nested<interleaved>(key, model[key] + 1);
    });
    for (std::size_t index = 0; index < keys.size(); ++index) ASSERT_EQ(updated[index], model[keys[index]]);
    for (auto& [key, value] : model) ++value;
    expect_same_contents(tree, model);
    std::vector<std::string> doomed(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(keys.size() / 2));
    const auto removed = run(interleaved_scheduler{group}, doomed,
                             [&](const std::string& key) { return tree.remove_flat<interleaved>(key); });
    for (std::size_t index = 0; index < doomed.size(); ++index) {
      ASSERT_EQ(removed[index], model[doomed[index]]);
      model.erase(doomed[index]);
    }
    expect_same_contents(tree, model);
  }
}

TEST(Masstree, ScanFromAnyKeyMatchesLowerBound) {
  for_each_random_tree(31, 33, 8'000, [](const tree_type& tree, const model_type& model, std::uint64_t seed) {
    std::mt19937_64 random(seed * 7);
    for (int probe = 0; probe < 300; ++probe) {
      const std::string from = masstree_test_key(random);
      const std::size_t limit = random() % 40;
      const auto scanned = tree.scan(from, limit);
      auto expected = model.lower_bound(from);
      std::size_t index = 0;
      for (; index < limit && expected != model.end(); ++index, ++expected) {
        ASSERT_LT(index, scanned.size()) << "scan from a key of " << from.size() << " bytes ended early";
        ASSERT_EQ(scanned[index].first, expected->first);
        ASSERT_EQ(scanned[index].second, expected->second);
      }
      ASSERT_EQ(scanned.size(), index);
    }
  });
}

TEST(Masstree, ScanVisitorCanStopAndCounts) {
  tree_type tree;
  for (int index = 0; index < 500; ++index) tree.put("k" + std::to_string(1000 + index), static_cast<std::uint64_t>(index));
  std::size_t seen = 0;
  const std::size_t visited = tree.scan("k1100", [&](std::string_view, std::uint64_t) { return ++seen < 10; });
  EXPECT_EQ(visited, 10u);
  EXPECT_EQ(seen, 10u);
  EXPECT_EQ(tree.scan("l", [](std::string_view, std::uint64_t) {}), 0u);
  EXPECT_EQ(tree.scan("", [](std::string_view, std::uint64_t) {}), 500u);
  tree_type empty;
  EXPECT_TRUE(empty.scan("", 10).empty());
}

TEST(Masstree, EdgeCaseKeys) {
  tree_type tree;
  const std::vector<std::string> keys = {
      std::string(),            std::string("\0", 1),      std::string("\0\0", 2),   std::string(8, '\0'),
      std::string(9, '\0'),     std::string(16, '\0'),     std::string(17, '\0'),    "a",
      std::string("a\0", 2),    std::string("a\0\0", 3),   "abcdefgh",               std::string("abcdefgh\0", 9),
      "abcdefghi",              "abcdefghabcdefgh",        "abcdefghabcdefghX",      std::string(8, '\xff'),
      std::string(9, '\xff'),   std::string(64, 'z'),      std::string(65, 'z'),
  };
  for (std::size_t index = 0; index < keys.size(); ++index) EXPECT_EQ(tree.put(keys[index], index), std::nullopt);
  for (std::size_t index = 0; index < keys.size(); ++index) EXPECT_EQ(tree.find(keys[index]), index) << index;
  EXPECT_EQ(tree.find(std::string(3, '\0')), std::nullopt);
  EXPECT_EQ(tree.find("abcdefg"), std::nullopt);
  EXPECT_EQ(tree.find("abcdefghab"), std::nullopt);
  model_type model;
  for (std::size_t index = 0; index < keys.size(); ++index) model[keys[index]] = index;
  expect_same_contents(tree, model);
  EXPECT_EQ(tree.remove(std::string()), 0u);
  EXPECT_EQ(tree.find(std::string()), std::nullopt);
  EXPECT_EQ(tree.find(std::string("\0", 1)), 1u) << "removing the empty key removed another";
}

TEST(Masstree, LongSharedPrefixesBuildChainsOfLayers) {
  tree_type tree;
  model_type model;
  const std::string shared(1'000, 'p');
  std::mt19937_64 random(41);
  for (int index = 0; index < 300; ++index) {
    std::string key = shared + std::to_string(random() % 1000);
    if (index % 3 == 0) key += std::string(20, 'q');
    tree.put(key, static_cast<std::uint64_t>(index));
    model[key] = static_cast<std::uint64_t>(index);
  }
  tree.put(shared, 7);  // the prefix itself, ending exactly at a slice boundary
  model[shared] = 7;
  for (const auto& [key, value] : model) ASSERT_EQ(tree.find(key), value);
  EXPECT_EQ(tree.find(shared.substr(0, 999)), std::nullopt);
  expect_same_contents(tree, model);
  for (auto it = model.begin(); it != model.end();) {
    ASSERT_EQ(tree.remove(it->first), it->second);
    it = model.erase(it);
    if (it != model.end()) ++it;
  }
  expect_same_contents(tree, model);
}

TEST(Masstree, HugeKeysUseLargeBlocks) {
  tree_type tree;
  const std::string first(10'000, 'h');
  std::string second = first;
  second.back() = 'i';
  tree.put(first, 1);
  EXPECT_EQ(tree.find(first), 1u);
  EXPECT_EQ(tree.find(second), std::nullopt);
  tree.put(second, 2);  // both long keys now go on in a chain of layers
  EXPECT_EQ(tree.find(first), 1u);
  EXPECT_EQ(tree.find(second), 2u);
  tree.put(std::string(5'000, 'g'), 3);
  EXPECT_EQ(tree.remove(std::string(5'000, 'g')), 3u);
}

TEST(Masstree, RemovedSuffixesAreReclaimed) {
  // Distinct first slices: every key is alone with its slice and keeps its rest in its border
  // node's suffix bag. A removed key's bytes go when the bag is next compacted (a bag without
  // room is replaced by one holding the live suffixes), and replaced bags are reclaimed.
  tree_type tree;
  auto key_of = [](int index, int round) { return std::to_string(10'000 + index) + "-suffix-of-round-" + std::to_string(round); };
  for (int index = 0; index < 1'000; ++index) tree.put(key_of(index, 0), 0);
  const std::size_t filled = tree.memory_bytes();
  const auto before = tree.reclamation_statistics();
  for (int round = 1; round <= 20; ++round) {
    for (int index = 0; index < 1'000; ++index) {
      ASSERT_EQ(tree.remove(key_of(index, round - 1)), static_cast<std::uint64_t>(round - 1));
      ASSERT_EQ(tree.put(key_of(index, round), static_cast<std::uint64_t>(round)), std::nullopt);
    }
  }
  for (int round = 0; round < 4; ++round) tree.collect_garbage();
  const auto after = tree.reclamation_statistics();
  EXPECT_GT(after.retired - before.retired, 1'000u) << "bags without room were replaced";
  EXPECT_EQ(after.reclaimed, after.retired) << "nothing holds them once no thread is pinned";
  EXPECT_LT(tree.memory_bytes(), filled + filled / 2) << "removed suffixes' bytes do not pile up";
  for (int index = 0; index < 1'000; ++index) {
    ASSERT_EQ(tree.find(key_of(index, 20)), 20u);
    ASSERT_EQ(tree.find(key_of(index, 19)), std::nullopt);
  }
}

TEST(Masstree, InteriorNodeChoosesTheChildOfEverySlice) {
  // child_for against upper_bound over the separators, for every separator count 0..15 and
  // slices at, just below and just above each separator and at both ends.
  using detail::masstree::interior_node;
  using detail::masstree::interior_width;
  std::mt19937_64 random(15);
  std::deque<detail::masstree::node_base> children;  // node_base is not movable
  for (int child = 0; child <= interior_width; ++child) children.emplace_back(0);
  for (int round = 0; round < 50; ++round) {
    for (int count = 0; count <= interior_width; ++count) {
      std::vector<std::uint64_t> separators(static_cast<std::size_t>(count));
      for (std::uint64_t& separator : separators) separator = round == 0 ? random() % 40 + 1 : random() | 1;
      std::sort(separators.begin(), separators.end());
      separators.erase(std::unique(separators.begin(), separators.end()), separators.end());
      interior_node node(0);
      for (std::size_t i = 0; i < separators.size(); ++i) node.slice[i].store(separators[i]);
      // Stale separators past the count must not be counted.
      for (std::size_t i = separators.size(); i < interior_width; ++i) node.slice[i].store(0);
      for (int child = 0; child <= interior_width; ++child) node.child[child].store(&children[child]);
      node.count.store(static_cast<std::uint8_t>(separators.size()));
      std::vector<std::uint64_t> probes = {0, 1, ~std::uint64_t{0}};
      for (const std::uint64_t separator : separators) {
        probes.insert(probes.end(), {separator - 1, separator, separator + 1});
      }
      for (const std::uint64_t probe : probes) {
        const auto expected = std::upper_bound(separators.begin(), separators.end(), probe) - separators.begin();
        ASSERT_EQ(node.child_for(probe), &children[static_cast<std::size_t>(expected)])
            << "count " << separators.size() << ", slice " << probe << ", round " << round;
      }
    }
  }
}

TEST(Masstree, ProbeStartedBeforeRootSplitsClimbsToTheNewRoot) {
  // A probe records the layer's root when it starts. Splits between its steps make that root
  // stale: a probe that has not read it yet climbs from it to the new root; one that has read
  // it and chose a child restarts from it when it sees the split, and climbs too. Both must
  // find what a fresh probe finds, in more steps than the fresh probe's depth (the climb).
  const auto drive = [](tree_type::point_probe& probe) {
    int steps = 0;
    while (probe.next() != nullptr) {
      probe.step();
      ++steps;
    }
    return steps;
  };
  for (const int steps_before : {0, 1}) {
    for (const std::uint64_t wanted : {std::uint64_t{0}, std::uint64_t{40}, std::uint64_t{41}, ~std::uint64_t{0}}) {
      tree_type tree;
      for (std::uint64_t number = 0; number < 60; number += 2) tree.insert_or_assign(eight_byte_key(number), number + 7);
      const std::string key = eight_byte_key(wanted);
      tree_type::point_probe stale(tree, key);
      for (int step = 0; step < steps_before; ++step) stale.step();
      for (std::uint64_t number = 1'000; number < 40'000; ++number) tree.insert_or_assign(eight_byte_key(number * 3), number);
      tree_type::point_probe fresh(tree, key);
      const int fresh_steps = drive(fresh);
      const int stale_steps = steps_before + drive(stale);
      const std::optional<std::uint64_t> expected =
          wanted < 60 && wanted % 2 == 0 ? std::optional<std::uint64_t>(wanted + 7) : std::nullopt;
      EXPECT_EQ(fresh.result(), expected) << "key " << wanted;
      EXPECT_EQ(stale.result(), expected) << "key " << wanted << ", steps before the splits " << steps_before;
      EXPECT_GT(stale_steps, fresh_steps) << "key " << wanted << ", steps before the splits " << steps_before;
    }
  }
}

TEST(Masstree, WriteSuspendedWhileItsLeafSplitsChangesTheRightNode) {
  // A write locks the border node its descent reached only if that node has not split since
  // the descent read its version; otherwise it follows the right links. The window is the
  // suffix fetch: a flat write of a key with a suffix reads the leaf's version, suspends to
  // fetch the leaf's bag, and only then locks. Here the leaf splits in that window and the
  // key's slice moves to the new right node: the write must change that node, not the old one.
  const auto key = [](std::uint64_t number) { return eight_byte_key(number) + "zz"; };
  for (const bool removing : {false, true}) {
    SCOPED_TRACE(removing ? "remove_flat" : "put_flat");
    tree_type tree;
    model_type model;
    for (std::uint64_t number = 1; number <= 11; ++number) {  // one border node, not full
      tree.insert_or_assign(key(number), number);
      model[key(number)] = number;
    }
    const std::string moving = key(11);  // outlives the operation, which keeps a view of it
    auto operation = removing ? tree.remove_flat<interleaved>(moving) : tree.put_flat<interleaved>(moving, 99);
    if constexpr (!decltype(operation)::starts_eagerly) operation.resume();
    ASSERT_FALSE(operation.done());  // at the root's fetch
    operation.resume();
    ASSERT_FALSE(operation.done());  // at the suffix bag's fetch, the leaf's version read
    for (const std::uint64_t number : {12, 0}) {  // the thirteenth key, at the front, splits the node in two
      tree.insert_or_assign(key(number), number);
      model[key(number)] = number;
    }
    EXPECT_EQ(run_to_end(std::move(operation)), std::optional<std::uint64_t>(11));
    if (removing) {
      model.erase(key(11));
    } else {
      model[key(11)] = 99;
    }
    EXPECT_EQ(tree.find(key(11)), expected_value(model, key(11)));
    expect_same_contents(tree, model);
  }
}

TEST(Masstree, SmallLayerRootsGrowIntoFullNodes) {
  // Keys sharing their first slice go on in a layer whose root starts with 4 slots; the fifth
  // key makes it grow into a full node, later ones split that. Every key stays findable through
  // each step, by every get form, and scans see them in order.
  tree_type tree;
  model_type model;
  std::mt19937_64 random(77);
  for (int layer = 0; layer < 6; ++layer) {
    const std::string shared = "slice-" + std::to_string(layer) + "#";
    std::vector<std::string> endings;
    for (int ending = 0; ending < 40; ++ending) {
      std::string rest = std::to_string(ending * 7919 % 1000);
      if (ending % 5 == 0) rest += "-and-a-longer-rest-" + std::to_string(ending);  // suffixes in the layer
      endings.push_back(shared + rest);
    }
    std::shuffle(endings.begin(), endings.end(), random);
    for (const std::string& key : endings) {
      const std::uint64_t value = random();
      ASSERT_EQ(tree.put(key, value), expected_value(model, key)) << key;
      model[key] = value;
      for (const auto& [present, stored] : model) {
        ASSERT_EQ(tree.find(present), stored) << present;
        ASSERT_EQ(run_to_end(tree.lookup<sequential>(present)), stored) << present;
      }
    }
  }
  expect_same_contents(tree, model);
}

TEST(Masstree, LayersOfTwoKeysTakeTwoLines) {
  // 1,000 layers of two short keys each (decimal keys one or two bytes past a shared slice):
  // a full border node per layer alone would take 320 KB.
  tree_type tree;
  for (int layer = 0; layer < 1'000; ++layer) {
    const std::string shared = std::to_string(10'000'000 + layer);
    tree.put(shared + "1", 1);
    tree.put(shared + "22", 2);
  }
  EXPECT_LT(tree.memory_bytes(), 1'000u * 256) << tree.memory_bytes() << " bytes";
  for (int layer = 0; layer < 1'000; ++layer) {
    const std::string shared = std::to_string(10'000'000 + layer);
    ASSERT_EQ(tree.find(shared + "1"), 1u);
    ASSERT_EQ(tree.find(shared + "22"), 2u);
    ASSERT_EQ(tree.find(shared + "2"), std::nullopt);
  }
}

TEST(Masstree, AscendingInsertsFillNodes) {
  // Appending to the rightmost border node splits it full-left, as Masstree does.
  tree_type ascending;
  tree_type scattered;
  std::mt19937_64 random(51);
  std::vector<std::uint64_t> values(20'000);
  for (std::size_t index = 0; index < values.size(); ++index) values[index] = index;
  for (const std::uint64_t value : values) ascending.put(eight_byte_key(value), value);
  std::shuffle(values.begin(), values.end(), random);
  for (const std::uint64_t value : values) scattered.put(eight_byte_key(value), value);
  for (const std::uint64_t value : values) {
    ASSERT_EQ(ascending.find(eight_byte_key(value)), value);
    ASSERT_EQ(scattered.find(eight_byte_key(value)), value);
  }
  EXPECT_LT(ascending.memory_bytes() * 5, scattered.memory_bytes() * 4)
      << "ascending inserts should leave nodes fuller than random ones";
}

// The bytes of every fetch one get makes (as the flat get makes them), and its result.
struct probe_trace {
  std::optional<std::uint64_t> result;
  std::vector<std::size_t> bytes;
};
probe_trace trace_get(const tree_type& tree, std::string_view key) {
  probe_trace trace;
  tree_type::point_probe probe(tree, key);
  while (probe.next() != nullptr) {
    trace.bytes.push_back(probe.next_bytes());
    probe.step();
  }
  trace.result = probe.result();
  return trace;
}

std::vector<std::string> random_decimal_keys(std::size_t count, bool wide, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<std::string> keys;
  for (std::size_t index = 0; index < count; ++index) {
    keys.push_back(std::to_string(wide ? random() : random() & 0xFFFF'FFFFu));
  }
  return keys;
}

TEST(Masstree, ShortSuffixesAreFetchedWithTheirNode) {
  // Decimal keys of up to 10 digits keep 2-byte suffixes: border nodes that split off keep
  // their bag inline and their parents say so, so most gets fetch the leaf with its bag
  // (7 lines) and never the bag on its own. 20-digit keys' suffixes do not fit inline: no
  // fetch brings lines of a bag that is elsewhere.
  for (const bool wide : {false, true}) {
    SCOPED_TRACE(wide ? "20-digit keys" : "10-digit keys");
    const std::vector<std::string> keys = random_decimal_keys(30'000, wide, 61);
    tree_type tree;
    for (std::size_t index = 0; index < keys.size(); ++index) tree.put(keys[index], index);
    std::map<std::string, std::uint64_t> model;
    for (std::size_t index = 0; index < keys.size(); ++index) model[keys[index]] = index;
    std::size_t with_bag = 0;
    for (const auto& [key, value] : model) {
      const probe_trace trace = trace_get(tree, key);
      ASSERT_EQ(trace.result, value) << key;
      ASSERT_EQ(tree.find(key), value) << key;
      ASSERT_EQ(tree.find(key + "0"), std::nullopt) << key;
      ASSERT_FALSE(trace.bytes.empty());
      with_bag += trace.bytes.back() == detail::masstree::prefetched_bytes_with_bag ? 1 : 0;
    }
    if (wide) {
      EXPECT_EQ(with_bag, 0u);
    } else {
      EXPECT_GT(with_bag * 10, model.size() * 9) << with_bag << " gets fetched their leaf with its bag";
    }
    std::vector<std::string_view> views(keys.begin(), keys.end());
    std::vector<std::optional<std::uint64_t>> flat(keys.size());
    std::vector<std::optional<std::uint64_t>> nested(keys.size());
    tree.multi_find(views, flat, technique::coro, 16);
    tree.multi_find(views, nested, technique::coro_nested, 16);
    for (std::size_t index = 0; index < keys.size(); ++index) {
      ASSERT_EQ(flat[index], model.at(keys[index])) << keys[index];
      ASSERT_EQ(nested[index], model.at(keys[index])) << keys[index];
    }
  }
}

TEST(Masstree, MultiFindRejectsBadArguments) {
  tree_type tree;
  std::vector<std::string_view> keys = {"a", "b"};
  std::vector<std::optional<std::uint64_t>> too_short(1);
  EXPECT_THROW(tree.multi_find(keys, too_short, technique::coro, 4), std::invalid_argument);
  std::vector<std::optional<std::uint64_t>> results(2);
  EXPECT_THROW(tree.multi_find(keys, results, technique::coro_nested, 0), std::invalid_argument);
}

TEST(Masstree, SmallValueTypes) {
  masstree<std::uint16_t> tree;
  tree.put("x", 65535);
  tree.put("y", 1);
  EXPECT_EQ(tree.find("x"), std::uint16_t{65535});
  EXPECT_EQ(tree.put("x", 2), std::uint16_t{65535});
  EXPECT_EQ(tree.find("x"), std::uint16_t{2});
}

}  // namespace
}  // namespace braid::testing
