// lookup_context: the arena's bump, alignment and reset; task frames of coroutines that take a
// context come from its arena (the frame pool sees none of them); chains of any depth, a full
// arena falling back to the pool, exceptions and unfinished chains all free their frames.
#include "braid/core/lookup_context.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>

#include "braid/core/coro.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/task.hpp"

namespace braid {
namespace {

bool aligned_to(const void* p, std::size_t alignment) {
  return reinterpret_cast<std::uintptr_t>(p) % alignment == 0;
}

template <class T>
T drive(task<T>& root) {
  root.resume();
  while (!root.done()) root.resume();
  return root.take_result();
}

// The coroutines here are not inlined: inlined, Clang may place a child's frame inside its
// caller's (coroutine elision) and there would be no allocation to route.

// A chain of `depth` tasks, each taking the context; the leaf suspends once.
[[gnu::noinline]] task<std::int64_t> chain(lookup_context& context, std::size_t depth, bool fail) {
  if (depth == 1) {
    co_await yield_point<interleaved>();
    if (fail) throw std::runtime_error("leaf failed");
    co_return 1;
  }
  co_return 1 + co_await chain(context, depth - 1, fail);
}

// The same chain without a context: its frames come from the pool.
[[gnu::noinline]] task<std::int64_t> pooled_chain(std::size_t depth) {
  if (depth == 1) co_return 1;
  co_return 1 + co_await pooled_chain(depth - 1);
}

struct reader {
  std::int64_t base;
  // A member coroutine: the object comes first, then the context.
  [[gnu::noinline]] task<std::int64_t> read(lookup_context& context, std::int64_t offset) const {
    co_await yield_point<interleaved>();
    co_return base + offset + static_cast<std::int64_t>(context.live_frames());
  }
};

// The context last among the parameters.
[[gnu::noinline]] task<std::int64_t> context_last(std::int64_t offset, lookup_context& context) {
  co_return offset + static_cast<std::int64_t>(context.live_frames());
}

TEST(LookupContext, BumpsInAlignedStepsAndResetsToTheStart) {
  lookup_context context(1024);
  EXPECT_EQ(context.capacity(), 1024u);
  void* first = context.allocate(40);
  void* second = context.allocate(1);
  for (void* frame : {first, second}) {
    EXPECT_TRUE(aligned_to(frame, lookup_context::alignment));
    EXPECT_FALSE(aligned_to(frame, frame_pool::alignment)) << "arena frames are told apart by their address";
  }
  EXPECT_GT(static_cast<std::byte*>(second), static_cast<std::byte*>(first) + 40);
  EXPECT_EQ(context.live_frames(), 2u);
  const std::size_t used = context.used_bytes();
  EXPECT_GE(used, 40u + 1u + 2 * lookup_context::alignment);
  EXPECT_THROW(context.reset(), std::logic_error) << "frames still alive";
  context_frames::operator delete(second, 1);
  context_frames::operator delete(first, 40);
  EXPECT_EQ(context.used_bytes(), used) << "append-only: freeing does not give bytes back";
  context.reset();
  EXPECT_EQ(context.used_bytes(), 0u);
  void* again = context.allocate(40);
  EXPECT_EQ(again, first) << "the next lookup reuses the arena from its start";
  context_frames::operator delete(again, 40);
  context.reset();
  EXPECT_EQ(context.fallbacks(), 0u);
}

TEST(LookupContext, RefusesAZeroCapacity) { EXPECT_THROW(lookup_context(0), std::invalid_argument); }

TEST(LookupContext, TaskFramesComeFromTheArena) {
  lookup_context context(16 * 1024);
  const auto pool_before = frame_pool::statistics().live_frames;
  auto root = chain(context, 5, false);
  EXPECT_EQ(context.live_frames(), 1u);
  root.resume();
  EXPECT_EQ(context.live_frames(), 5u) << "the whole chain is suspended at its leaf";
  EXPECT_EQ(frame_pool::statistics().live_frames, pool_before) << "the pool holds none of the chain's frames";
  EXPECT_GT(context.used_bytes(), 5 * 2 * lookup_context::alignment);
  root.resume();
  EXPECT_TRUE(root.done());
  EXPECT_EQ(root.take_result(), 5);
  EXPECT_EQ(context.live_frames(), 1u) << "only the root's frame is left";
  root.reset();
  EXPECT_EQ(context.live_frames(), 0u);
  context.reset();
  EXPECT_EQ(context.fallbacks(), 0u);
}

TEST(LookupContext, TasksWithoutAContextKeepThePool) {
  lookup_context context(1024);
  const auto pool_before = frame_pool::statistics().live_frames;
  auto root = pooled_chain(3);
  EXPECT_EQ(frame_pool::statistics().live_frames, pool_before + 1);
  EXPECT_EQ(drive(root), 3);
  root.reset();
  EXPECT_EQ(frame_pool::statistics().live_frames, pool_before);
  EXPECT_EQ(context.used_bytes(), 0u);
}

TEST(LookupContext, ChainsOfAnyDepthReuseTheArenaLookupAfterLookup) {
  lookup_context context(64 * 1024);
  for (std::size_t depth = 1; depth <= 32; ++depth) {
    auto root = chain(context, depth, false);
    EXPECT_EQ(drive(root), static_cast<std::int64_t>(depth));
    root.reset();
    const std::size_t used = context.used_bytes();
    context.reset();
    auto again = chain(context, depth, false);
    EXPECT_EQ(drive(again), static_cast<std::int64_t>(depth));
    again.reset();
    EXPECT_EQ(context.used_bytes(), used) << "the same lookup takes the same bytes after a reset";
    context.reset();
  }
  EXPECT_EQ(context.fallbacks(), 0u);
}

TEST(LookupContext, AFullArenaFallsBackToThePoolAndStaysCorrect) {
  lookup_context context(256);
  const auto pool_before = frame_pool::statistics().live_frames;
  auto root = chain(context, 16, false);
  root.resume();
  EXPECT_GT(context.fallbacks(), 0u);
  EXPECT_GT(frame_pool::statistics().live_frames, pool_before) << "the frames that did not fit";
  EXPECT_LE(context.used_bytes(), context.capacity());
  root.resume();
  EXPECT_EQ(root.take_result(), 16);
  root.reset();
  EXPECT_EQ(frame_pool::statistics().live_frames, pool_before) << "fallback frames went back to the pool";
  EXPECT_EQ(context.live_frames(), 0u);
  context.reset();
}

TEST(LookupContext, ExceptionsPropagateAndEveryFrameIsFreed) {
  lookup_context context(16 * 1024);
  for (std::size_t depth = 1; depth <= 8; ++depth) {
    auto root = chain(context, depth, true);
    EXPECT_THROW(drive(root), std::runtime_error) << "depth " << depth;
    root.reset();
    EXPECT_EQ(context.live_frames(), 0u);
    context.reset();
  }
}

TEST(LookupContext, DestroyingAnUnfinishedChainFreesItsFrames) {
  lookup_context context(16 * 1024);
  auto root = chain(context, 6, false);
  root.resume();
  EXPECT_EQ(context.live_frames(), 6u);
  root.reset();
  EXPECT_EQ(context.live_frames(), 0u);
  context.reset();
}

TEST(LookupContext, MemberCoroutinesAndALastParameterFindTheContext) {
  lookup_context context(4096);
  const reader r{100};
  auto member = r.read(context, 5);
  EXPECT_EQ(context.live_frames(), 1u);
  EXPECT_EQ(drive(member), 106) << "the member's frame was the context's one live frame";
  member.reset();
  context.reset();

  auto root = context_last(3, context);
  EXPECT_EQ(context.live_frames(), 1u) << "the context may stand anywhere among the parameters";
  EXPECT_EQ(drive(root), 4);
  root.reset();
  context.reset();
}

// A flat coro can use the same policy.
template <class T>
using context_coro = basic_coro<T, context_frames>;

[[gnu::noinline]] context_coro<std::int64_t> flat_read(lookup_context&, const std::int64_t* cell) {
  co_return co_await fetch<interleaved>(cell);
}

TEST(LookupContext, FlatCorosCanTakeTheirFrameFromTheArena) {
  lookup_context context(4096);
  const std::int64_t cell = 42;
  auto op = flat_read(context, &cell);
  EXPECT_EQ(context.live_frames(), 1u);
  op.resume();
  ASSERT_TRUE(op.done());
  EXPECT_EQ(op.take_result(), 42);
  op.reset();
  context.reset();
}

#if defined(BRAID_HAS_ASAN)
// Under AddressSanitizer a reset poisons the arena: a frame touched after its lookup is reported.
TEST(LookupContextDeathTest, AFrameUsedAfterItsLookupIsReported) {
  EXPECT_DEATH(
      {
        lookup_context context(256);
        void* frame = context.allocate(32);
        context_frames::operator delete(frame, 32);
        context.reset();
        static_cast<volatile char*>(frame)[0] = 1;
      },
      "use-after-poison");
}
#endif

#ifndef NDEBUG
TEST(LookupContextDeathTest, DestroyingAContextWithLiveFramesIsCaught) {
  EXPECT_DEATH(
      {
        lookup_context context(256);
        (void)context.allocate(16);
      },
      "frames of its arena are alive");
}
#endif

}  // namespace
}  // namespace braid
