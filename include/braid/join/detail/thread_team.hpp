// run_on_threads(threads, body): runs body(0) on the calling thread and body(1..threads-1) on
// threads of their own, and returns when all have finished (joining is the synchronization:
// everything a body wrote is visible afterwards). The first exception a body threw is
// rethrown. Threads are created per call: the joins use it once per phase of a run that moves
// megabytes, where creating a thread (tens of microseconds) does not show.
#pragma once

#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace braid::join::detail {

template <class Body>
void run_on_threads(unsigned threads, Body&& body) {
  std::mutex failure_mutex;
  std::exception_ptr failure;
  auto guarded = [&](unsigned index) {
    try {
      body(index);
    } catch (...) {
      std::lock_guard lock(failure_mutex);
      if (!failure) failure = std::current_exception();
    }
  };
  std::vector<std::thread> helpers;
  helpers.reserve(threads > 0 ? threads - 1 : 0);
  try {
    for (unsigned index = 1; index < threads; ++index) helpers.emplace_back(guarded, index);
  } catch (...) {
    for (std::thread& helper : helpers) helper.join();
    throw;
  }
  guarded(0);
  for (std::thread& helper : helpers) helper.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace braid::join::detail
