// What the concurrent index tests share: a failure log that threads append to (gtest's
// assertions are reported from the main thread afterwards), a start line that every thread
// reaches before any begins, so that readers overlap the writers, the check of the values
// readers see, and the state and run of the writer and reader threads.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
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

// Writers store (step << 32) | check(key): a reader's value must carry its key's check, and a
// key's values never go back to an older step.
template <class Key>
class written_value_check {
 public:
  written_value_check(failure_log& failures, std::atomic<std::uint64_t>& checked) noexcept
      : failures_(failures), checked_(checked) {}

  // `value`, read for `key`, whose check is `key_check`.
  void operator()(const Key& key, std::uint32_t key_check, const std::optional<std::uint64_t>& value) {
    if (!value) return;
    if (static_cast<std::uint32_t>(*value) != key_check) {
      failures_.add("a get returned a value that was never written for its key");
      return;
    }
    std::uint64_t& newest = newest_step_[key];
    if ((*value >> 32) < newest) failures_.add("a key's value went back to an older write");
    newest = std::max(newest, *value >> 32);
    checked_.fetch_add(1, std::memory_order_relaxed);
  }

 private:
  failure_log& failures_;
  std::atomic<std::uint64_t>& checked_;
  std::unordered_map<Key, std::uint64_t> newest_step_;  // per key, the newest step seen
};

// What the writer and reader threads of one test share: the start line (readers overlap the
// writers), the failure log, and the counts of writers done and of reads checked.
class writer_reader_threads {
 public:
  writer_reader_threads(int writers, int readers) noexcept : start(writers + readers), writers_(writers), readers_(readers) {}

  start_line start;
  failure_log failures;
  std::atomic<int> writers_done{0};
  std::atomic<std::uint64_t> reads_checked{0};

  // Whether some writer is still writing.
  [[nodiscard]] bool writing() const noexcept { return writers_done.load() < writers_; }

  // Runs writer(0 .. writers - 1) and reader(0 .. readers - 1) on threads of their own, joins
  // them, and reports what they logged.
  template <class Writer, class Reader>
  void run_threads(Writer& writer, Reader& reader) {
    std::vector<std::thread> threads;
    for (int id = 0; id < writers_; ++id) threads.emplace_back(writer, id);
    for (int id = 0; id < readers_; ++id) threads.emplace_back(reader, id);
    for (auto& thread : threads) thread.join();
    for (const auto& message : failures.messages) ADD_FAILURE() << message;
  }

 private:
  int writers_;
  int readers_;
};

}  // namespace braid::testing
