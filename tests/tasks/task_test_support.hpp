// Helpers shared by the task-runtime tests.
#pragma once

#include <atomic>
#include <cstdint>

#include "braid/tasks/all.hpp"

namespace braid::tasks::testing {

// Stops the runtime when the last of `count` tasks reports done.
class completion {
 public:
  explicit completion(std::int64_t count) noexcept : left_(count) {}
  void done(worker& self) noexcept {
    if (left_.fetch_sub(1, std::memory_order_acq_rel) == 1) self.stop();
  }
  [[nodiscard]] std::int64_t left() const noexcept { return left_.load(); }

 private:
  std::atomic<std::int64_t> left_;
};

// Counts constructions and destructions of tasks that carry one.
struct lifetime_counter {
  std::atomic<int> constructed{0};
  std::atomic<int> destroyed{0};
};

// A task that records the worker it ran on and reports completion.
struct recording_task : annotated_task<recording_task> {
  recording_task(std::atomic<int>* runs_on_worker, completion* finished) noexcept
      : runs_on_worker_(runs_on_worker), finished_(finished) {}
  task_result execute(worker& self) {
    runs_on_worker_[self.id()].fetch_add(1);
    finished_->done(self);
    return task_result::remove();
  }
  std::atomic<int>* runs_on_worker_;
  completion* finished_;
};

// A test object: two counters a writer keeps equal, and a reader checks.
struct counter_pair : resource {
  std::atomic<std::uint64_t> first{0};
  std::atomic<std::uint64_t> second{0};
};

inline runtime_config test_config(unsigned workers) {
  runtime_config config;
  config.workers = workers;
  return config;
}

}  // namespace braid::tasks::testing
