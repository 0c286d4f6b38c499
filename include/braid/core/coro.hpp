// coro<T>: a single-frame operation coroutine — the "flattened" operation of CoroBase, the
// `resumable<T>` of the interleaving thesis.
//
//   template <braid::execution_mode M>
//   braid::coro<std::optional<int>> find(const table& t, int key) {
//     const node* n = t.bucket(key);
//     while (n != nullptr) {
//       const node& current = co_await braid::fetch<M>(n);   // prefetch + suspend if M says so
//       if (current.key == key) co_return current.value;
//       n = current.next;
//     }
//     co_return std::nullopt;
//   }
//
// A coro starts eagerly: calling it runs the body up to its first suspension (or to the end),
// so a `sequential` instantiation has its result ready as soon as the call returns. It is
// flat — it cannot await other braid coroutines; use task<T> for call chains. A task<T> can
// await a coro (CoroBase's two-level design: a transaction written as a task, each of its
// operations one flattened coro): the coro's suspensions return straight to the task's
// scheduler, resuming the task resumes the coro, and once it has finished the task's resume
// continues the awaiting task (braid/core/task.hpp; the coro itself is unchanged by being
// awaited). What the body throws is kept and rethrown by
// take_result() (or by the co_await in an awaiting task). The frame comes from `FrameAllocation`
// (the frame pool by default) and is freed when the coro object is destroyed or reassigned.
// Under chained_scheduler (braid/core/chained_scheduler.hpp) the promise also links the coro to
// the next one of the scheduler's ring (detail/chain_link.hpp).
#pragma once

#include <coroutine>
#include <exception>
#include <utility>

#include "braid/core/detail/chain_link.hpp"
#include "braid/core/detail/result_slot.hpp"
#include "braid/core/frame_pool.hpp"

namespace braid {

template <class T, class FrameAllocation = pooled_frames>
class [[nodiscard]] basic_coro {
 public:
  using result_type = T;
  // The body has already run to its first suspension when the caller receives the object.
  static constexpr bool starts_eagerly = true;

  struct promise_type : FrameAllocation, detail::returns<promise_type, T> {
    detail::result_slot<T> result;
    detail::chain_link chain;  // for chained_scheduler; unlinked (resumer) by default

    basic_coro get_return_object() noexcept {
      return basic_coro{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_never initial_suspend() noexcept { return {}; }
    detail::record_finish final_suspend() noexcept { return {}; }  // suspends, as suspend_always
    void unhandled_exception() noexcept { result.set_exception(std::current_exception()); }
  };

  basic_coro() noexcept = default;
  basic_coro(basic_coro&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  basic_coro& operator=(basic_coro&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  ~basic_coro() { reset(); }

  // True once the body has returned or thrown. Precondition: !empty().
  [[nodiscard]] bool done() const noexcept { return handle_.done(); }
  [[nodiscard]] bool empty() const noexcept { return !handle_; }

  // Runs the body from its last suspension to its next one. Precondition: !done().
  void resume() const { handle_.resume(); }

  // The returned value (moved out), or rethrows what the body threw. Precondition: done().
  T take_result() { return handle_.promise().result.take(); }

  // Destroys the frame, finished or not; destructors of the body's live locals run.
  void reset() noexcept {
    if (handle_) std::exchange(handle_, nullptr).destroy();
  }

  // For an awaiting task (task.hpp): the frame, unfinished.
  [[nodiscard]] std::coroutine_handle<promise_type> handle() const noexcept { return handle_; }

 private:
  explicit basic_coro(std::coroutine_handle<promise_type> handle) noexcept : handle_(handle) {}

  std::coroutine_handle<promise_type> handle_{};
};

template <class T>
using coro = basic_coro<T, pooled_frames>;

}  // namespace braid
