// chain_link: what a coro's promise keeps for chained_scheduler (braid/core/chained_scheduler.hpp)
// — the operation a chained suspension hands over to, and the operation's slot in the
// scheduler's ring — and the record of the last coro that finished on this thread.
//
// Invariants: `next` is std::noop_coroutine() unless a chained_scheduler has linked the
// operation into its ring, so a chained suspension outside a ring returns to the resumer. A
// coro's final suspension stores its frame's address in `last_finished_frame` and returns to
// its resumer: a scheduler that resumed a chain learns which of its operations finished.
#pragma once

#include <coroutine>
#include <cstddef>

namespace braid::detail {

struct chain_link {
  std::coroutine_handle<> next = std::noop_coroutine();
  std::size_t slot = 0;
};

inline constinit thread_local void* last_finished_frame = nullptr;

// The final suspension of a coro: records the frame, then returns to the resumer.
struct record_finish {
  static constexpr bool await_ready() noexcept { return false; }
  static void await_suspend(std::coroutine_handle<> finished) noexcept { last_finished_frame = finished.address(); }
  static constexpr void await_resume() noexcept {}
};

}  // namespace braid::detail
