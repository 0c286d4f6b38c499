// chained_scheduler: the interleaved scheduler whose coroutines hand over to each other directly.
//
// Under interleaved_scheduler an operation that suspends returns to the scheduler's loop, which
// checks whether it finished and calls the next one: a return, a done() test, the loop's
// bookkeeping and a call per suspension. Under chained_scheduler the operations of the ring
// are linked in a circle (each coro's promise names the next: detail/chain_link.hpp), and an
// operation written for the mode `chained_with<Hint>` prefetches and then transfers control
// straight to the next one (symmetric transfer: a load of the link and a jump into that
// coroutine's resume point). Control comes back to the scheduler only when an operation
// finishes; the scheduler then delivers its result, puts the next input into its slot, links
// it in, and resumes the chain at the operation after it — the interleaving thesis's context
// with a tail call (its §1.5), for the flat operations of every structure unchanged:
// `lookup<chained_with<H>>` is the same source as `lookup<interleaved_with<H>>`.
//
//   braid::run_into(braid::chained_scheduler{16}, keys,
//                   [&](int key) { return find<braid::chained>(t, key); }, results);
//
// Order: round robin over the slots of a ring of `group` operations; a finished slot takes the
// next input at once and that input runs when the round comes back to it (interleaved_scheduler's
// order while the input lasts); once the input is exhausted a finished slot leaves the circle.
// Delivery order is completion order.
//
// Invariants: when control is in the scheduler every operation of the ring is suspended, and
// each one's link names the next live slot's operation (itself, if it is the only one). A
// just-launched operation is unlinked, so its first suspension returns to the scheduler. A
// chained suspension outside a ring (a chained operation under another scheduler, or awaited
// by a task) returns to its resumer, as an interleaved one does; an operation of the ring that
// suspends by another awaiter returns to the scheduler, which resumes the chain again. The
// ring and its links live in the frame pool: no heap allocation once it is warm. If an
// operation or the sink throws, the operations in flight are destroyed and the exception
// propagates. Operations are coro<T>s.
//
// Known limits: the hand-over needs the compiler's symmetric transfer (Clang and GCC lower it
// to a jump when optimizing; unoptimized, each hand-over may take stack space until the next
// operation finishes). The scheduler learns which operation finished from the last linked coro
// that finished on the thread (detail/chain_link.hpp). Coros an operation runs inside its body
// do not count: unlinked ones record nothing, and a nested chained_scheduler's run restores the
// record when it returns.
#pragma once

#include <algorithm>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "braid/core/coro.hpp"
#include "braid/core/detail/chain_link.hpp"
#include "braid/core/detail/chained_ring.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/frame_pool.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/operation.hpp"
#include "braid/core/prefetch.hpp"
#include "braid/core/scheduler.hpp"

namespace braid {

namespace detail {

// The operation a chained suspension of `current` hands over to: the next of its ring, or
// (not linked, or not a coro) its resumer.
template <class Promise>
[[gnu::always_inline]] inline std::coroutine_handle<> chained_successor(
    std::coroutine_handle<Promise> current) noexcept {
  if constexpr (requires { current.promise().chain.next; }) return current.promise().chain.next;
  else return std::noop_coroutine();
}

// A suspension that hands over to the next operation of the chain; with a load, `*address`.
struct chained_suspension {
  static constexpr bool await_ready() noexcept { return false; }
  template <class Promise>
  static std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> current) noexcept {
    return chained_successor(current);
  }
  static constexpr void await_resume() noexcept {}
};
template <class T>
struct chained_load {
  T* address;
  static constexpr bool await_ready() noexcept { return false; }
  template <class Promise>
  static std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> current) noexcept {
    return chained_successor(current);
  }
  constexpr T& await_resume() const noexcept { return *address; }
};

}  // namespace detail

// The mode of operations run by chained_scheduler: every marked load is prefetched with
// `Hint` and the operation hands over to the next one of its ring.
template <prefetch_hint Hint>
struct chained_with {
  static constexpr bool suspends = true;
  static constexpr prefetch_hint hint = Hint;
  static constexpr const char* name = "chained";

  // fetch<M> and yield_point<M> (fetch.hpp) suspend with these.
  template <class T>
  using load_awaiter = detail::chained_load<T>;
  using yield_awaiter = detail::chained_suspension;
};

using chained = chained_with<prefetch_hint::t0>;

class chained_scheduler {
 public:
  static constexpr const char* name = "chained";
  std::size_t group;

  explicit chained_scheduler(std::size_t group_size)
      : group(detail::checked_group(group_size, "chained_scheduler")) {}

  template <class Launch, class Deliver>
  void run(std::size_t count, Launch&& launch, Deliver&& deliver) const {
    using Op = launched_operation_t<Launch>;
    static_assert(detail::chainable_operation<Op>,
                  "chained_scheduler runs coro<T> operations (launch(index) must return a coro)");
    if (count == 0) return;
    detail::chained_ring<Op> ring(std::min(group, count));
    std::size_t next = 0;
    ring.fill(ring.capacity(), next, count, launch, deliver);
    // No group below the ring's capacity: every finished slot is refilled while the input lasts.
    ring.run(SIZE_MAX, next, count, launch, deliver, [](std::size_t) { return false; });
  }
};

}  // namespace braid
