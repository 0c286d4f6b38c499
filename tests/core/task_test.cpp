// task<T> chains: results and exceptions through depths 1-8, leaf suspensions return to the
// resumer of the root, resuming the root continues the leaf directly, and destroying an
// unfinished chain frees every frame and runs the destructors of every live local.
#include <gtest/gtest.h>

#include <memory>
#include <string>

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

}  // namespace
}  // namespace braid::testing
