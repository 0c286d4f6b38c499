// The arena half of lookup_context (braid/core/lookup_context.hpp): the arena's memory, the
// header in front of each arena frame, and the pointer test that tells an arena frame from a
// frame-pool one.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "braid/core/detail/asan.hpp"
#include "braid/core/frame_pool.hpp"

namespace braid::detail {

// Arena frames and their headers are 16-byte aligned: what a coroutine frame needs
// (__STDCPP_DEFAULT_NEW_ALIGNMENT__) and what keeps them apart from the pool's 64-byte frames.
inline constexpr std::size_t arena_step = 16;
static_assert(frame_pool::alignment % (2 * arena_step) == 0,
              "an arena frame can only be told apart if the pool's alignment is a larger power of two");

constexpr std::size_t arena_round(std::size_t bytes) noexcept { return (bytes + arena_step - 1) & ~(arena_step - 1); }

// Every frame the pool returns is a multiple of its alignment; no arena frame is.
constexpr bool is_pool_address(std::uintptr_t address) noexcept { return address % frame_pool::alignment == 0; }
inline bool is_pool_frame(const void* frame) noexcept { return is_pool_address(reinterpret_cast<std::uintptr_t>(frame)); }

// The arena's memory, from the frame pool (64-byte aligned, recycled), poisoned until used.
inline std::byte* take_arena(std::size_t bytes) {
  auto* arena = static_cast<std::byte*>(frame_pool::allocate(bytes));
  BRAID_POISON(arena, bytes);
  return arena;
}

inline void release_arena(std::byte* arena, std::size_t bytes, std::size_t live_frames) noexcept {
  assert(live_frames == 0 && "a lookup_context destroyed while frames of its arena are alive");
  (void)live_frames;
  BRAID_UNPOISON(arena, bytes);
  frame_pool::deallocate(arena, bytes);
}

// Out of line and cold: reset() is on every lookup's path, the message is not.
[[noreturn, gnu::cold, gnu::noinline]] inline void throw_frames_alive(std::size_t live_frames) {
  throw std::logic_error("lookup_context::reset: " + std::to_string(live_frames) + " frames still alive");
}

// Writes the owner into the header at `header` and returns the frame behind it; `bytes` is the
// header and the frame together.
template <class Owner>
void* place_arena_frame(std::byte* header, Owner* owner, std::size_t bytes) noexcept {
  BRAID_UNPOISON(header, bytes);
  std::construct_at(reinterpret_cast<Owner**>(header), owner);
  return header + arena_step;
}

template <class Owner>
Owner& arena_owner(void* frame) noexcept {
  return **reinterpret_cast<Owner**>(static_cast<std::byte*>(frame) - arena_step);
}

}  // namespace braid::detail
