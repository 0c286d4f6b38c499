// braid-test: concurrent
// detail::store_load_fence against the store-buffering litmus test: two threads each store to
// their own flag, fence, and load the other's. Without a full fence x86 lets both loads pass
// their stores (both read 0); with one, at least one thread must see the other's store.
#include "braid/core/detail/store_load_fence.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <thread>

namespace {

struct alignas(64) padded_flag {
  std::atomic<int> value{0};
};

// Runs `rounds` rounds of the litmus test, the two threads released together each round (the
// flags are reset before the first thread enters the round's barrier, which the second cannot
// leave without it); returns the rounds in which both loads read 0.
std::size_t rounds_with_both_loads_stale(std::size_t rounds) {
  padded_flag x, y;
  alignas(64) std::atomic<std::size_t> started{0};  // each thread counts the rounds it entered
  alignas(64) std::atomic<std::size_t> finished{0};
  std::size_t both_stale = 0;
  int seen_by_second = 0;
  std::thread second([&] {
    for (std::size_t round = 0; round < rounds; ++round) {
      started.fetch_add(1, std::memory_order_acq_rel);
      while (started.load(std::memory_order_acquire) != 2 * round + 2) {
      }
      y.value.store(1, std::memory_order_relaxed);
      braid::detail::store_load_fence();
      seen_by_second = x.value.load(std::memory_order_relaxed);
      finished.fetch_add(1, std::memory_order_release);
      while (finished.load(std::memory_order_acquire) != 2 * round + 2) {
      }
    }
  });
  for (std::size_t round = 0; round < rounds; ++round) {
    x.value.store(0, std::memory_order_relaxed);
    y.value.store(0, std::memory_order_relaxed);
    started.fetch_add(1, std::memory_order_acq_rel);  // both wait for both: they start together
    while (started.load(std::memory_order_acquire) != 2 * round + 2) {
    }
    x.value.store(1, std::memory_order_relaxed);
    braid::detail::store_load_fence();
    const int seen_by_first = y.value.load(std::memory_order_relaxed);
    finished.fetch_add(1, std::memory_order_release);
    while (finished.load(std::memory_order_acquire) != 2 * round + 2) {
    }
    if (seen_by_first == 0 && seen_by_second == 0) ++both_stale;
  }
  second.join();
  return both_stale;
}

TEST(StoreLoadFence, NoRoundLetsBothThreadsReadTheOtherFlagStale) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs two CPUs for the threads to overlap";
  EXPECT_EQ(rounds_with_both_loads_stale(200'000), 0u);
}

}  // namespace
