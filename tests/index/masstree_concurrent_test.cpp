// braid-test: concurrent
// The Masstree-style index under concurrent writers and interleaved readers.
//
// Each writer owns the keys of its partition and runs a random sequence of puts and removes on
// them (plain, and as interleaved coroutines whose descent suspends). A value encodes its key
// and the writer's step number, so a reader can check that every value it gets was written for
// that key, and that per key the steps it sees never go back (one writer per key: any
// linearizable history shows them in order). Readers run the plain, nested and flat gets with
// random group sizes, and scans, which must come out sorted with valid values. At the end the
// tree must equal a serial replay of every writer's sequence.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "braid/core/scheduler.hpp"
#include "braid/index/masstree.hpp"
#include "index/concurrent_test_support.hpp"
#include "index/masstree_test_support.hpp"

namespace braid::testing {
namespace {

std::uint32_t key_check(std::string_view key) {
  std::uint32_t hash = 2166136261u;
  for (const char byte : key) hash = (hash ^ static_cast<unsigned char>(byte)) * 16777619u;
  return hash;
}
std::uint64_t encode(std::string_view key, std::uint64_t step) { return (step << 32) | key_check(key); }

constexpr int writers = 2;
constexpr int readers = 2;
constexpr int steps_per_writer = 30'000;

TEST(MasstreeConcurrent, WritersAndInterleavedReadersStayLinearizable) {
  masstree<std::uint64_t> tree;
  // The key universe, split among the writers.
  std::mt19937_64 random(2024);
  std::vector<std::string> universe;
  {
    std::map<std::string, int> distinct;
    while (distinct.size() < 3'000) distinct.emplace(masstree_test_key(random), 0);
    for (const auto& [key, unused] : distinct) universe.push_back(key);
  }
  std::vector<std::map<std::string, std::uint64_t>> replay(writers);
  writer_reader_threads shared(writers, readers);

  auto writer = [&](int id) {
    shared.start.arrive_and_wait();
    std::mt19937_64 choose(static_cast<std::uint64_t>(id) + 1);
    std::vector<std::size_t> mine;
    for (std::size_t index = 0; index < universe.size(); ++index) {
      if (static_cast<int>(index % writers) == id) mine.push_back(index);
    }
    auto& model = replay[static_cast<std::size_t>(id)];
    std::uint64_t step = 0;
    while (step < steps_per_writer) {
      if (choose() % 8 == 0) {
        // A burst of distinct keys written as interleaved coroutines.
        std::vector<std::string> burst;
        std::map<std::string, std::uint64_t> values;
        for (int count = 0; count < 16; ++count) {
          const std::string& key = universe[mine[choose() % mine.size()]];
          if (values.emplace(key, encode(key, ++step)).second) burst.push_back(key);
        }
        const auto previous = run(interleaved_scheduler{1 + choose() % 8}, burst, [&](const std::string& key) {
          return tree.put_flat<interleaved>(key, values[key]);
        });
        for (std::size_t index = 0; index < burst.size(); ++index) {
          if (previous[index] != expected_value(model, burst[index])) shared.failures.add("an interleaved put returned a wrong previous value");
        }
        for (const auto& [key, value] : values) model[key] = value;
        continue;
      }
      const std::string& key = universe[mine[choose() % mine.size()]];
      ++step;
      if (choose() % 4 == 0) {
        const auto removed = tree.remove(key);
        const auto expected = expected_value(model, key);
        if (removed != expected) shared.failures.add("remove returned a wrong previous value for a writer's own key");
        model.erase(key);
      } else {
        const auto previous = tree.put(key, encode(key, step));
        if (previous != expected_value(model, key)) shared.failures.add("put returned a wrong previous value");
        model[key] = encode(key, step);
      }
    }
    shared.writers_done.fetch_add(1);
  };

  auto reader = [&](int id) {
    shared.start.arrive_and_wait();
    std::mt19937_64 choose(static_cast<std::uint64_t>(id) + 100);
    std::vector<std::string_view> keys(64);
    std::vector<std::optional<std::uint64_t>> results(64);
    written_value_check<std::string_view> check(shared.failures, shared.reads_checked);
    for (int round = 0; shared.writing() || round < 20; ++round) {
      const auto how = std::array{technique::naive, technique::coro_nested, technique::coro, technique::adaptive}[choose() % 4];
      const std::size_t count = 1 + choose() % keys.size();
      for (std::size_t index = 0; index < count; ++index) keys[index] = universe[choose() % universe.size()];
      tree.multi_find(std::span(keys.data(), count), std::span(results.data(), count), how, 1 + choose() % 32);
      for (std::size_t index = 0; index < count; ++index) check(keys[index], key_check(keys[index]), results[index]);
      if (choose() % 16 == 0) {
        std::string previous;
        bool first = true;
        tree.scan(universe[choose() % universe.size()], [&](std::string_view key, std::uint64_t value) {
          if (!first && !(previous < key)) shared.failures.add("scan out of order");
          if (static_cast<std::uint32_t>(value) != key_check(key)) shared.failures.add("scan returned a foreign value");
          previous.assign(key);
          first = false;
          return previous.size() < 1'000;  // always true: keep going to the end
        });
      }
    }
  };

  shared.run_threads(writer, reader);
  EXPECT_GT(shared.reads_checked.load(), 0u);
  std::map<std::string, std::uint64_t> expected;
  for (const auto& model : replay) expected.insert(model.begin(), model.end());
  const auto contents = tree.scan("", 1'000'000);
  ASSERT_EQ(contents.size(), expected.size());
  auto next = expected.begin();
  for (const auto& [key, value] : contents) {
    ASSERT_EQ(key, next->first);
    ASSERT_EQ(value, next->second);
    ++next;
  }
  for (const auto& [key, value] : expected) ASSERT_EQ(tree.find(key), value);
}

TEST(MasstreeConcurrent, ConcurrentInsertsSplitTheSameNodes) {
  // Every thread inserts its own interleaved stripe of one dense key range, so neighbouring
  // keys from different threads land in the same border nodes and split them concurrently.
  masstree<std::uint64_t> tree;
  constexpr int threads_count = 3;
  constexpr std::uint64_t per_thread = 6'000;
  auto key_of = [](std::uint64_t value) {
    std::string key = "split:";
    for (int byte = 0; byte < 8; ++byte) key.push_back(static_cast<char>(value >> (56 - 8 * byte)));
    return key;
  };
  std::vector<std::thread> threads;
  for (int id = 0; id < threads_count; ++id) {
    threads.emplace_back([&, id] {
      for (std::uint64_t index = 0; index < per_thread; ++index) {
        const std::uint64_t value = index * threads_count + static_cast<std::uint64_t>(id);
        if (tree.put(key_of(value), value).has_value()) ADD_FAILURE() << "a fresh key was reported present";
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::uint64_t expected = 0;
  const std::size_t visited = tree.scan("", [&](std::string_view key, std::uint64_t value) {
    EXPECT_EQ(key, key_of(expected));
    EXPECT_EQ(value, expected);
    ++expected;
  });
  EXPECT_EQ(visited, threads_count * per_thread);
}

TEST(MasstreeConcurrent, ReadersOfALayerWhoseRootSplitRepointedSeeItsNewRootWhole) {
  // A writer fills one new layer after another (keys sharing an 8-byte slice), each past its
  // root's split; the next write into the layer repoints its slot in layer 0 at the new root,
  // under the border node's lock alone. A reader gets the layer's first key all the while. It
  // learns which layer is newest by a relaxed load, so nothing else orders it after the
  // writer: only the slot's release store and the reader's acquire load of it make the new
  // root's initialization visible (ThreadSanitizer reports the reader's reads of it otherwise).
  masstree<std::uint64_t> tree;
  constexpr int layers = 1'500;
  constexpr int keys_per_layer = 40;  // the root of a layer splits after 15
  auto key_of = [](int layer, int index) {
    return "L" + std::to_string(1'000'000 + layer) + "key" + std::to_string(1000 + index);  // slice "L1000xyz"
  };
  std::atomic<int> newest{-1};
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> wrong{0};
  std::atomic<std::uint64_t> reads{0};
  std::thread reader([&] {
    while (!done.load(std::memory_order_relaxed)) {
      const int layer = newest.load(std::memory_order_relaxed);
      if (layer < 0) continue;
      const auto found = tree.find(key_of(layer, 0));
      if (found != std::optional<std::uint64_t>(static_cast<std::uint64_t>(layer) * keys_per_layer)) wrong.fetch_add(1);
      reads.fetch_add(1, std::memory_order_relaxed);
    }
  });
  for (int layer = 0; layer < layers; ++layer) {
    for (int index = 0; index < keys_per_layer; ++index) {
      tree.put(key_of(layer, index), static_cast<std::uint64_t>(layer) * keys_per_layer + static_cast<std::uint64_t>(index));
      if (index == 1) newest.store(layer, std::memory_order_relaxed);  // two keys: the layer exists
    }
  }
  done.store(true);
  reader.join();
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_GT(reads.load(), 0u);
  EXPECT_EQ(tree.scan("", 1'000'000).size(), static_cast<std::size_t>(layers) * keys_per_layer);
}

}  // namespace
}  // namespace braid::testing
