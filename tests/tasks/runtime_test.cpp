// The task runtime's lifecycle and task results: stop, succeed (one descriptor re-run),
// spawning from outside, exceptions, queued tasks across runs, priorities, squads, the guard.
// braid-test: concurrent
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "tasks/task_test_support.hpp"

namespace braid::tasks::testing {
namespace {

TEST(Runtime, LambdaTaskRunsAndStopsTheRuntime) {
  runtime tasks(test_config(1));
  std::atomic<int> ran_on{-1};
  tasks.spawn(*tasks.allocate_lambda([&](worker& self) {
    ran_on = self.id();
    return task_result::stop();
  }));
  tasks.run();
  EXPECT_EQ(ran_on.load(), 0);
}

struct counting_down : annotated_task<counting_down> {
  counting_down(int steps, lifetime_counter* lives, int* runs) noexcept : left(steps), lifetimes(lives), counted(runs) {
    ++lifetimes->constructed;
  }
  ~counting_down() { ++lifetimes->destroyed; }
  task_result execute(worker&) {
    ++*counted;
    if (--left == 0) return task_result::stop();
    return task_result::succeed(*this);  // the same descriptor runs again
  }
  int left;
  lifetime_counter* lifetimes;
  int* counted;
};

TEST(Runtime, ATaskThatSucceedsItselfReusesOneDescriptor) {
  lifetime_counter lifetimes;
  int runs = 0;
  {
    runtime tasks(test_config(1));
    tasks.spawn(*tasks.allocate<counting_down>(1000, &lifetimes, &runs));
    tasks.run();
  }
  EXPECT_EQ(runs, 1000);
  EXPECT_EQ(lifetimes.constructed.load(), 1);
  EXPECT_EQ(lifetimes.destroyed.load(), 1);
}

TEST(Runtime, TasksSpawnedFromOutsideAreSpreadOverTheWorkers) {
  runtime tasks(test_config(2));
  std::array<std::atomic<int>, 2> runs_on{};
  completion finished(100);
  for (int index = 0; index < 100; ++index) tasks.spawn(*tasks.allocate<recording_task>(runs_on.data(), &finished));
  tasks.run();
  EXPECT_EQ(finished.left(), 0);
  EXPECT_EQ(runs_on[0].load(), 50);
  EXPECT_EQ(runs_on[1].load(), 50);
}

TEST(Runtime, ATaskExceptionLeavesRunAndTheRuntimeStaysUsable) {
  runtime tasks(test_config(2));
  tasks.spawn(*tasks.allocate_lambda([](worker&) -> task_result { throw std::runtime_error("task failed"); }));
  EXPECT_THROW(
      {
        try {
          tasks.run();
        } catch (const std::runtime_error& error) {
          EXPECT_STREQ(error.what(), "task failed");
          throw;
        }
      },
      std::runtime_error);
  bool ran = false;
  tasks.spawn(*tasks.allocate_lambda([&](worker&) {
    ran = true;
    return task_result::stop();
  }));
  tasks.run();
  EXPECT_TRUE(ran);
}

struct counted_task : annotated_task<counted_task> {
  counted_task(lifetime_counter* lives, std::atomic<int>* runs) noexcept : lifetimes(lives), counted(runs) {
    ++lifetimes->constructed;
  }
  ~counted_task() { ++lifetimes->destroyed; }
  task_result execute(worker&) {
    ++*counted;
    return task_result::remove();
  }
  lifetime_counter* lifetimes;
  std::atomic<int>* counted;
};

TEST(Runtime, TasksQueuedAtStopRunNextTimeAndTheDestructorFreesTheRest) {
  lifetime_counter lifetimes;
  std::atomic<int> runs{0};
  {
    runtime tasks(test_config(1));
    tasks.spawn(*tasks.allocate_lambda([](worker&) { return task_result::stop(); }));
    for (int index = 0; index < 10; ++index) tasks.spawn(*tasks.allocate<counted_task>(&lifetimes, &runs));
    tasks.run();
    EXPECT_EQ(runs.load(), 0) << "the worker stops after the stopping task, the others stay queued";
    tasks.spawn(*tasks.allocate_lambda([](worker&) { return task_result::stop(); }));
    tasks.run();
    EXPECT_EQ(runs.load(), 10);
    for (int index = 0; index < 5; ++index) tasks.spawn(*tasks.allocate<counted_task>(&lifetimes, &runs));
  }
  EXPECT_EQ(runs.load(), 10);
  EXPECT_EQ(lifetimes.constructed.load(), 15);
  EXPECT_EQ(lifetimes.destroyed.load(), 15);
}

// A chain of normal-priority steps on one worker and one low-priority task: with
// low_priority_below = 1 the low task waits for an empty buffer (the chain's end); with 16 it
// joins the buffer as soon as few normal tasks are buffered.
struct chain_step : annotated_task<chain_step> {
  chain_step(std::vector<int>* log, int steps) noexcept : order(log), left(steps) {}
  task_result execute(worker&) {
    order->push_back(left);
    if (--left == 0) return task_result::remove();
    return task_result::succeed(*this);
  }
  std::vector<int>* order;
  int left;
};

std::vector<int> run_chain_beside_low_task(unsigned threshold) {
  runtime_config config = test_config(1);
  config.low_priority_below = threshold;
  runtime tasks(config);
  std::vector<int> order;
  auto* low = tasks.allocate_lambda([&](worker&) {
    order.push_back(-1);
    return task_result::stop();
  });
  low->annotate(priority::low);
  tasks.spawn(*tasks.allocate<chain_step>(&order, 50));
  tasks.spawn(*low);
  tasks.run();
  return order;
}

TEST(Runtime, LowPriorityTasksWaitWhileEnoughNormalTasksAreBuffered) {
  const std::vector<int> strict = run_chain_beside_low_task(1);
  ASSERT_EQ(strict.size(), 51u);
  EXPECT_EQ(strict.back(), -1) << "threshold 1: the low task runs only once nothing normal is left";

  const std::vector<int> eager = run_chain_beside_low_task(16);
  ASSERT_FALSE(eager.empty());
  EXPECT_LT(eager.size(), 51u) << "threshold 16: the low task joined the nearly empty buffer and stopped the runtime";
  EXPECT_EQ(eager.back(), -1);
}

TEST(Runtime, SquadTasksWaitForTheFlushAndRunBackToBackOnTheOwner) {
  runtime tasks(test_config(2));
  const resource_ptr squad = tasks.new_squad(1);
  std::mutex log_mutex;
  std::vector<std::pair<int, int>> log;  // (task, worker)
  std::atomic<int> ran{0};
  constexpr int members = 20;
  completion finished(members);
  for (int index = 0; index < members; ++index) {
    auto* member = tasks.allocate_lambda([&, index](worker& self) {
      {
        std::lock_guard lock(log_mutex);
        log.emplace_back(index, self.id());
      }
      ++ran;
      finished.done(self);
    });
    member->annotate(squad, access_intent::write);
    tasks.spawn(*member);
  }
  // Nothing runs before the flush: a run that only checks and stops sees no member ran.
  tasks.spawn(*tasks.allocate_lambda([&](worker&) { return task_result::stop(); }));
  tasks.run();
  EXPECT_EQ(ran.load(), 0);
  tasks.flush(squad);
  tasks.run();
  ASSERT_EQ(log.size(), static_cast<std::size_t>(members));
  for (int index = 0; index < members; ++index) {
    EXPECT_EQ(log[static_cast<std::size_t>(index)].first, index) << "in spawn order, back to back";
    EXPECT_EQ(log[static_cast<std::size_t>(index)].second, 1) << "on the squad's owner";
  }
  tasks.delete_squad(squad);
}

TEST(Runtime, GuardRunsTheRuntimeToTheEnd) {
  std::atomic<bool> ran{false};
  {
    runtime_guard guard(test_config(2));
    guard->spawn(*guard->allocate_lambda([&](worker&) {
      ran = true;
      return task_result::stop();
    }));
  }
  EXPECT_TRUE(ran.load());
}

TEST(Runtime, RunsAnyNumberOfTimes) {
  runtime tasks(test_config(2));
  for (int round = 0; round < 5; ++round) {
    std::array<std::atomic<int>, 2> runs_on{};
    completion finished(8);
    for (int index = 0; index < 8; ++index) tasks.spawn(*tasks.allocate<recording_task>(runs_on.data(), &finished));
    tasks.run();
    EXPECT_EQ(runs_on[0].load() + runs_on[1].load(), 8);
  }
}

}  // namespace
}  // namespace braid::tasks::testing
