// fiber<T>: the stackful comparator returns what the coroutine returns, under every
// scheduler; exceptions; destroying an unfinished fiber unwinds its stack.
#include <gtest/gtest.h>

#include <vector>

#include "core/test_operations.hpp"

namespace braid::testing {
namespace {

TEST(Fiber, ResultsEqualCoroutineResults) {
  std::vector<std::size_t> inputs(500);
  for (std::size_t i = 0; i < inputs.size(); ++i) inputs[i] = (i * 7919) % 997;
  for (std::size_t group : {1, 2, 3, 7, 16, 64}) {
    auto from_coroutines =
        run(interleaved_scheduler{group}, inputs, [](std::size_t i) { return counted_coro<interleaved>(i); });
    auto from_fibers = run(interleaved_scheduler{group}, inputs, [](std::size_t i) { return counted_fiber(i); });
    EXPECT_EQ(from_coroutines, from_fibers) << "group " << group;
    auto batched_fibers = run(batched_scheduler{group}, inputs, [](std::size_t i) { return counted_fiber(i); });
    EXPECT_EQ(from_coroutines, batched_fibers) << "batched group " << group;
  }
  auto sequential_fibers = run(sequential_scheduler{}, inputs, [](std::size_t i) { return counted_fiber(i); });
  auto sequential_coroutines =
      run(sequential_scheduler{}, inputs, [](std::size_t i) { return counted_coro<sequential>(i); });
  EXPECT_EQ(sequential_fibers, sequential_coroutines);
}

TEST(Fiber, SuspendsOncePerFetch) {
  auto op = counted_fiber(5);  // suspensions(5) == 2
  ASSERT_EQ(suspensions(5), 2u);
  int resumes = 0;
  while (!op.done()) {
    op.resume();
    ++resumes;
  }
  EXPECT_EQ(resumes, 2);
  EXPECT_EQ(op.take_result(), expected(5));
}

TEST(Fiber, ExceptionsAreRethrownByTakeResult) {
  auto op = counted_fiber(3, failure_at{3});
  while (!op.done()) op.resume();
  EXPECT_THROW(op.take_result(), std::runtime_error);
}

TEST(Fiber, DestroyingAnUnfinishedFiberUnwindsItsStack) {
  const std::int64_t live_before = frame_pool::statistics().live_frames;
  int destroyed = 0;
  {
    fiber<int> op([&destroyed](fiber_context& context) {
      destruction_counter g{&destroyed};
      context.suspend();
      context.suspend();
      return 1;
    });
    op.resume();
    ASSERT_FALSE(op.done());
    EXPECT_EQ(destroyed, 0);
  }
  EXPECT_EQ(destroyed, 1) << "the local on the fiber's stack was destroyed";
  EXPECT_EQ(frame_pool::statistics().live_frames, live_before) << "stack and state returned to the pool";
}

TEST(Fiber, VoidFibers) {
  int effect = 0;
  sequential_scheduler{}.run(
      3,
      [&](std::size_t i) {
        return fiber<void>([&effect, i](fiber_context& context) {
          context.suspend();
          effect += static_cast<int>(i) + 1;
        });
      },
      [](std::size_t) {});
  EXPECT_EQ(effect, 6);
}

}  // namespace
}  // namespace braid::testing
