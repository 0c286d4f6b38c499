#include "braid/core/thread_runner.hpp"

#include <pthread.h>
#include <sched.h>

namespace braid {

std::vector<int> available_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    }
  }
  if (cpus.empty()) cpus.push_back(0);
  return cpus;
}

namespace {

bool pin_to(std::thread& thread, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(thread.native_handle(), sizeof(set), &set) == 0;
}

}  // namespace

thread_runner::thread_runner(unsigned threads) {
  if (threads == 0) threads = 1;
  const std::vector<int> cpus = available_cpus();
  workers_.reserve(threads);
  for (unsigned index = 0; index < threads; ++index) {
    workers_.emplace_back([this, index] { work(index); });
    const int cpu = cpus[index % cpus.size()];
    const bool ok = pin_to(workers_.back(), cpu);
    pinned_ = pinned_ && ok;
    cpus_.push_back(ok ? cpu : -1);
  }
}

thread_runner::~thread_runner() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void thread_runner::run(const std::function<void(unsigned)>& body) {
  std::unique_lock lock(mutex_);
  body_ = &body;
  running_ = size();
  failure_ = nullptr;
  ++generation_;
  wake_.notify_all();
  finished_.wait(lock, [this] { return running_ == 0; });
  body_ = nullptr;
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

void thread_runner::work(unsigned index) {
  unsigned long seen = 0;
  for (;;) {
    const std::function<void(unsigned)>* body = nullptr;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      body = body_;
    }
    std::exception_ptr failure;
    try {
      (*body)(index);
    } catch (...) {
      failure = std::current_exception();
    }
    std::lock_guard lock(mutex_);
    if (failure && !failure_) failure_ = failure;
    if (--running_ == 0) finished_.notify_all();
  }
}

}  // namespace braid
