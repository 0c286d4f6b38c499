// Every synchronization primitive under contention: two workers run interleaved writers (two
// counters, incremented one after the other by a non-atomic read-modify-write) and readers
// (which see both counters equal only if no writer was inside). A missing exclusion shows as
// a lost increment or a torn read. Runs under ThreadSanitizer in CI.
// braid-test: concurrent
#include <gtest/gtest.h>

#include <atomic>

#include "tasks/task_test_support.hpp"

namespace braid::tasks::testing {
namespace {

struct contention {
  std::atomic<std::uint64_t> torn_reads{0};
  std::atomic<std::uint64_t> reads{0};
};

// Spins for a while so that a writer's two increments are far apart.
void widen_window() {
  for (int spin = 0; spin < 32; ++spin) __asm__ volatile("" ::: "memory");
}

struct writer_task : annotated_task<writer_task> {
  writer_task(completion* done) noexcept : finished(done) {}
  task_result execute(worker& self) {
    auto& pair = *object_as<counter_pair>();
    pair.first.store(pair.first.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    widen_window();
    pair.second.store(pair.second.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    finished->done(self);
    return task_result::remove();
  }
  completion* finished;
};

struct reader_task : annotated_task<reader_task> {
  reader_task(contention* seen, completion* done) noexcept : observed(seen), finished(done) {}
  task_result execute(worker& self) {
    const auto& pair = *object_as<counter_pair>();
    first = pair.first.load(std::memory_order_relaxed);
    widen_window();
    second = pair.second.load(std::memory_order_relaxed);
    // Judged only once the read is known to be consistent (after validation when optimistic).
    self.when_validated([](task_descriptor& task, worker& on) {
      auto& read = static_cast<reader_task&>(task);
      read.observed->reads.fetch_add(1);
      if (read.first != read.second) read.observed->torn_reads.fetch_add(1);
      read.finished->done(on);
    });
    return task_result::remove();
  }
  contention* observed;
  completion* finished;
  std::uint64_t first = 0;
  std::uint64_t second = 0;
};

struct outcome {
  std::uint64_t first;
  std::uint64_t second;
  std::uint64_t reads;
  std::uint64_t torn;
  worker_statistics statistics;
};

outcome contend(primitive protocol, int writers_per_worker, int readers_per_worker) {
  runtime tasks(test_config(2));
  counter_pair pair;
  const resource_ptr object = tasks.annotate(&pair, {.protocol = protocol, .owner = 1});
  contention seen;
  completion finished(2 * (writers_per_worker + readers_per_worker));
  for (std::uint16_t origin = 0; origin < 2; ++origin) {
    auto* spawner = tasks.allocate_lambda([&](worker& self) {
      for (int index = 0; index < writers_per_worker + readers_per_worker; ++index) {
        task_descriptor* task = nullptr;
        if (index % (1 + readers_per_worker / writers_per_worker) == 0 && writers_per_worker > 0) {
          task = self.allocate<writer_task>(&finished);
          task->annotate(object, access_intent::write);
        } else {
          task = self.allocate<reader_task>(&seen, &finished);
          task->annotate(object, access_intent::readonly);
        }
        self.spawn(*task);
      }
    });
    spawner->annotate_worker(origin);
    tasks.spawn(*spawner);
  }
  tasks.run();
  return {pair.first.load(), pair.second.load(), seen.reads.load(), seen.torn_reads.load(), tasks.statistics().tasks};
}

class EveryPrimitive : public ::testing::TestWithParam<primitive> {};

TEST_P(EveryPrimitive, NoLostUpdateAndNoTornRead) {
  constexpr int writers = 2000;
  constexpr int readers = 2000;
  // The spawner alternates writer and reader tasks.
  const outcome result = contend(GetParam(), writers, readers);
  const auto writes = static_cast<std::uint64_t>(2 * writers);
  const auto total_reads = static_cast<std::uint64_t>(2 * readers);
  EXPECT_EQ(result.first, writes) << to_string(GetParam()) << ": lost increments";
  EXPECT_EQ(result.second, writes) << to_string(GetParam());
  EXPECT_EQ(result.reads, total_reads);
  EXPECT_EQ(result.torn, 0u) << to_string(GetParam()) << ": a reader saw a writer half done";
}

TEST(TransactionalPrimitive, CountsEveryRunAsCommittedOrUnderTheLatch) {
  constexpr int writers = 500;
  constexpr int readers = 500;
  const outcome result = contend(primitive::transactional, writers, readers);
  const worker_statistics& counts = result.statistics;
  const auto object_tasks = static_cast<std::uint64_t>(2 * (writers + readers));
  if (!hardware_transactions_supported()) {
    // The runtime gave the object the fallback's primitive: nothing ran transactionally.
    EXPECT_EQ(counts.htm_commits + counts.htm_fallback_runs + counts.htm_aborts(), 0u);
    return;
  }
  EXPECT_EQ(counts.htm_commits + counts.htm_fallback_runs, object_tasks);
  // An attempt that aborted was retried or gave up to the latch; a run that committed at
  // once aborted nothing. So aborts never exceed the retry budget, and a run without any
  // abort cannot be under the latch unless RTM is not used (a ThreadSanitizer build).
  EXPECT_LE(counts.htm_aborts(), static_cast<std::uint64_t>(worker::transaction_attempts) * object_tasks);
  if (counts.htm_commits > 0) {
    EXPECT_GE(counts.htm_aborts(), counts.htm_fallback_runs);
  }
}

INSTANTIATE_TEST_SUITE_P(Contention, EveryPrimitive,
                         ::testing::Values(primitive::exclusive_latch, primitive::reader_writer_latch,
                                           primitive::schedule_all, primitive::schedule_writer, primitive::olfit,
                                           primitive::transactional),
                         [](const ::testing::TestParamInfo<primitive>& info) {
                           std::string name = to_string(info.param);
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace braid::tasks::testing
