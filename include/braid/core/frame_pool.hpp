// frame_pool: per-thread recycling allocator for coroutine frames.
//
// Every braid coroutine type allocates its frame through `pooled_frames`, its promise's
// operator new / delete. Frames are rounded up to a size class (64-byte steps up to 1 KiB,
// then powers of two up to 1 MiB) and recycled through an intrusive LIFO free list per class,
// so the frame freed by a finished operation is the one the next operation gets, still hot
// in cache. Fresh memory is carved from 1 MiB blocks; after warm-up an interleaved run never
// touches the global heap. Requests above 1 MiB go to the global heap.
//
// Invariants:
//  - a thread's pool is only touched by that thread: no synchronization on the fast path;
//  - a frame may be freed on another thread than the one that allocated it; it then joins
//    the freeing thread's lists. Blocks are released only at process exit, so this is safe;
//    a thread's lists are handed to a global stash when it exits, and a pool that runs dry
//    adopts frames from the stash before carving new ones;
//  - every returned pointer is 64-byte aligned: no two frames share a cache line.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "braid/core/detail/asan.hpp"

namespace braid {

struct frame_pool_statistics {
  std::uint64_t block_allocations = 0;  // fresh blocks taken from the global heap by this thread
  std::uint64_t large_allocations = 0;  // requests above the largest class, served by the heap
  std::int64_t live_frames = 0;         // allocated minus freed on this thread
  std::uint64_t reserved_bytes = 0;     // bytes of the blocks this thread carved frames from
};

namespace detail {

inline constexpr std::size_t frame_alignment = 64;
inline constexpr std::size_t small_frame_class_count = 16;                     // 64 .. 1024 B
inline constexpr std::size_t frame_class_count = small_frame_class_count + 10;  // .. 1 MiB

constexpr std::size_t frame_class_index(std::size_t bytes) noexcept {
  if (bytes <= 1024) return bytes == 0 ? 0 : (bytes - 1) / frame_alignment;
  return small_frame_class_count + static_cast<std::size_t>(std::bit_width(bytes - 1)) - 11;
}

struct free_frame {
  free_frame* next;
};

struct frame_pool_thread_state {
  std::array<free_frame*, frame_class_count> lists;
  std::byte* bump;
  std::byte* bump_end;
  frame_pool_statistics statistics;
};

// Constant-initialized and trivially destructible: access compiles to a %fs-relative load.
extern constinit thread_local frame_pool_thread_state frame_pool_state;

void* frame_pool_allocate_slow(std::size_t bytes);
void frame_pool_deallocate_large(void* frame) noexcept;

}  // namespace detail

class frame_pool {
 public:
  static constexpr std::size_t alignment = detail::frame_alignment;
  static constexpr std::size_t largest_class_bytes = std::size_t{1} << 20;
  static constexpr std::size_t block_bytes = std::size_t{1} << 20;

  [[nodiscard]] static void* allocate(std::size_t bytes) {
    auto& state = detail::frame_pool_state;
    ++state.statistics.live_frames;
    if (bytes <= largest_class_bytes) [[likely]] {
      auto& head = state.lists[detail::frame_class_index(bytes)];
      if (detail::free_frame* frame = head) [[likely]] {
        // The free-list link is read before the frame is handed out, so at least the link is
        // unpoisoned, even for a frame smaller than the link.
        BRAID_UNPOISON(frame, bytes < sizeof(detail::free_frame) ? sizeof(detail::free_frame) : bytes);
        head = frame->next;
        return frame;
      }
    }
    return detail::frame_pool_allocate_slow(bytes);
  }

  static void deallocate(void* frame, std::size_t bytes) noexcept {
    auto& state = detail::frame_pool_state;
    --state.statistics.live_frames;
    if (bytes > largest_class_bytes) [[unlikely]] {
      detail::frame_pool_deallocate_large(frame);
      return;
    }
    auto& head = state.lists[detail::frame_class_index(bytes)];
    auto* node = static_cast<detail::free_frame*>(frame);
    node->next = head;
    head = node;
    BRAID_POISON(frame, class_bytes(bytes));
  }

  // Statistics of the calling thread's pool.
  [[nodiscard]] static frame_pool_statistics statistics() noexcept {
    return detail::frame_pool_state.statistics;
  }

  // Bytes actually reserved for a request of `bytes`.
  [[nodiscard]] static constexpr std::size_t class_bytes(std::size_t bytes) noexcept {
    if (bytes <= 1024) return bytes == 0 ? alignment : (bytes + alignment - 1) & ~(alignment - 1);
    return std::bit_ceil(bytes);
  }
};

// Frame allocation policy of braid's coroutine types: frames recycled by the frame_pool.
struct pooled_frames {
  static void* operator new(std::size_t bytes) { return frame_pool::allocate(bytes); }
  static void operator delete(void* frame, std::size_t bytes) noexcept {
    frame_pool::deallocate(frame, bytes);
  }
};

// Frame allocation policy that leaves frames to the global heap: the comparator that shows
// what the pool saves (`braid-bench run switch-cost`).
struct heap_frames {};

}  // namespace braid
