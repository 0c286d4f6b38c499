// braid-test: concurrent
// The Bw-tree under concurrent writers and interleaved readers, on tiny nodes so that deltas,
// consolidations, splits, index-entry posts and root splits race all the time.
//
// Each writer owns the keys of its partition and upserts and erases them; a value encodes its
// key and the writer's step, so a reader checks that every value it gets was written for that
// key and that per key the steps it sees never go back. Readers run the plain get, the
// coroutine, group prefetching and AMAC with random group sizes, and scans. At the end the tree
// must equal a serial replay of every writer's sequence.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "braid/index/bw_tree.hpp"
#include "index/concurrent_test_support.hpp"

namespace braid::testing {
namespace {

std::uint32_t key_check(std::uint64_t key) {
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdull;
  return static_cast<std::uint32_t>(key ^ (key >> 29));
}
std::uint64_t encode(std::uint64_t key, std::uint64_t step) { return (step << 32) | key_check(key); }

template <class Tree>
void writers_and_readers(int writers, int readers, int steps_per_writer, std::uint64_t key_range) {
  Tree tree;
  std::vector<std::map<std::uint64_t, std::uint64_t>> replay(static_cast<std::size_t>(writers));
  writer_reader_threads shared(writers, readers);

  auto writer = [&](int id) {
    shared.start.arrive_and_wait();
    std::mt19937_64 choose(static_cast<std::uint64_t>(id) + 1);
    auto& model = replay[static_cast<std::size_t>(id)];
    for (std::uint64_t step = 1; step <= static_cast<std::uint64_t>(steps_per_writer); ++step) {
      const std::uint64_t key = (choose() % (key_range / writers)) * writers + static_cast<std::uint64_t>(id);
      if (choose() % 5 == 0) {
        tree.erase(key);
        model.erase(key);
      } else {
        tree.insert_or_assign(key, encode(key, step));
        model[key] = encode(key, step);
      }
    }
    shared.writers_done.fetch_add(1);
  };

  auto reader = [&](int id) {
    shared.start.arrive_and_wait();
    std::mt19937_64 choose(static_cast<std::uint64_t>(id) + 100);
    std::vector<std::uint64_t> keys(48);
    std::vector<std::optional<std::uint64_t>> results(48);
    written_value_check<std::uint64_t> check(shared.failures, shared.reads_checked);
    constexpr technique techniques[] = {technique::naive, technique::gp, technique::amac, technique::coro};
    for (int round = 0; shared.writing() || round < 20; ++round) {
      const std::size_t count = 1 + choose() % keys.size();
      for (std::size_t index = 0; index < count; ++index) keys[index] = choose() % key_range;
      tree.multi_find(std::span(keys.data(), count), std::span(results.data(), count), techniques[choose() % 4],
                      1 + choose() % 24);
      for (std::size_t index = 0; index < count; ++index) check(keys[index], key_check(keys[index]), results[index]);
      if (choose() % 16 == 0) {
        std::uint64_t previous = 0;
        bool first = true;
        tree.scan(choose() % key_range, [&](std::uint64_t key, std::uint64_t value) {
          if (!first && key <= previous) shared.failures.add("scan out of order");
          if (static_cast<std::uint32_t>(value) != key_check(key)) shared.failures.add("scan returned a foreign value");
          previous = key;
          first = false;
        });
      }
    }
  };

  shared.run_threads(writer, reader);
  EXPECT_GT(shared.reads_checked.load(), 0u);
  std::map<std::uint64_t, std::uint64_t> expected;
  for (const auto& model : replay) expected.insert(model.begin(), model.end());
  std::vector<std::pair<std::uint64_t, std::uint64_t>> contents;
  tree.scan(0, [&](std::uint64_t key, std::uint64_t value) { contents.emplace_back(key, value); });
  ASSERT_EQ(contents.size(), expected.size());
  auto next = expected.begin();
  for (const auto& [key, value] : contents) {
    ASSERT_EQ(key, next->first);
    ASSERT_EQ(value, next->second);
    ++next;
  }
  for (std::uint64_t key = 0; key < key_range; ++key) {
    const auto found = expected.find(key);
    ASSERT_EQ(tree.find(key), found == expected.end() ? std::nullopt : std::optional(found->second)) << key;
  }
  EXPECT_GT(tree.statistics().splits, 10u) << "the test did not make the tree split";
}

TEST(BwTreeConcurrent, TinyNodesWritersAndInterleavedReaders) {
  writers_and_readers<bw_tree<std::uint64_t, std::uint64_t, 4, 4, 2>>(2, 2, 15'000, 4'000);
}

TEST(BwTreeConcurrent, DefaultNodesWritersAndInterleavedReaders) {
  writers_and_readers<bw_tree<>>(2, 1, 25'000, 40'000);
}

TEST(BwTreeConcurrent, ConcurrentInsertsFromAnEmptyTreeSplitTheRoot) {
  // Dense interleaved stripes from every thread: the same leaves and the root split under all.
  bw_tree<std::uint64_t, std::uint64_t, 6, 4, 3> tree;
  constexpr int threads_count = 3;
  constexpr std::uint64_t per_thread = 5'000;
  std::vector<std::thread> threads;
  for (int id = 0; id < threads_count; ++id) {
    threads.emplace_back([&, id] {
      for (std::uint64_t index = 0; index < per_thread; ++index) {
        const std::uint64_t key = index * threads_count + static_cast<std::uint64_t>(id);
        tree.insert_or_assign(key, key * 3);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::uint64_t expected = 0;
  tree.scan(0, [&](std::uint64_t key, std::uint64_t value) {
    EXPECT_EQ(key, expected);
    EXPECT_EQ(value, key * 3);
    ++expected;
  });
  EXPECT_EQ(expected, threads_count * per_thread);
  EXPECT_GE(tree.statistics().root_splits, 3u);
}

}  // namespace
}  // namespace braid::testing
