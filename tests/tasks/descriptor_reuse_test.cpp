// Descriptor reuse: once the workers' caches are warm, spawning and finishing tasks (also
// across workers) takes no memory from the global heap and nothing from the shared
// descriptor heap. It counts calls of the global operator new (global_allocation_counter.hpp).
// (ThreadSanitizer's runtime defines operator new itself: under TSan only the descriptor
// heap's own counters are checked.)
// braid-test: concurrent
#include <gtest/gtest.h>

#include "global_allocation_counter.hpp"
#include "tasks/task_test_support.hpp"

namespace braid::tasks::testing {
namespace {

// Fans out: each task spawns 4 children until `depth`, on alternating workers (a descriptor
// is then often freed by another worker than the one that allocated it) or on its own.
struct fan_task : annotated_task<fan_task> {
  fan_task(int levels, bool across, completion* done) noexcept : depth(levels), across_workers(across), finished(done) {}
  task_result execute(worker& self) {
    if (depth > 0) {
      for (std::uint16_t child = 0; child < 4; ++child) {
        auto* next = self.allocate<fan_task>(depth - 1, across_workers, finished);
        next->annotate_worker(across_workers ? child % 2 : self.id());
        self.spawn(*next);
      }
    }
    finished->done(self);
    return task_result::remove();
  }
  int depth;
  bool across_workers;
  completion* finished;
};

constexpr int depth = 4;                                                 // up to 256 tasks queued at once
constexpr std::int64_t tasks_per_round = (1 << (2 * (depth + 1))) / 3;  // 1 + 4 + ... + 4^4

void run_round(runtime& tasks, bool across_workers) {
  completion finished(tasks_per_round);
  auto* root = tasks.allocate<fan_task>(depth, across_workers, &finished);
  root->annotate_worker(0);
  tasks.spawn(*root);
  tasks.run();
  ASSERT_EQ(finished.left(), 0);
}

TEST(DescriptorReuse, CountingReallyCounts) {
  if (!BRAID_COUNTS_GLOBAL_ALLOCATIONS) GTEST_SKIP() << "operator new belongs to the sanitizer runtime";
  const std::size_t before = global_allocations.load();
  void* probe = ::operator new(16);
  EXPECT_EQ(global_allocations.load(), before + 1);
  ::operator delete(probe);
}

TEST(DescriptorReuse, WarmWorkersSpawnAndFinishTasksWithoutTheHeap) {
  for (bool across_workers : {false, true}) {
    runtime tasks(test_config(2));
    run_round(tasks, across_workers);  // warm-up: caches take their batches, queues and vectors grow
    run_round(tasks, across_workers);
    const descriptor_heap_statistics warm = tasks.statistics().descriptors;
    const std::size_t before = global_allocations.load();
    for (int round = 0; round < 3; ++round) run_round(tasks, across_workers);
    if (BRAID_COUNTS_GLOBAL_ALLOCATIONS) {
      EXPECT_EQ(global_allocations.load() - before, 0u)
          << "spawning and finishing " << 3 * tasks_per_round << " tasks touched the global heap";
    }
    const descriptor_heap_statistics after = tasks.statistics().descriptors;
    EXPECT_EQ(after.arenas, warm.arenas) << "no fresh descriptor arena after warm-up";
    if (!across_workers) {
      // Allocated and freed on one worker, fewer in flight than a cache keeps: the worker's
      // cache serves everything.
      EXPECT_EQ(after.batches_handed_out, warm.batches_handed_out);
      EXPECT_EQ(after.batches_taken_back, warm.batches_taken_back);
    }
  }
}

}  // namespace
}  // namespace braid::tasks::testing
