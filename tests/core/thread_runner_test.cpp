// thread_runner and run_parallel: chunking covers the input exactly, every index is
// delivered once, exceptions reach the caller, workers are reusable.
// braid-test: concurrent
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "core/test_operations.hpp"

namespace braid::testing {
namespace {

TEST(ThreadRunner, ChunksCoverTheRangeExactly) {
  for (std::size_t count : {0, 1, 7, 100, 1001}) {
    for (unsigned workers : {1u, 2u, 3u, 8u}) {
      std::size_t expected_begin = 0;
      for (unsigned w = 0; w < workers; ++w) {
        const chunk c = chunk_of(count, workers, w);
        EXPECT_EQ(c.begin, expected_begin);
        EXPECT_LE(c.end - c.begin, count / workers + 1);
        expected_begin = c.end;
      }
      EXPECT_EQ(expected_begin, count);
    }
  }
}

TEST(ThreadRunner, RunParallelDeliversEveryIndexOnce) {
  for (unsigned threads : {1u, 2u, 4u}) {
    thread_runner runner(threads);
    EXPECT_EQ(runner.size(), threads);
    for (int repeat = 0; repeat < 3; ++repeat) {
      const std::size_t count = 3001;
      std::vector<std::atomic<int>> deliveries(count);
      std::vector<std::int64_t> results(count, -1);
      run_parallel(runner, interleaved_scheduler{16}, count,
                   [](std::size_t i) { return counted_chain<interleaved>(i, 2); },
                   [&](std::size_t index, std::int64_t result) {
                     deliveries[index].fetch_add(1);
                     results[index] = result;
                   });
      for (std::size_t i = 0; i < count; ++i) {
        ASSERT_EQ(deliveries[i].load(), 1);
        ASSERT_EQ(results[i], expected(i));
      }
    }
  }
}

TEST(ThreadRunner, ExceptionsReachTheCaller) {
  thread_runner runner(2);
  EXPECT_THROW(run_parallel(runner, interleaved_scheduler{8}, 500,
                            [](std::size_t i) { return counted_coro<interleaved>(i, failure_at{400}); },
                            [](std::size_t, std::int64_t) {}),
               std::runtime_error);
  // The runner is still usable afterwards.
  std::atomic<int> ran{0};
  runner.run([&](unsigned) { ran.fetch_add(1); });
  EXPECT_EQ(ran.load(), 2);
}

TEST(ThreadRunner, ReportsItsCpus) {
  thread_runner runner(2);
  ASSERT_EQ(runner.cpus().size(), 2u);
  if (runner.pinned()) {
    for (int cpu : runner.cpus()) EXPECT_GE(cpu, 0);
  }
  EXPECT_FALSE(available_cpus().empty());
}

}  // namespace
}  // namespace braid::testing
