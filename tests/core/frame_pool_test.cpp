// frame_pool: size classes, alignment, LIFO reuse, statistics, frames crossing threads.
// braid-test: concurrent
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "braid/core/frame_pool.hpp"

namespace braid {
namespace {

TEST(FramePool, SizeClasses) {
  EXPECT_EQ(frame_pool::class_bytes(1), 64u);
  EXPECT_EQ(frame_pool::class_bytes(64), 64u);
  EXPECT_EQ(frame_pool::class_bytes(65), 128u);
  EXPECT_EQ(frame_pool::class_bytes(1000), 1024u);
  EXPECT_EQ(frame_pool::class_bytes(1025), 2048u);
  EXPECT_EQ(frame_pool::class_bytes(5000), 8192u);
}

TEST(FramePool, FramesAreAlignedAndDistinct) {
  std::vector<void*> frames;
  for (std::size_t bytes : {1, 63, 64, 100, 500, 1024, 4000, 70000}) {
    for (int copy = 0; copy < 3; ++copy) {
      void* frame = frame_pool::allocate(bytes);
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(frame) % frame_pool::alignment, 0u);
      std::memset(frame, 0xAB, bytes);  // writable over its whole size
      frames.push_back(frame);
    }
  }
  std::vector<void*> sorted = frames;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
  std::size_t i = 0;
  for (std::size_t bytes : {1, 63, 64, 100, 500, 1024, 4000, 70000}) {
    for (int copy = 0; copy < 3; ++copy) frame_pool::deallocate(frames[i++], bytes);
  }
}

TEST(FramePool, FreedFrameIsReusedFirst) {
  void* first = frame_pool::allocate(200);
  frame_pool::deallocate(first, 200);
  void* second = frame_pool::allocate(200);
  EXPECT_EQ(first, second) << "LIFO: the hottest frame comes back";
  void* other_class = frame_pool::allocate(900);
  EXPECT_NE(other_class, first);
  frame_pool::deallocate(second, 200);
  frame_pool::deallocate(other_class, 900);
}

// Under AddressSanitizer a free frame is poisoned; reusing one smaller than the free list's
// link must not report the pool's own read of that link.
TEST(FramePool, FramesSmallerThanTheFreeListLinkAreReused) {
  for (std::size_t bytes : {std::size_t{1}, std::size_t{3}, std::size_t{7}}) {
    void* first = frame_pool::allocate(bytes);
    std::memset(first, 0xab, bytes);
    frame_pool::deallocate(first, bytes);
    void* again = frame_pool::allocate(bytes);
    EXPECT_EQ(again, first);
    std::memset(again, 0xcd, bytes);
    frame_pool::deallocate(again, bytes);
  }
}

TEST(FramePool, StatisticsCountLiveFramesAndBlocks) {
  const frame_pool_statistics before = frame_pool::statistics();
  std::vector<void*> frames;
  for (int i = 0; i < 100; ++i) frames.push_back(frame_pool::allocate(256));
  EXPECT_EQ(frame_pool::statistics().live_frames - before.live_frames, 100);
  for (void* frame : frames) frame_pool::deallocate(frame, 256);
  EXPECT_EQ(frame_pool::statistics().live_frames, before.live_frames);
  const std::uint64_t blocks = frame_pool::statistics().block_allocations;
  for (int round = 0; round < 10; ++round) {
    for (int i = 0; i < 100; ++i) frames[static_cast<std::size_t>(i)] = frame_pool::allocate(256);
    for (void* frame : frames) frame_pool::deallocate(frame, 256);
  }
  EXPECT_EQ(frame_pool::statistics().block_allocations, blocks) << "steady state reuses frames";
}

TEST(FramePool, LargeRequestsGoToTheHeap) {
  const std::uint64_t large_before = frame_pool::statistics().large_allocations;
  void* big = frame_pool::allocate(frame_pool::largest_class_bytes + 1);
  EXPECT_EQ(frame_pool::statistics().large_allocations, large_before + 1);
  frame_pool::deallocate(big, frame_pool::largest_class_bytes + 1);
}

TEST(FramePool, FramesMayBeFreedOnAnotherThreadAndOutliveTheirThread) {
  std::vector<void*> frames(64);
  std::thread producer([&] {
    for (void*& frame : frames) {
      frame = frame_pool::allocate(320);
      std::memset(frame, 1, 320);
    }
  });
  producer.join();  // its pool is gone; the frames must stay valid
  for (void* frame : frames) {
    EXPECT_EQ(static_cast<unsigned char*>(frame)[319], 1);
    frame_pool::deallocate(frame, 320);
  }
  // A thread that leaves free frames behind hands them to the next one that runs dry.
  std::thread leaver([] {
    std::vector<void*> mine;
    for (int i = 0; i < 10; ++i) mine.push_back(frame_pool::allocate(4096));
    for (void* frame : mine) frame_pool::deallocate(frame, 4096);
  });
  leaver.join();
  std::thread adopter([] {
    const std::uint64_t blocks_before = frame_pool::statistics().block_allocations;
    std::vector<void*> adopted;
    for (int i = 0; i < 10; ++i) adopted.push_back(frame_pool::allocate(4096));
    EXPECT_EQ(frame_pool::statistics().block_allocations, blocks_before) << "adopted, not carved";
    for (void* frame : adopted) frame_pool::deallocate(frame, 4096);
  });
  adopter.join();
}

}  // namespace
}  // namespace braid
