// lookup_context: what one lookup carries down its call chain — a preallocated, append-only
// arena for the frames of its tasks (the interleaving thesis §3.2.4, `context_t`). A task<T>
// whose parameter list includes a `lookup_context&` (anywhere: after the object for a member
// or a lambda, first for a free function, as in the thesis) takes its frame from that arena;
// every other task keeps the frame pool.
//
//   braid::task<std::uint32_t> code_at(braid::lookup_context&, std::size_t row);   // a leaf
//   braid::task<std::int64_t> get(braid::lookup_context& context, std::size_t row) {
//     const std::uint32_t code = co_await code_at(context, row);   // frame from the arena
//     co_return dictionary[code];
//   }
//   braid::lookup_context context(4096);             // once per in-flight slot, not per lookup
//   braid::task<std::int64_t> root = get(context, 7);   // this frame too
//   ... resume root to the end, take its result, destroy it ...
//   context.reset();                                 // the next lookup bumps from the start
//
// Schedulers that own a context per in-flight slot: braid/core/context_scheduler.hpp.
//
// Allocation: a bump of 16-byte steps: a 16-byte header (the owning context) then the frame.
// Frames are never freed one by one; the whole arena is reset when the lookup is over, which
// is sound because one lookup's frames are bounded (its call chain's depth times its calls).
// A request that does not fit falls back to the frame pool — correct, only slower — and is
// counted (fallbacks()) so a test or a benchmark sees an arena that is too small.
//
// Where a frame came from, at deallocation, without a branch on a global: the frame pool
// returns 64-byte-aligned frames only (frame_pool's invariant); an arena frame is placed so
// that its address is never a multiple of 64 (a header that would put it there is moved 16
// bytes on). So the low bits of the pointer say which: a multiple of 64 goes back to the pool,
// anything else is an arena frame whose header names its context. Frames of tasks without a
// context pay one test of their own pointer's bits, and no header.
//
// Complexity: allocate O(1) (a bump and a compare), deallocate O(1) (a counter), reset O(1).
// Invariants:
//  - a context is used by one thread at a time and never moves (frames point to it);
//  - reset() and the destructor require every arena frame to be freed: reset() throws
//    std::logic_error otherwise (always checked: it is once per lookup, not per frame), the
//    destructor asserts; under AddressSanitizer the arena is poisoned on reset, so a frame
//    used after its lookup is reported;
//  - the arena's memory is taken from the frame pool once, at construction: a warm thread
//    makes no heap allocation for contexts either.
// Known limits: only a non-const `lookup_context&` parameter selects the arena; a fallback
// frame costs a pool allocation; the 16-byte header and the skip that
// keeps arena frames off 64-byte boundaries cost up to 32 bytes a frame; memory freed inside
// a lookup is not reused before the reset (append-only, as in the thesis).
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <type_traits>

#include "braid/core/detail/asan.hpp"
#include "braid/core/detail/context_arena.hpp"
#include "braid/core/frame_pool.hpp"

namespace braid {

class lookup_context {
 public:
  static constexpr std::size_t alignment = detail::arena_step;

  // Throws std::invalid_argument for a capacity of 0.
  explicit lookup_context(std::size_t capacity_bytes)
      : capacity_(checked_capacity(capacity_bytes)), arena_(detail::take_arena(capacity_)) {}
  lookup_context(const lookup_context&) = delete;
  lookup_context& operator=(const lookup_context&) = delete;
  ~lookup_context() { detail::release_arena(arena_, capacity_, live_frames_); }

  // A frame of `bytes` bytes, 16-byte aligned: from the arena, or from the frame pool when the
  // arena is full (counted).
  [[nodiscard]] void* allocate(std::size_t bytes) {
    std::size_t header = used_;  // the frame follows its header; it must not look like a pool frame
    if (detail::is_pool_address(reinterpret_cast<std::uintptr_t>(arena_) + header + detail::arena_step)) {
      header += detail::arena_step;
    }
    const std::size_t end = header + detail::arena_step + detail::arena_round(bytes);
    if (end > capacity_) [[unlikely]] {
      ++fallbacks_;
      return frame_pool::allocate(bytes);
    }
    used_ = end;
    ++live_frames_;
    return detail::place_arena_frame(arena_ + header, this, end - header);
  }

  // The lookup is over: the next allocation starts at the beginning of the arena again.
  // Throws std::logic_error if a frame of the arena is still alive.
  void reset() {
    if (live_frames_ != 0) [[unlikely]] detail::throw_frames_alive(live_frames_);
    BRAID_POISON(arena_, used_);
    used_ = 0;
  }

  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  // Arena bytes taken since the last reset, headers included: the lookup's frame bytes.
  [[nodiscard]] std::size_t used_bytes() const noexcept { return used_; }
  [[nodiscard]] std::size_t live_frames() const noexcept { return live_frames_; }
  // Frames that did not fit and came from the frame pool, over the context's lifetime.
  [[nodiscard]] std::uint64_t fallbacks() const noexcept { return fallbacks_; }

  // Called through the header of an arena frame (see context_frames::operator delete).
  void frame_freed(void* frame, std::size_t bytes) noexcept {
    --live_frames_;
    BRAID_POISON(frame, bytes);
  }

 private:
  static std::size_t checked_capacity(std::size_t bytes) {
    if (bytes == 0) throw std::invalid_argument("lookup_context: capacity must be at least 1 byte");
    return detail::arena_round(bytes);
  }

  std::size_t capacity_;
  std::byte* arena_;
  std::size_t used_ = 0;
  std::size_t live_frames_ = 0;
  std::uint64_t fallbacks_ = 0;
};

namespace detail {

// The first lookup_context among a coroutine's parameters.
template <class First, class... Rest>
lookup_context& first_context(First& first, Rest&... rest) noexcept {
  if constexpr (std::is_same_v<First, lookup_context>) return first;
  else return first_context(rest...);
}

}  // namespace detail

// Frame allocation policy of task<T>: the arena of the lookup_context among the coroutine's
// parameters, else the frame pool.
struct context_frames {
  static void* operator new(std::size_t bytes) { return frame_pool::allocate(bytes); }

  template <class... Parameters>
    requires(std::is_same_v<Parameters, lookup_context> || ...)
  static void* operator new(std::size_t bytes, Parameters&... parameters) {
    return detail::first_context(parameters...).allocate(bytes);
  }

  static void operator delete(void* frame, std::size_t bytes) noexcept {
    if (detail::is_pool_frame(frame)) {
      frame_pool::deallocate(frame, bytes);
      return;
    }
    detail::arena_owner<lookup_context>(frame).frame_freed(frame, bytes);
  }
};

}  // namespace braid
