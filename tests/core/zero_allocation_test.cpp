// The zero-allocation property: once the frame pool is warm, an interleaved run (coroutine
// frames, task chains, fiber stacks, the scheduler's ring) makes no global heap allocation.
// It counts calls of the global operator new (global_allocation_counter.hpp).
#include <gtest/gtest.h>

#include "core/test_operations.hpp"
#include "global_allocation_counter.hpp"

namespace braid::testing {
namespace {

template <class Scheduler, class MakeOperation>
std::size_t allocations_of_run(const Scheduler& scheduler, std::size_t count, MakeOperation make) {
  std::int64_t checksum = 0;
  auto run_once = [&] {
    scheduler.run(count, make, [&](std::size_t, std::int64_t result) { checksum += result; });
  };
  run_once();  // warm-up: the pool carves its blocks
  const std::size_t before = global_allocations.load();
  run_once();
  run_once();
  const std::size_t after = global_allocations.load();
  EXPECT_GT(checksum, 0);
  return after - before;
}

TEST(ZeroAllocation, CountingReallyCounts) {
  const std::size_t before = global_allocations.load();
  void* probe = ::operator new(16);  // a direct call: not subject to allocation elision
  EXPECT_EQ(global_allocations.load(), before + 1) << "the replacement operator new is in use";
  ::operator delete(probe);
}

TEST(ZeroAllocation, InterleavedCoroRunsStayOffTheHeap) {
  for (std::size_t group : {1, 16, 256}) {
    EXPECT_EQ(allocations_of_run(interleaved_scheduler{group}, 5000,
                                 [](std::size_t i) { return counted_coro<interleaved>(i); }),
              0u)
        << "group " << group;
  }
}

TEST(ZeroAllocation, TaskChainsStayOffTheHeap) {
  EXPECT_EQ(allocations_of_run(interleaved_scheduler{32}, 5000,
                               [](std::size_t i) { return counted_chain<interleaved>(i, 5); }),
            0u);
  EXPECT_EQ(allocations_of_run(batched_scheduler{32}, 5000,
                               [](std::size_t i) { return counted_chain<interleaved>(i, 5); }),
            0u);
}

TEST(ZeroAllocation, FibersStayOffTheHeap) {
  EXPECT_EQ(allocations_of_run(interleaved_scheduler{16}, 2000, [](std::size_t i) { return counted_fiber(i); }),
            0u);
}

}  // namespace
}  // namespace braid::testing
