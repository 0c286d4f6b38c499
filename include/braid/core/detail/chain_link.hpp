// chain_link: what a coro's promise keeps for chained_scheduler (braid/core/chained_scheduler.hpp)
// — the operation a chained suspension hands over to, and the operation's slot in the
// scheduler's ring — and the record of the last linked coro that finished on this thread.
//
// Invariants: `next` is std::noop_coroutine() unless a chained_scheduler has linked the
// operation into its ring, so a chained suspension outside a ring returns to the resumer. A
// linked coro's final suspension stores its frame's address in `last_finished_frame` and
// returns to its resumer: a scheduler that resumed a chain learns which of its operations
// finished. An unlinked coro (run by any other scheduler, or called plainly inside an
// operation's body) records nothing, and a ring restores the record it found when its run
// returns (chained_ring.hpp), so work nested in an operation never stands for the operation.
#pragma once

#include <coroutine>
#include <cstddef>

namespace braid::detail {

struct chain_link {
  std::coroutine_handle<> next = std::noop_coroutine();
  std::size_t slot = 0;
};

inline constinit thread_local void* last_finished_frame = nullptr;

// The final suspension of a coro: records the frame if the coro is linked into a ring, then
// returns to the resumer.
struct record_finish {
  static constexpr bool await_ready() noexcept { return false; }
  template <class Promise>
  static void await_suspend(std::coroutine_handle<Promise> finished) noexcept {
    if (finished.promise().chain.next != std::noop_coroutine()) last_finished_frame = finished.address();
  }
  static constexpr void await_resume() noexcept {}
};

// Restores the record of the last finished coro when a ring's run returns, normally or by an
// exception: a ring run inside an operation of another ring leaves that ring's record as it was.
class finish_record_scope {
 public:
  finish_record_scope() noexcept : outer_(last_finished_frame) {}
  ~finish_record_scope() { last_finished_frame = outer_; }
  finish_record_scope(const finish_record_scope&) = delete;
  finish_record_scope& operator=(const finish_record_scope&) = delete;

 private:
  void* const outer_;
};

}  // namespace braid::detail
