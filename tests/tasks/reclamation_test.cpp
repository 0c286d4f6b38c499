// Epoch-based reclamation never frees what a running task can still reach. Readers follow a
// shared pointer and hold the object while writers on the other worker replace and retire
// it. A premature free is a heap-use-after-free under AddressSanitizer, and a dead magic
// value in the plain build.
// braid-test: concurrent
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "tasks/task_test_support.hpp"

namespace braid::tasks::testing {
namespace {

constexpr std::uint64_t alive = 0xA11CE;
constexpr std::uint64_t dead = 0xDEAD;

struct box : resource {
  explicit box(lifetime_counter* lives) noexcept : lifetimes(lives) { ++lifetimes->constructed; }
  ~box() {
    magic.store(dead, std::memory_order_relaxed);
    ++lifetimes->destroyed;
  }
  std::atomic<std::uint64_t> magic{alive};
  lifetime_counter* lifetimes;
};

struct shared_state {
  std::atomic<box*> current{nullptr};
  std::atomic<std::uint64_t> dead_reads{0};
  lifetime_counter boxes;
};

runtime_config reclaiming_config(reclamation mode) {
  runtime_config config = test_config(2);
  config.reclaim = mode;
  config.epoch_interval = std::chrono::microseconds{0};  // advance at every refill: reclaim eagerly
  return config;
}

TEST(Reclamation, ARetiredObjectOutlivesTheTaskThatHoldsIt) {
  for (reclamation mode : {reclamation::per_refill, reclamation::per_task}) {
    shared_state state;
    state.current = new box(&state.boxes);
    std::atomic<bool> holding{false};
    std::atomic<bool> churned{false};
    std::atomic<int> destroyed_while_held{-1};
    {
      runtime tasks(reclaiming_config(mode));
      // Worker 0: takes the object, then waits while worker 1 retires it and churns refills.
      auto* reader = tasks.allocate_lambda([&](worker&) {
        box* held = state.current.load(std::memory_order_acquire);
        holding = true;
        while (!churned.load()) std::this_thread::yield();
        if (held->magic.load(std::memory_order_relaxed) != alive) ++state.dead_reads;
        destroyed_while_held = state.boxes.destroyed.load();
        return task_result::stop();
      });
      reader->annotate_worker(0);
      // Worker 1: replaces and retires the object, then runs 1000 refills' worth of tasks
      // (each refill advances the epoch and tries to reclaim).
      struct churn : annotated_task<churn> {
        explicit churn(std::atomic<bool>* finished) noexcept : done(finished) {}
        task_result execute(worker&) {
          if (--left == 0) {
            done->store(true);
            return task_result::remove();
          }
          return task_result::succeed(*this);
        }
        std::atomic<bool>* done;
        int left = 1000;
      };
      auto* writer = tasks.allocate_lambda([&](worker& self) {
        while (!holding.load()) std::this_thread::yield();
        box* old = state.current.exchange(new box(&state.boxes), std::memory_order_acq_rel);
        self.retire(old);
        self.spawn(*self.allocate<churn>(&churned));
      });
      writer->annotate_worker(1);
      tasks.spawn(*reader);
      tasks.spawn(*writer);
      tasks.run();
      EXPECT_EQ(state.dead_reads.load(), 0u) << to_string(mode);
      EXPECT_EQ(destroyed_while_held.load(), 0) << to_string(mode) << ": freed while a running task held it";
    }
    EXPECT_EQ(state.boxes.destroyed.load(), 1) << "the runtime reclaims what is retired when it is destroyed";
    delete state.current.load();
  }
}

// A chain of `left` tasks, the first of which retires `retired` (when given).
struct retiring_chain : annotated_task<retiring_chain> {
  retiring_chain(int steps, box* retired) noexcept : left(steps), to_retire(retired) {}
  task_result execute(worker& self) {
    if (to_retire != nullptr) {
      self.retire(to_retire);
      to_retire = nullptr;
    }
    if (--left == 0) return task_result::stop();
    return task_result::succeed(*this);
  }
  int left;
  box* to_retire;
};

TEST(Reclamation, ABusyWorkerReclaimsAfterItsStatisticsAreReset) {
  lifetime_counter boxes;
  runtime_config config = test_config(1);
  config.reclaim = reclamation::per_refill;
  config.epoch_interval = std::chrono::microseconds{0};
  runtime tasks(config);
  tasks.spawn(*tasks.allocate<retiring_chain>(5000, nullptr));
  tasks.run();
  tasks.reset_statistics();
  // One chain keeps the worker busy (it never idles): the epoch moves and the box is freed
  // within the run only through the worker's periodic look at the clock.
  tasks.spawn(*tasks.allocate<retiring_chain>(1000, new box(&boxes)));
  tasks.run();
  EXPECT_EQ(tasks.statistics().tasks.retired, 1u);
  EXPECT_EQ(tasks.statistics().tasks.reclaimed, 1u);
  EXPECT_EQ(boxes.destroyed.load(), 1);
}

struct reader_task : annotated_task<reader_task> {
  reader_task(shared_state* shared, completion* done) noexcept : state(shared), finished(done) {}
  task_result execute(worker& self) {
    box* held = state->current.load(std::memory_order_acquire);
    for (int read = 0; read < 64; ++read) {
      if (held->magic.load(std::memory_order_relaxed) != alive) ++state->dead_reads;
    }
    finished->done(self);
    return task_result::remove();
  }
  shared_state* state;
  completion* finished;
};

struct replacing_writer : annotated_task<replacing_writer> {
  replacing_writer(shared_state* shared, completion* done) noexcept : state(shared), finished(done) {}
  task_result execute(worker& self) {
    box* old = state->current.exchange(new box(&state->boxes), std::memory_order_acq_rel);
    self.retire(old);
    finished->done(self);
    return task_result::remove();
  }
  shared_state* state;
  completion* finished;
};

TEST(Reclamation, ReadersAndReplacingWritersOnTwoWorkers) {
  for (reclamation mode : {reclamation::none, reclamation::per_refill, reclamation::per_task}) {
    shared_state state;
    state.current = new box(&state.boxes);
    constexpr int per_worker = 3000;
    std::uint64_t reclaimed_during_run = 0;
    {
      runtime tasks(reclaiming_config(mode));
      completion finished(2 * per_worker);
      for (std::uint16_t origin = 0; origin < 2; ++origin) {
        auto* spawner = tasks.allocate_lambda([&](worker& self) {
          for (int index = 0; index < per_worker; ++index) {
            if (index % 4 == 0) self.spawn(*self.allocate<replacing_writer>(&state, &finished));
            else self.spawn(*self.allocate<reader_task>(&state, &finished));
          }
        });
        spawner->annotate_worker(origin);
        tasks.spawn(*spawner);
      }
      tasks.run();
      reclaimed_during_run = tasks.statistics().tasks.reclaimed;
      EXPECT_EQ(tasks.statistics().tasks.retired, 2u * per_worker / 4);
    }
    EXPECT_EQ(state.dead_reads.load(), 0u) << to_string(mode);
    if (mode == reclamation::none) {
      EXPECT_EQ(reclaimed_during_run, 0u) << "none: kept until the runtime is destroyed";
    } else {
      EXPECT_GT(reclaimed_during_run, 0u) << to_string(mode) << ": reclamation made progress while running";
    }
    EXPECT_EQ(state.boxes.destroyed.load(), state.boxes.constructed.load() - 1) << to_string(mode);
    delete state.current.load();
  }
}

}  // namespace
}  // namespace braid::tasks::testing
