// thread_runner: N worker threads, each pinned to its own CPU, that run one body per thread
// and wait for the next. Threads are created once and reused, so repeated benchmark runs do
// not pay thread creation. `run_parallel` splits an index range in contiguous chunks, one
// per thread, and runs a scheduler on each; results land at their input index, so the
// per-thread results are merged in input order by construction.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "braid/core/scheduler.hpp"

namespace braid {

// The CPUs this process may run on, in ascending order.
std::vector<int> available_cpus();

class thread_runner {
 public:
  // Starts `threads` workers; worker i is pinned to available_cpus()[i % cpus]. Pinning that
  // the system refuses (a restricted cpuset) leaves the worker unpinned; pinned() tells.
  explicit thread_runner(unsigned threads);
  thread_runner(const thread_runner&) = delete;
  thread_runner& operator=(const thread_runner&) = delete;
  ~thread_runner();

  [[nodiscard]] unsigned size() const noexcept { return static_cast<unsigned>(workers_.size()); }
  [[nodiscard]] bool pinned() const noexcept { return pinned_; }
  // CPU each worker is pinned to (-1 where pinning failed).
  [[nodiscard]] const std::vector<int>& cpus() const noexcept { return cpus_; }

  // Runs body(worker_index) on every worker and returns when all have finished. The first
  // exception a body throws is rethrown here (after every worker finished).
  void run(const std::function<void(unsigned)>& body);

 private:
  void work(unsigned index);

  std::vector<std::thread> workers_;
  std::vector<int> cpus_;
  bool pinned_ = true;

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable finished_;
  const std::function<void(unsigned)>* body_ = nullptr;
  unsigned long generation_ = 0;
  unsigned running_ = 0;
  bool stopping_ = false;
  std::exception_ptr failure_;
};

// Chunk [begin, end) of `count` items that worker `index` of `workers` handles.
struct chunk {
  std::size_t begin;
  std::size_t end;
};
[[nodiscard]] constexpr chunk chunk_of(std::size_t count, unsigned workers, unsigned index) noexcept {
  const std::size_t base = count / workers;
  const std::size_t extra = count % workers;
  const std::size_t begin = index * base + (index < extra ? index : extra);
  return {begin, begin + base + (index < extra ? 1 : 0)};
}

// Runs `sched` on every worker over its chunk of [0, count). launch(index) and
// deliver(index, result) receive global indices and are called concurrently from different
// workers for different indices.
template <scheduler S, class Launch, class Deliver>
void run_parallel(thread_runner& runner, const S& sched, std::size_t count, Launch&& launch,
                  Deliver&& deliver) {
  runner.run([&](unsigned worker) {
    const chunk mine = chunk_of(count, runner.size(), worker);
    sched.run(
        mine.end - mine.begin, [&](std::size_t local) { return launch(mine.begin + local); },
        [&](std::size_t local, auto&&... result) {
          deliver(mine.begin + local, std::forward<decltype(result)>(result)...);
        });
  });
}

}  // namespace braid
