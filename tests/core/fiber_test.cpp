// fiber<T>: the stackful comparator returns what the coroutine returns, under every
// scheduler; exceptions; destroying an unfinished fiber unwinds its stack; workers are reused
// by the next fiber, never while a function is on them, and only with the stack size asked for.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <thread>
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

TEST(Fiber, ARunMakesOneWorkerPerSlotAndTheNextRunMakesNone) {
  detail::fiber_worker::destroy_idle();
  std::vector<std::size_t> inputs(1000);
  for (std::size_t i = 0; i < inputs.size(); ++i) inputs[i] = i;
  for (std::size_t group : {1, 8, 64}) {
    detail::fiber_worker::destroy_idle();
    const std::uint64_t made_before = detail::fiber_worker::made_on_this_thread();
    auto first = run(interleaved_scheduler{group}, inputs, [](std::size_t i) { return counted_fiber(i); });
    EXPECT_EQ(detail::fiber_worker::made_on_this_thread() - made_before, group) << "group " << group;
    auto second = run(interleaved_scheduler{group}, inputs, [](std::size_t i) { return counted_fiber(i); });
    EXPECT_EQ(detail::fiber_worker::made_on_this_thread() - made_before, group) << "group " << group;
    ASSERT_EQ(first, second);
    for (std::size_t i = 0; i < inputs.size(); ++i) ASSERT_EQ(first[i], expected(i)) << "group " << group;
  }
}

TEST(Fiber, TheNextFiberRunsOnTheStackTheLastOneFinishedOn) {
  // The frame address, not a local's: AddressSanitizer moves locals to a fake stack.
  auto record_frame_address = [](std::uintptr_t& address) {
    return fiber<void>([&address](fiber_context& context) {
      address = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
      context.suspend();
    });
  };
  std::uintptr_t first_address = 0;
  std::uintptr_t second_address = 0;
  auto first = record_frame_address(first_address);
  first.resume();
  ASSERT_TRUE(first.done());
  auto second = record_frame_address(second_address);
  second.resume();
  ASSERT_TRUE(second.done());
  EXPECT_NE(first_address, 0u);
  EXPECT_EQ(first_address, second_address);
}

TEST(Fiber, AnAbandonedFibersWorkerIsNotReused) {
  detail::fiber_worker::destroy_idle();
  const std::uint64_t made_before = detail::fiber_worker::made_on_this_thread();
  int destroyed = 0;
  {
    fiber<int> abandoned([&destroyed](fiber_context& context) {
      destruction_counter guard{&destroyed};
      context.suspend();
      return 1;
    });
  }
  EXPECT_EQ(destroyed, 1);
  auto next = counted_fiber(5);
  while (!next.done()) next.resume();
  EXPECT_EQ(next.take_result(), expected(5));
  EXPECT_EQ(detail::fiber_worker::made_on_this_thread() - made_before, 2u)
      << "the abandoned fiber's worker was destroyed, so the next fiber needed a new one";
}

// Recursion that needs about `depth` KiB of stack.
int descend(fiber_context& context, int depth) {
  volatile char page[1024];
  page[0] = static_cast<char>(depth);
  if (depth == 0) {
    context.suspend();
    return page[0];
  }
  return descend(context, depth - 1) + (page[0] == static_cast<char>(depth) ? 1 : 0);
}

TEST(Fiber, AWorkerIsReusedOnlyForTheStackSizeAskedFor) {
  {  // leave a small-stack worker parked
    auto small = counted_fiber(3);
    while (!small.done()) small.resume();
  }
  const std::size_t deep = 2 * 1024;  // KiB: far beyond the default stack
  fiber<int> large([](fiber_context& context) { return descend(context, static_cast<int>(deep / 2)); },
                   deep * 1024);
  while (!large.done()) large.resume();
  EXPECT_EQ(large.take_result(), static_cast<int>(deep / 2));
  EXPECT_THROW((void)fiber<int>([](fiber_context&) { return 0; }, 0), std::invalid_argument);
}

TEST(Fiber, AThreadsParkedWorkersGoWithTheThread) {
  std::vector<std::int64_t> results;
  std::thread worker_thread([&results] {
    std::vector<std::size_t> inputs(100);
    for (std::size_t i = 0; i < inputs.size(); ++i) inputs[i] = i;
    results = run(interleaved_scheduler{16}, inputs, [](std::size_t i) { return counted_fiber(i); });
    EXPECT_EQ(detail::fiber_worker::made_on_this_thread(), 16u);
  });
  worker_thread.join();  // its 16 parked workers are destroyed (the leak checker would see them)
  ASSERT_EQ(results.size(), 100u);
  for (std::size_t i = 0; i < results.size(); ++i) EXPECT_EQ(results[i], expected(i));
}

}  // namespace
}  // namespace braid::testing
