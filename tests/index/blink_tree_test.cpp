// The B-link tree against std::map, one operation at a time: node searches, the thread form,
// the task form (one worker, one request in flight, so the order is the map's), the
// coroutine lookup in all three modes, scans; the consistency checker after every run.
// Seeds are printed on failure.
// braid-test: concurrent
// braid-test: workload
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "braid/core/scheduler.hpp"
#include "index/blink_tree_test_support.hpp"

namespace braid::tasks::testing {
namespace {

TEST(BlinkNode, LayoutAndSearches) {
  EXPECT_EQ(sizeof(nodes::leaf_node), 1024u);
  EXPECT_LE(sizeof(nodes::inner_node), 1024u);
  EXPECT_EQ(nodes::leaf_node::value_line(0), 8u);    // values start at byte 544
  EXPECT_EQ(nodes::leaf_node::value_line(59), 15u);  // and end at byte 1023
  std::mt19937_64 random(7);
  nodes::leaf_node leaf;
  for (unsigned count = 0; count <= nodes::leaf_node::capacity; ++count) {
    std::vector<key_type> keys;
    for (unsigned index = 0; index < count; ++index) keys.push_back(random() % 200);
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    for (unsigned index = 0; index < keys.size(); ++index) leaf.keys[index] = keys[index];
    leaf.count = static_cast<std::uint16_t>(keys.size());
    for (key_type probe = 0; probe < 202; ++probe) {
      const auto lower = static_cast<unsigned>(std::lower_bound(keys.begin(), keys.end(), probe) - keys.begin());
      const auto upper = static_cast<unsigned>(std::upper_bound(keys.begin(), keys.end(), probe) - keys.begin());
      ASSERT_EQ(leaf.lower_bound(probe), lower) << "count " << keys.size() << " probe " << probe;
      ASSERT_EQ(nodes::search<true>(leaf.keys, static_cast<unsigned>(keys.size()), probe), upper);
      const bool present = lower < keys.size() && keys[lower] == probe;
      ASSERT_EQ(leaf.find(probe), present ? lower : nodes::leaf_node::capacity);
    }
  }
}

// Random requests over a key domain small enough for hits, misses and repeats.
std::vector<request> random_requests(std::uint64_t seed, std::size_t count, key_type domain, bool with_scans) {
  std::mt19937_64 random(seed);
  std::vector<request> requests(count);
  for (request& each : requests) {
    each.key = random() % domain * 7919;  // spread, with gaps for misses
    const unsigned dice = static_cast<unsigned>(random() % 100);
    each.kind = dice < 30   ? request_kind::insert
                : dice < 45 ? request_kind::insert_if_absent
                : dice < 75 ? request_kind::read
                : dice < 85 ? request_kind::update
                : dice < 95 ? request_kind::erase
                            : (with_scans ? request_kind::scan : request_kind::read);
    each.scan_length = static_cast<std::uint32_t>(1 + random() % 100);
  }
  return requests;
}

void expect_same_results(const std::vector<request>& requests, const std::vector<operation_result>& expected,
                         const std::vector<operation_result>& actual, const std::string& context) {
  ASSERT_EQ(expected.size(), actual.size());
  for (std::size_t index = 0; index < expected.size(); ++index) {
    const request_kind kind = requests[index].kind;
    const bool writes = kind == request_kind::insert || kind == request_kind::insert_if_absent ||
                        kind == request_kind::update || kind == request_kind::erase;
    ASSERT_EQ(static_cast<int>(actual[index].status), static_cast<int>(expected[index].status))
        << context << " request " << index << " key " << requests[index].key;
    if (!writes) {
      ASSERT_EQ(actual[index].value, expected[index].value) << context << " request " << index;
      ASSERT_EQ(actual[index].count, expected[index].count) << context << " request " << index;
    }
  }
}

void expect_map_contents(const blink_tree& tree, const std::map<key_type, value_type>& map, const std::string& context) {
  const blink_tree::consistency_report report = tree.check();
  ASSERT_TRUE(report.ok) << context << ": " << report.describe();
  ASSERT_EQ(report.keys, map.size()) << context;
  std::vector<std::pair<key_type, value_type>> everything;
  tree.scan(0, static_cast<std::uint32_t>(map.size() + 1), &everything);
  const std::vector<std::pair<key_type, value_type>> wanted(map.begin(), map.end());
  ASSERT_EQ(everything, wanted) << context;
}

TEST(BlinkTree, ThreadFormMatchesStdMap) {
  thread_runner one_thread(1);
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const key_type domain = seed % 2 == 0 ? 300 : 40'000;  // few keys with many repeats; many keys, deep tree
    const std::vector<request> requests = random_requests(seed, 60'000, domain, true);
    std::map<key_type, value_type> map;
    const std::vector<operation_result> expected = blink::reference_results(requests, map);
    runtime tasks(test_config(1));
    blink_tree tree(tasks);
    std::vector<operation_result> actual(requests.size());
    blink::run_on_threads(tree, one_thread, requests, 1, actual);
    const std::string context = "thread form, seed " + std::to_string(seed);
    expect_same_results(requests, expected, actual, context);
    expect_map_contents(tree, map, context);
    if (domain > 1000) {
      EXPECT_GE(tree.height(), 3u) << "deep enough to split inner nodes";
    }
  }
}

TEST(BlinkTree, ThreadFormGrowsFourLevelsFromAscendingAndDescendingKeys) {
  for (bool ascending : {true, false}) {
    runtime tasks(test_config(1));
    blink_tree tree(tasks);
    std::map<key_type, value_type> map;
    constexpr key_type count = 200'000;
    for (key_type index = 0; index < count; ++index) {
      const key_type key = ascending ? index : count - index;
      ASSERT_TRUE(tree.insert(key, key + 1)) << key;
      map[key] = key + 1;
    }
    EXPECT_EQ(tree.height(), 4u);
    const blink_tree::consistency_report report = tree.check(false);
    EXPECT_TRUE(report.ok) << report.describe();
    EXPECT_EQ(report.keys, map.size());
    for (key_type probe : {key_type{0}, key_type{1}, count / 2, count, count + 1}) {
      const auto expected = map.find(probe);
      EXPECT_EQ(tree.find(probe), expected == map.end() ? std::nullopt : std::optional<value_type>(expected->second));
    }
  }
}

// The index protocol's writes, key by key: insert adds only an absent key, insert_or_assign
// adds or overwrites, erase removes; each says what it did. Enough keys for three levels, so
// both also run through splits.
TEST(BlinkTree, InsertAddsIfAbsentAndInsertOrAssignOverwrites) {
  runtime tasks(test_config(1));
  blink_tree tree(tasks);
  constexpr key_type count = 5'000;
  for (key_type key = 0; key < count; ++key) {
    const key_type spread = key * 7919 % count;  // every key once, out of order
    if (spread % 2 == 0) {
      ASSERT_TRUE(tree.insert(spread, spread + 1)) << spread;
    } else {
      ASSERT_TRUE(tree.insert_or_assign(spread, spread + 1)) << spread;
    }
  }
  EXPECT_GE(tree.height(), 2u);
  for (key_type key = 0; key < count; ++key) {
    ASSERT_FALSE(tree.insert(key, 0)) << "present key " << key;
    ASSERT_EQ(tree.find(key), key + 1) << "insert must keep the present value, key " << key;
  }
  for (key_type key = 0; key < count; key += 2) {
    ASSERT_FALSE(tree.insert_or_assign(key, key + 2)) << "overwrites, key " << key;
    ASSERT_EQ(tree.find(key), key + 2) << key;
  }
  for (key_type key = 1; key < count; key += 2) ASSERT_EQ(tree.find(key), key + 1) << key;
  EXPECT_FALSE(tree.find(count).has_value());
  EXPECT_TRUE(tree.insert(count, 9));
  EXPECT_TRUE(tree.erase(count));
  EXPECT_FALSE(tree.erase(count));
  EXPECT_FALSE(tree.find(count).has_value());
  EXPECT_TRUE(tree.insert_or_assign(count, 10));  // absent again: insert_or_assign adds
  EXPECT_EQ(tree.find(count), 10u);
  EXPECT_TRUE(tree.erase(count));
  EXPECT_TRUE(tree.insert(count, 11));  // and insert adds it back
  EXPECT_EQ(tree.find(count), 11u);
  const blink_tree::consistency_report report = tree.check();
  EXPECT_TRUE(report.ok) << report.describe();
  EXPECT_EQ(report.keys, count + 1);
  static_assert(blink_tree::default_prefetch_hint == prefetch_hint::nta);
}

runtime_config sequential_task_config() {
  runtime_config config = test_config(1);
  config.low_priority_below = 1;  // the fetcher waits until the one request in flight is done
  return config;
}

struct task_form_variant {
  const char* name;
  blink::lookup_form lookups;
  bool value_step;
  prefetch_distance distance;
};

TEST(BlinkTree, TaskFormMatchesStdMapOneRequestAtATime) {
  const task_form_variant variants[] = {
      {"tasks", blink::lookup_form::tasks, true, prefetch_distance::fixed(2)},
      {"tasks-no-value-step", blink::lookup_form::tasks, false, prefetch_distance::off()},
      {"coroutine-bridge", blink::lookup_form::coroutine_bridge, true, prefetch_distance::automatic()},
  };
  for (const task_form_variant& variant : variants) {
    for (std::uint64_t seed = 11; seed <= 14; ++seed) {
      const key_type domain = seed % 2 == 0 ? 300 : 20'000;
      const std::vector<request> requests = random_requests(seed, 30'000, domain, true);
      std::map<key_type, value_type> map;
      const std::vector<operation_result> expected = blink::reference_results(requests, map);
      runtime_config config = sequential_task_config();
      config.distance = variant.distance;
      runtime tasks(config);
      blink_tree_options options;
      options.value_step = variant.value_step;
      blink_tree tree(tasks, options);
      std::vector<operation_result> actual(requests.size());
      blink::run_on_runtime(tree, tasks, requests, {.batch = 1, .lookups = variant.lookups}, actual);
      const std::string context = std::string(variant.name) + ", seed " + std::to_string(seed);
      expect_same_results(requests, expected, actual, context);
      expect_map_contents(tree, map, context);
    }
  }
}

TEST(BlinkTree, WritesCommitInHardwareTransactions) {
  // Under the transactional primitive every task runs in a hardware transaction. A writer's
  // run must not contain what aborts one every time (on Intel, the VZEROUPPER compilers put
  // after vector code; the sink's code, which runs after the task): most runs commit.
  if (!hardware_transactions_supported()) GTEST_SKIP() << "this CPU has no RTM";
#if defined(BRAID_SANITIZED)
  GTEST_SKIP() << "a sanitizer's runtime runs code of its own (VZEROUPPER included) inside the transactions";
#endif
  runtime tasks(sequential_task_config());
  blink_tree_options options;
  options.inner_protocol = primitive::transactional;
  options.leaf_protocol = primitive::transactional;
  blink_tree tree(tasks, options);
  std::map<key_type, value_type> map;
  const std::vector<request> requests = random_requests(21, 20'000, 50'000, true);
  const std::vector<operation_result> expected = blink::reference_results(requests, map);
  std::vector<operation_result> actual(requests.size());
  tasks.reset_statistics();
  blink::run_on_runtime(tree, tasks, requests, {.batch = 1}, actual);
  expect_same_results(requests, expected, actual, "transactional");
  const worker_statistics counts = tasks.statistics().tasks;
  const std::uint64_t runs = counts.htm_commits + counts.htm_fallback_runs;
  ASSERT_GE(runs, requests.size());  // every request runs at least once on a node
  if (counts.htm_commits == 0) GTEST_SKIP() << "no transaction committed: RTM is not usable here";
  EXPECT_GE(counts.htm_commits, runs * 95 / 100) << counts.htm_aborts() << " aborts: conflict " << counts.htm_conflict_aborts
                                                 << ", capacity " << counts.htm_capacity_aborts << ", other "
                                                 << counts.htm_other_aborts;
}

TEST(BlinkTree, EmptyTreeAndEdgeKeys) {
  runtime tasks(sequential_task_config());
  blink_tree tree(tasks);
  const std::vector<request> requests = {
      {0, 0, request_kind::read},        {~key_type{0}, 0, request_kind::read}, {5, 10, request_kind::scan},
      {~key_type{0}, 0, request_kind::insert}, {0, 0, request_kind::insert},   {~key_type{0}, 0, request_kind::read},
      {0, 3, request_kind::scan},        {~key_type{0}, 2, request_kind::scan}, {1, 0, request_kind::erase},
      {0, 0, request_kind::update},      {0, 0, request_kind::erase},          {0, 0, request_kind::read},
      {0, 0, request_kind::insert_if_absent}, {0, 0, request_kind::insert_if_absent}, {0, 0, request_kind::read},
      {~key_type{0}, 0, request_kind::insert_if_absent},
  };
  std::map<key_type, value_type> map;
  const std::vector<operation_result> expected = blink::reference_results(requests, map);
  std::vector<operation_result> actual(requests.size());
  blink::run_on_runtime(tree, tasks, requests, {.batch = 1}, actual);
  expect_same_results(requests, expected, actual, "edge keys, tasks");
  thread_runner one_thread(1);
  runtime other(test_config(1));
  blink_tree plain(other);
  std::vector<operation_result> plain_results(requests.size());
  blink::run_on_threads(plain, one_thread, requests, 1, plain_results);
  expect_same_results(requests, expected, plain_results, "edge keys, threads");
  const std::vector<request> none;
  EXPECT_EQ(blink::run_on_runtime(tree, tasks, none).operations, 0u);
  EXPECT_THROW(blink::run_on_threads(plain, one_thread, requests, 0), std::invalid_argument);
}

TEST(BlinkTree, OneLookupSourceInThreeModes) {
  runtime tasks(test_config(1));
  blink_tree tree(tasks);
  std::mt19937_64 random(99);
  std::vector<key_type> keys;
  for (int index = 0; index < 20'000; ++index) {
    keys.push_back(random() % 50'000);
    tree.insert(keys.back(), keys.back() * 3);
  }
  for (int index = 0; index < 5'000; ++index) keys.push_back(random() % 60'000);  // misses too
  std::vector<std::optional<value_type>> plain;
  for (key_type key : keys) plain.push_back(tree.find(key));
  const auto sequential = run(sequential_scheduler{}, keys, [&](key_type key) { return tree.lookup<braid::sequential>(key); });
  for (std::size_t group : {1, 3, 16, 64}) {
    const auto interleaved =
        run(interleaved_scheduler{group}, keys, [&](key_type key) { return tree.lookup<braid::interleaved>(key); });
    EXPECT_EQ(interleaved, plain) << "group " << group;
  }
  EXPECT_EQ(sequential, plain);
  for (technique how : {technique::naive, technique::coro, technique::adaptive}) {
    for (std::size_t group : {std::size_t{1}, std::size_t{7}, keys.size() + 1}) {
      std::vector<std::optional<value_type>> found(keys.size(), value_type{12345});
      tree.multi_find(keys, found, how, group);
      EXPECT_EQ(found, plain) << to_string(how) << " group " << group;
    }
  }
  std::map<key_type, value_type> model;
  for (key_type key : keys) {
    if (const auto value = tree.find(key)) model[key] = *value;
  }
  for (const std::size_t limit : {std::size_t{0}, std::size_t{1}, std::size_t{100}, model.size() + 3}) {
    std::vector<std::pair<key_type, value_type>> seen;
    const std::size_t visited = tree.scan(1000, limit, [&](key_type key, value_type value) { seen.emplace_back(key, value); });
    std::vector<std::pair<key_type, value_type>> expected;
    for (auto at = model.lower_bound(1000); at != model.end() && expected.size() < limit; ++at) expected.emplace_back(*at);
    EXPECT_EQ(seen, expected) << "limit " << limit;
    EXPECT_EQ(visited, expected.size());
  }
  std::vector<std::optional<value_type>> none;
  tree.multi_find(std::span<const key_type>{}, none, technique::coro, 4);  // empty input
  for (technique how : {technique::gp, technique::amac, technique::fiber, technique::coro_nested}) {
    std::vector<std::optional<value_type>> found(keys.size());
    EXPECT_THROW(tree.multi_find(keys, found, how, 4), std::invalid_argument) << to_string(how);
  }
  std::vector<request> reads;
  for (key_type key : keys) reads.push_back({key, 0, request_kind::read});
  std::vector<operation_result> bridged(reads.size());
  blink::run_on_runtime(tree, tasks, reads, {.lookups = blink::lookup_form::coroutine_bridge}, bridged);
  for (std::size_t index = 0; index < keys.size(); ++index) {
    ASSERT_EQ(bridged[index].status == operation_status::found, plain[index].has_value()) << index;
    if (plain[index]) {
      ASSERT_EQ(bridged[index].value, *plain[index]) << index;
    }
  }
}

}  // namespace
}  // namespace braid::tasks::testing
