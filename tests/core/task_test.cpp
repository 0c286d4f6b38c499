// task<T> chains: results and exceptions through depths 1-8, leaf suspensions return to the
// resumer of the root, resuming the root continues the leaf directly, and destroying an
// unfinished chain frees every frame and runs the destructors of every live local. A task that
// awaits flat coros (the two-level form) sees the same suspensions, results and exceptions.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/test_operations.hpp"

namespace braid::testing {
namespace {

// Drives a root task by hand, counting how often control came back to us.
template <class T>
std::size_t drive(task<T>& root) {
  std::size_t returns_to_driver = 0;
  root.resume();  // start
  while (!root.done()) {
    ++returns_to_driver;
    root.resume();
  }
  return returns_to_driver;
}

TEST(Task, ChainsOfDepthOneToEightReturnTheLeafResult) {
  for (std::size_t depth = 1; depth <= 8; ++depth) {
    for (std::size_t index = 0; index < 12; ++index) {
      auto root = counted_chain<interleaved>(index, depth);
      const std::size_t returns = drive(root);
      EXPECT_EQ(returns, suspensions(index)) << "every leaf suspension, and only those, returns to the driver";
      EXPECT_EQ(root.take_result(), expected(index)) << "depth " << depth;
    }
  }
}

TEST(Task, SequentialChainsNeverSuspend) {
  for (std::size_t depth = 1; depth <= 8; ++depth) {
    auto root = counted_chain<sequential>(5, depth);
    EXPECT_EQ(drive(root), 0u);
    EXPECT_EQ(root.take_result(), expected(5));
  }
}

TEST(Task, ExceptionsPropagateThroughEveryLevel) {
  for (std::size_t depth = 1; depth <= 8; ++depth) {
    auto root = counted_chain<interleaved>(4, depth, failure_at{4});
    drive(root);
    EXPECT_THROW(root.take_result(), std::runtime_error) << "depth " << depth;
  }
}

// A parent may catch what its child threw and go on.
task<int> thrower() {
  co_await yield_point<interleaved>();
  throw std::domain_error("child failed");
}
task<int> catcher() {
  bool caught = false;
  try {
    co_return co_await thrower();
  } catch (const std::domain_error&) {
    caught = true;  // co_await is not allowed inside a handler: continue after it
  }
  if (caught) co_await yield_point<interleaved>();
  co_return -1;
}

TEST(Task, ParentCanCatchAChildException) {
  auto root = catcher();
  EXPECT_EQ(drive(root), 2u);
  EXPECT_EQ(root.take_result(), -1);
}

// Resuming the root continues the innermost task: parent code between two awaits runs once.
task<int> leaf_suspending_many_times(int times) {
  for (int i = 0; i < times; ++i) co_await yield_point<interleaved>();
  co_return times;
}
task<int> middle(int& parent_steps, int times) {
  ++parent_steps;
  int result = co_await leaf_suspending_many_times(times);
  ++parent_steps;
  co_return result;
}
task<int> top(int& parent_steps, int times) {
  ++parent_steps;
  int result = co_await middle(parent_steps, times);
  ++parent_steps;
  co_return result + 1;
}

TEST(Task, ResumingTheRootResumesTheLeafDirectly) {
  int parent_steps = 0;
  auto root = top(parent_steps, 50);
  root.resume();
  EXPECT_EQ(parent_steps, 2) << "both parents ran up to their await";
  for (int i = 0; i < 49; ++i) {
    root.resume();
    ASSERT_EQ(parent_steps, 2) << "a leaf resumption must not re-enter the parents";
  }
  root.resume();
  EXPECT_TRUE(root.done());
  EXPECT_EQ(parent_steps, 4);
  EXPECT_EQ(root.take_result(), 51);
}

TEST(Task, SeveralSequentialChildCallsReuseTheChain) {
  auto root = []() -> task<int> {
    int total = 0;
    for (int call = 0; call < 20; ++call) total += co_await leaf_suspending_many_times(call % 3);
    co_return total;
  }();
  std::size_t expected_suspensions = 0;
  int expected_total = 0;
  for (int call = 0; call < 20; ++call) {
    expected_suspensions += static_cast<std::size_t>(call % 3);
    expected_total += call % 3;
  }
  EXPECT_EQ(drive(root), expected_suspensions);
  EXPECT_EQ(root.take_result(), expected_total);
}

// Destructors of live locals in every frame of the chain.
struct destruction_counter {
  int* destroyed;
  explicit destruction_counter(int* counter) : destroyed(counter) {}
  destruction_counter(const destruction_counter&) = delete;
  ~destruction_counter() { ++*destroyed; }
};

task<int> guarded_chain(int* destroyed, std::size_t depth) {
  destruction_counter guard(destroyed);
  if (depth == 1) {
    co_await yield_point<interleaved>();
    co_return 1;
  }
  co_return co_await guarded_chain(destroyed, depth - 1);
}

TEST(Task, DestroyingAnUnfinishedChainFreesEveryFrame) {
  for (std::size_t depth = 1; depth <= 8; ++depth) {
    const std::int64_t live_before = frame_pool::statistics().live_frames;
    int destroyed = 0;
    {
      auto root = guarded_chain(&destroyed, depth);
      root.resume();  // now suspended in the leaf, `depth` frames live
      ASSERT_FALSE(root.done());
      EXPECT_EQ(frame_pool::statistics().live_frames - live_before, static_cast<std::int64_t>(depth));
    }
    EXPECT_EQ(destroyed, static_cast<int>(depth)) << "every frame's locals destroyed";
    EXPECT_EQ(frame_pool::statistics().live_frames, live_before) << "depth " << depth;
  }
}

TEST(Task, DestroyingANeverStartedTaskFreesItsFrame) {
  const std::int64_t live_before = frame_pool::statistics().live_frames;
  int destroyed = 0;
  { auto root = guarded_chain(&destroyed, 3); }
  EXPECT_EQ(destroyed, 0) << "the body never ran";
  EXPECT_EQ(frame_pool::statistics().live_frames, live_before);
}

// Completion transfers symmetrically: a very deep chain does not grow the stack.
task<std::size_t> deep(std::size_t depth) {
  if (depth == 0) {
    co_await yield_point<interleaved>();
    co_return 0;
  }
  co_return 1 + co_await deep(depth - 1);
}

TEST(Task, DeepChainsRunWithoutGrowingTheStack) {
  auto root = deep(20000);
  EXPECT_EQ(drive(root), 1u);
  EXPECT_EQ(root.take_result(), 20000u);
}

TEST(Task, MoveOnlyResultsAreMovedOut) {
  auto root = []() -> task<std::unique_ptr<int>> {
    auto inner = []() -> task<std::unique_ptr<int>> {
      co_await yield_point<interleaved>();
      co_return std::make_unique<int>(42);
    };
    co_return co_await inner();
  }();
  drive(root);
  std::unique_ptr<int> value = root.take_result();
  ASSERT_TRUE(value);
  EXPECT_EQ(*value, 42);
}


// ---- a task awaiting flat coros (two levels: CoroBase's transaction and its operations) ------

// Awaits the counted coros of `indexes` one after another, inside a child task of depth
// `depth` (1: the root awaits them itself), and sums their results.
template <execution_mode M>
task<std::int64_t> sum_of_coros(std::vector<std::size_t> indexes, std::size_t depth, failure_at failure = {SIZE_MAX}) {
  if (depth > 1) co_return co_await sum_of_coros<M>(std::move(indexes), depth - 1, failure);
  std::int64_t sum = 0;
  for (std::size_t index : indexes) sum += co_await counted_coro<M>(index, failure);
  co_return sum;
}

std::int64_t expected_sum(const std::vector<std::size_t>& indexes) {
  std::int64_t sum = 0;
  for (std::size_t index : indexes) sum += expected(index);
  return sum;
}
std::size_t expected_suspensions(const std::vector<std::size_t>& indexes) {
  std::size_t count = 0;
  for (std::size_t index : indexes) count += suspensions(index);
  return count;
}

TEST(TaskAwaitingCoro, EverySuspensionOfEveryCoroReturnsToTheDriverAndOnlyThose) {
  const std::vector<std::vector<std::size_t>> inputs = {{}, {0}, {1}, {0, 0, 0}, {1, 2, 3, 4, 5, 6, 7}, {11, 4, 9}};
  for (std::size_t depth = 1; depth <= 4; ++depth) {
    for (const std::vector<std::size_t>& indexes : inputs) {
      auto root = sum_of_coros<interleaved>(indexes, depth);
      EXPECT_EQ(drive(root), expected_suspensions(indexes));
      EXPECT_EQ(root.take_result(), expected_sum(indexes)) << "depth " << depth;
    }
  }
}

TEST(TaskAwaitingCoro, SequentialCorosFinishBeforeTheyAreAwaited) {
  auto root = sum_of_coros<sequential>({1, 2, 3, 4, 5}, 2);
  EXPECT_EQ(drive(root), 0u);
  EXPECT_EQ(root.take_result(), expected_sum({1, 2, 3, 4, 5}));
}

TEST(TaskAwaitingCoro, ACorosExceptionReachesTheTask) {
  for (std::size_t depth = 1; depth <= 3; ++depth) {
    auto root = sum_of_coros<interleaved>({1, 4, 2}, depth, failure_at{4});
    drive(root);
    EXPECT_THROW(root.take_result(), std::runtime_error) << "depth " << depth;
  }
}

TEST(TaskAwaitingCoro, DestroyingTheRootWhileACoroIsSuspendedFreesItsFrame) {
  const std::int64_t live_before = frame_pool::statistics().live_frames;
  {
    auto root = sum_of_coros<interleaved>({4, 4}, 3);
    root.resume();  // suspended inside the first coro: three tasks and the coro live (the
                    // compiler may place the coro's frame inside its caller's)
    ASSERT_FALSE(root.done());
    EXPECT_GE(frame_pool::statistics().live_frames - live_before, 3);
  }
  EXPECT_EQ(frame_pool::statistics().live_frames, live_before);
}

TEST(TaskAwaitingCoro, RunsUnderTheInterleavedScheduler) {
  std::vector<std::vector<std::size_t>> inputs;
  for (std::size_t i = 0; i < 40; ++i) inputs.push_back({i % 12, (i * 5) % 12, (i * 7 + 1) % 12});
  std::vector<std::int64_t> sums(inputs.size(), -1);
  interleaved_scheduler{6}.run(inputs.size(),
      [&](std::size_t i) { return sum_of_coros<interleaved>(inputs[i], 1 + i % 3); },
      [&](std::size_t i, std::int64_t sum) { sums[i] = sum; });
  for (std::size_t i = 0; i < inputs.size(); ++i) EXPECT_EQ(sums[i], expected_sum(inputs[i])) << i;
}

}  // namespace
}  // namespace braid::testing
