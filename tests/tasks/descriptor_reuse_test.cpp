// Descriptor reuse: once the workers' caches are warm, spawning and finishing tasks (also
// across workers) takes no memory from the global heap and no fresh arena from the
// descriptor heap. This file replaces the global operator new to count calls, so it is its
// own executable.
// braid-test: concurrent
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "tasks/task_test_support.hpp"

namespace {
std::atomic<std::size_t> global_allocations{0};
}

void* operator new(std::size_t bytes) {
  global_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* memory = std::malloc(bytes == 0 ? 1 : bytes)) return memory;
  throw std::bad_alloc();
}
void* operator new[](std::size_t bytes) { return ::operator new(bytes); }
void* operator new(std::size_t bytes, std::align_val_t alignment) {
  global_allocations.fetch_add(1, std::memory_order_relaxed);
  const auto align = static_cast<std::size_t>(alignment);
  if (void* memory = std::aligned_alloc(align, (bytes + align - 1) / align * align)) return memory;
  throw std::bad_alloc();
}
void* operator new[](std::size_t bytes, std::align_val_t alignment) { return ::operator new(bytes, alignment); }
void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete[](void* memory) noexcept { std::free(memory); }
void operator delete[](void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete(void* memory, std::align_val_t) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t, std::align_val_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::align_val_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::size_t, std::align_val_t) noexcept { std::free(memory); }

namespace braid::tasks::testing {
namespace {

// Fans out: each task spawns `fan_out` children on alternating workers until `depth`.
struct fan_task : annotated_task<fan_task> {
  fan_task(int levels, completion* done) noexcept : depth(levels), finished(done) {}
  task_result execute(worker& self) {
    if (depth > 0) {
      for (std::uint16_t child = 0; child < 4; ++child) {
        auto* next = self.allocate<fan_task>(depth - 1, finished);
        next->annotate_worker(child % 2);
        self.spawn(*next);
      }
    }
    finished->done(self);
    return task_result::remove();
  }
  int depth;
  completion* finished;
};

constexpr int depth = 6;
constexpr std::int64_t tasks_per_round = (1 << (2 * (depth + 1))) / 3;  // 1 + 4 + ... + 4^6

void run_round(runtime& tasks) {
  completion finished(tasks_per_round);
  auto* root = tasks.allocate<fan_task>(depth, &finished);
  tasks.spawn(*root);
  tasks.run();
  ASSERT_EQ(finished.left(), 0);
}

TEST(DescriptorReuse, CountingReallyCounts) {
  const std::size_t before = global_allocations.load();
  void* probe = ::operator new(16);
  EXPECT_EQ(global_allocations.load(), before + 1);
  ::operator delete(probe);
}

TEST(DescriptorReuse, WarmWorkersSpawnAndFinishTasksWithoutTheHeap) {
  runtime tasks(test_config(2));
  run_round(tasks);  // warm-up: caches take their batches, queues and vectors grow
  run_round(tasks);
  const std::uint64_t arenas = tasks.statistics().descriptors.arenas;
  std::size_t during_rounds = 0;
  for (int round = 0; round < 3; ++round) {
    completion finished(tasks_per_round);
    auto* root = tasks.allocate<fan_task>(depth, &finished);
    const std::size_t before = global_allocations.load();
    tasks.spawn(*root);
    tasks.run();
    during_rounds += global_allocations.load() - before;
  }
  EXPECT_EQ(during_rounds, 0u) << "spawning and finishing " << 3 * tasks_per_round << " tasks touched the global heap";
  EXPECT_EQ(tasks.statistics().descriptors.arenas, arenas) << "no fresh descriptor arena after warm-up";
}

}  // namespace
}  // namespace braid::tasks::testing
