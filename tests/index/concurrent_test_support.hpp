// What the concurrent index tests share: a failure log that threads append to (gtest's
// assertions are reported from the main thread afterwards), and a start line that every
// thread reaches before any begins, so that readers overlap the writers.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace braid::testing {

// Keeps the first 20 failures the threads report.
struct failure_log {
  std::mutex mutex;
  std::vector<std::string> messages;
  void add(std::string message) {
    std::lock_guard lock(mutex);
    if (messages.size() < 20) messages.push_back(std::move(message));
  }
};

// Every one of `threads` threads calls arrive_and_wait(); none returns before all arrived.
class start_line {
 public:
  explicit start_line(int threads) noexcept : threads_(threads) {}
  void arrive_and_wait() noexcept {
    arrived_.fetch_add(1);
    while (arrived_.load() < threads_) std::this_thread::yield();
  }

 private:
  const int threads_;
  std::atomic<int> arrived_{0};
};

}  // namespace braid::testing
