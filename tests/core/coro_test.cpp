// coro<T> and fetch: eager start, exactly one suspension per interleaved fetch and none in
// sequential mode, values read through fetch, results and exceptions, ownership.
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <type_traits>

#include "braid/core/all.hpp"
#include "core/test_operations.hpp"

namespace braid {
namespace {

// The sequential awaiter is always ready: the compiler drops the suspension entirely.
static_assert(decltype(fetch<sequential>(static_cast<int*>(nullptr)))::await_ready());
static_assert(!decltype(fetch<interleaved>(static_cast<int*>(nullptr)))::await_ready());
static_assert(operation<coro<int>> && operation<coro<void>> && operation<task<int>> &&
              operation<fiber<int>>);

template <execution_mode M>
coro<int> sum_of(const int* values, int count, int& steps_run) {
  int sum = 0;
  for (int i = 0; i < count; ++i) {
    sum += co_await fetch<M>(values + i);
    ++steps_run;
  }
  co_return sum;
}

TEST(Coro, StartsEagerlyAndSuspendsOncePerInterleavedFetch) {
  const std::array<int, 5> values{1, 2, 3, 4, 5};
  int steps = 0;
  auto op = sum_of<interleaved>(values.data(), 5, steps);
  EXPECT_FALSE(op.done());
  EXPECT_EQ(steps, 0) << "suspended at the first fetch, before its load";
  int resumes = 0;
  while (!op.done()) {
    op.resume();
    ++resumes;
  }
  EXPECT_EQ(resumes, 5);
  EXPECT_EQ(op.take_result(), 15);
}

TEST(Coro, SequentialModeNeverSuspends) {
  const std::array<int, 5> values{1, 2, 3, 4, 5};
  int steps = 0;
  auto op = sum_of<sequential>(values.data(), 5, steps);
  ASSERT_TRUE(op.done()) << "the whole body ran during the call";
  EXPECT_EQ(steps, 5);
  EXPECT_EQ(op.take_result(), 15);
}

struct wide_node {
  std::array<std::uint64_t, 24> words;  // three cache lines
};

template <execution_mode M>
coro<std::uint64_t> read_wide(const wide_node* node) {
  const wide_node& loaded = co_await fetch_lines<M>(node);
  const wide_node& again = co_await fetch_lines<M>(node, sizeof(wide_node));
  co_return loaded.words[0] + again.words[23];
}

TEST(Coro, FetchLinesReturnsTheNode) {
  wide_node node{};
  node.words[0] = 40;
  node.words[23] = 2;
  auto interleaved_op = read_wide<interleaved>(&node);
  interleaved_op.resume();
  interleaved_op.resume();
  ASSERT_TRUE(interleaved_op.done());
  EXPECT_EQ(interleaved_op.take_result(), 42u);
  auto sequential_op = read_wide<sequential>(&node);
  ASSERT_TRUE(sequential_op.done());
  EXPECT_EQ(sequential_op.take_result(), 42u);
}

TEST(Coro, ExceptionsAreRethrownByTakeResult) {
  auto before_suspension = []() -> coro<int> {
    throw std::runtime_error("early");
    co_return 0;
  }();
  ASSERT_TRUE(before_suspension.done());
  EXPECT_THROW(before_suspension.take_result(), std::runtime_error);

  auto after_suspension = []() -> coro<int> {
    co_await yield_point<interleaved>();
    throw std::runtime_error("late");
  }();
  after_suspension.resume();
  ASSERT_TRUE(after_suspension.done());
  EXPECT_THROW(after_suspension.take_result(), std::runtime_error);
}

TEST(Coro, ReassigningOrDestroyingFreesTheFrame) {
  const std::int64_t live_before = frame_pool::statistics().live_frames;
  int destroyed = 0;
  auto make = [](int* counter) -> coro<int> {
    testing::destruction_counter g{counter};
    co_await yield_point<interleaved>();
    co_return 1;
  };
  {
    coro<int> op = make(&destroyed);
    EXPECT_EQ(frame_pool::statistics().live_frames, live_before + 1);
    op = make(&destroyed);  // the first, unfinished, is destroyed
    EXPECT_EQ(destroyed, 1);
    coro<int> moved = std::move(op);
    EXPECT_TRUE(op.empty());
    EXPECT_FALSE(moved.empty());
  }
  EXPECT_EQ(destroyed, 2);
  EXPECT_EQ(frame_pool::statistics().live_frames, live_before);
}

TEST(Coro, HeapFramesBehaveTheSame) {
  auto op = []() -> basic_coro<int, heap_frames> {
    co_await yield_point<interleaved>();
    co_return 7;
  }();
  op.resume();
  ASSERT_TRUE(op.done());
  EXPECT_EQ(op.take_result(), 7);
}

TEST(Coro, MoveOnlyResults) {
  auto op = []() -> coro<std::unique_ptr<int>> { co_return std::make_unique<int>(9); }();
  ASSERT_TRUE(op.done());
  EXPECT_EQ(*op.take_result(), 9);
}

}  // namespace
}  // namespace braid
