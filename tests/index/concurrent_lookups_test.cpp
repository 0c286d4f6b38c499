// braid-test: concurrent
// Lookups are const: several threads may run multi_find on one structure at once, each with
// its own frame pool and scheduler. Checked for the three structures and the stackless
// techniques (fibers are single-threaded by nature and not annotated for ThreadSanitizer).
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "braid/core/all.hpp"
#include "braid/index/chained_hash_table.hpp"
#include "braid/index/linear_probing_table.hpp"
#include "braid/index/sorted_array.hpp"

namespace braid {
namespace {

constexpr technique stackless[] = {technique::naive, technique::gp, technique::amac, technique::coro};

// Every worker runs every stackless technique over all keys, several rounds, and compares
// with the plain lookups computed beforehand on this thread.
template <class Structure, class Key>
void expect_concurrent_lookups_agree(const Structure& structure, const std::vector<Key>& keys) {
  using result = typename Structure::result_type;
  std::vector<result> expected;
  for (const Key& key : keys) expected.push_back(structure.find(key));
  thread_runner runner(2);
  std::vector<int> mismatches(runner.size(), 0);
  runner.run([&](unsigned worker) {
    std::vector<result> out(keys.size());
    for (int round = 0; round < 3; ++round) {
      for (technique how : stackless) {
        structure.multi_find(std::span<const Key>(keys), std::span<result>(out), how, 8 + worker);
        for (std::size_t i = 0; i < keys.size(); ++i) mismatches[worker] += out[i] != expected[i] ? 1 : 0;
      }
    }
  });
  for (unsigned worker = 0; worker < runner.size(); ++worker) EXPECT_EQ(mismatches[worker], 0) << "worker " << worker;
}

TEST(ConcurrentLookups, ChainedHashTable) {
  chained_hash_table<std::uint32_t, std::uint64_t> table(500, 0, page_size::small_4k);
  std::vector<std::uint32_t> keys;
  for (std::uint32_t k = 0; k < 4000; ++k) {
    if (k % 3 != 0) table.insert(k, k * 7);
    keys.push_back((k * 2654435761u) % 6000);
  }
  expect_concurrent_lookups_agree(table, keys);
}

TEST(ConcurrentLookups, LinearProbingTable) {
  linear_probing_table<> table(3000, page_size::small_4k);
  std::vector<std::uint64_t> keys;
  for (std::uint64_t k = 0; k < 4000; ++k) {
    if (k % 3 != 0) table.insert(k * 11, k);
    keys.push_back((k * 2654435761u) % 50000);
  }
  expect_concurrent_lookups_agree(table, keys);
}

TEST(ConcurrentLookups, SortedArray) {
  const auto array = sorted_array<std::int64_t>::from_sorted(
      5000, [](std::size_t i) { return static_cast<std::int64_t>(3 * i); }, page_size::small_4k);
  std::vector<std::int64_t> keys;
  for (std::int64_t k = 0; k < 4000; ++k) keys.push_back((k * 2654435761) % 16000);
  expect_concurrent_lookups_agree(array, keys);
}

}  // namespace
}  // namespace braid
