// braid-test: concurrent
// Thread sweeps: a technique's pass split over pinned workers, and --threads capped at the CPUs.
#include <gtest/gtest.h>

#include <atomic>
#include <numeric>

#include "braid/core/thread_runner.hpp"
#include "experiment.hpp"
#include "threads.hpp"

namespace braid::bench {
namespace {

TEST(Threads, APassCoversEveryOperationOnceWhateverTheThreadCount) {
  constexpr std::size_t operations = 10'001;
  std::uint64_t expected = 0;
  for (std::size_t i = 0; i < operations; ++i) expected += i * i;
  for (unsigned threads : thread_sweep_to_cores()) {
    worker_team team(threads);
    EXPECT_EQ(team.size(), threads);
    std::atomic<std::size_t> visited{0};
    const technique_run run = team.technique("squares", operations, [&](std::size_t begin, std::size_t end) {
      std::uint64_t sum = 0;
      for (std::size_t i = begin; i < end; ++i) sum += i * i;
      visited += end - begin;
      return sum;
    });
    EXPECT_EQ(run.name, "squares");
    EXPECT_EQ(run.run(), expected) << threads << " threads";
    EXPECT_EQ(run.run(), expected) << threads << " threads, second pass";
    EXPECT_EQ(visited.load(), 2 * operations);
  }
}

TEST(Threads, TheSweepEndsAtTheCpuCount) {
  const std::vector<unsigned> sweep = thread_sweep_to_cores();
  ASSERT_FALSE(sweep.empty());
  EXPECT_EQ(sweep.front(), 1u);
  EXPECT_EQ(sweep.back(), available_cpus().size());
  EXPECT_TRUE(std::is_sorted(sweep.begin(), sweep.end()));
}

TEST(Threads, MoreThreadsThanCpusIsAUsageError) {
  const experiment definition{.name = "threaded", .reproduces = "-", .summary = "-", .techniques = {},
                              .accepted = accepts_threads, .run = [](run_context&) {}};
  options given;
  given.threads = {static_cast<unsigned>(available_cpus().size())};
  EXPECT_NO_THROW(check_options(definition, given));
  given.threads.push_back(static_cast<unsigned>(available_cpus().size()) + 1);
  try {
    check_options(definition, given);
    FAIL() << "accepted more threads than CPUs";
  } catch (const usage_error& error) {
    EXPECT_NE(std::string(error.what()).find("--threads"), std::string::npos);
  }
}

}  // namespace
}  // namespace braid::bench
