// The frame pool when a thread that used it exits during static destruction: a static object
// built before the pool's first allocation (so destroyed after the pool's registry of blocks,
// had the registry a destructor) owns a thread that allocates and frees frames and leaves from
// that object's destructor, as a user's static thread pool or the task runtime's workers in a
// fuzz target do. The exiting thread hands its free frames to the registry; the registry must
// still be alive then. Before it was made immortal this read freed blocks and a destroyed
// mutex: AddressSanitizer and UBSan (CI's asan build) stop the program; a plain build may not
// notice. No GoogleTest: what is tested happens after main returns.
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include "braid/core/frame_pool.hpp"

namespace {

class thread_that_outlives_main {
 public:
  thread_that_outlives_main() : thread_([this] { run(); }) {}
  ~thread_that_outlives_main() {
    {
      std::lock_guard lock(mutex_);
      leave_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }

  void wait_until_it_used_the_pool() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return used_; });
  }

 private:
  void run() {
    std::vector<void*> frames;
    for (std::size_t bytes = 64; bytes <= 4096; bytes *= 2) frames.push_back(braid::frame_pool::allocate(bytes));
    std::size_t bytes = 64;
    for (void* frame : frames) {
      braid::frame_pool::deallocate(frame, bytes);
      bytes *= 2;
    }
    std::unique_lock lock(mutex_);
    used_ = true;
    changed_.notify_all();
    changed_.wait(lock, [this] { return leave_; });
  }  // the thread's exit returns its free frames to the pool's registry

  std::mutex mutex_;
  std::condition_variable changed_;
  bool used_ = false;
  bool leave_ = false;
  std::thread thread_;
};

}  // namespace

int main() {
  static thread_that_outlives_main worker;  // before any frame: the pool's registry comes later
  worker.wait_until_it_used_the_pool();
  std::puts("frame pool used by a thread that leaves during static destruction");
  return 0;
}
