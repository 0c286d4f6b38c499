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
// operation finishes). The scheduler learns which operation finished from the last coro that
// finished on the thread (detail/chain_link.hpp): an operation of the ring that runs other
// coros to completion inside its body must not then suspend by a non-chained awaiter before
// some operation of the ring finishes (the scheduler would take the nested coro for its own).
#pragma once

#include <algorithm>
#include <coroutine>
#include <cstddef>
#include <utility>

#include "braid/core/coro.hpp"
#include "braid/core/detail/chain_link.hpp"
#include "braid/core/detail/scratch_array.hpp"
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
    static_assert(operation<Op> && requires(Op& op) { op.handle().promise().chain; },
                  "chained_scheduler runs coro<T> operations (launch(index) must return a coro)");
    if (count == 0) return;

    // Slots keep their positions; successor / predecessor give the circle of live slots.
    detail::operation_ring<Op> ring(std::min(group, count));
    std::size_t next = 0;
    detail::fill_ring(ring, ring.capacity(), next, count, launch, deliver);  // unlinked: plain first suspensions
    std::size_t live = ring.live();
    if (live == 0) return;
    detail::scratch_array<std::size_t> successor(live);
    detail::scratch_array<std::size_t> predecessor(live);
    auto handle_at = [&ring](std::size_t slot) { return ring[slot].op.handle(); };
    for (std::size_t slot = 0; slot < live; ++slot) {
      successor[slot] = slot + 1 == live ? 0 : slot + 1;
      predecessor[slot] = slot == 0 ? live - 1 : slot - 1;
    }
    for (std::size_t slot = 0; slot < live; ++slot) {
      handle_at(slot).promise().chain = {handle_at(successor[slot]), slot};
    }

    std::size_t current = 0;
    while (live > 0) {
      detail::last_finished_frame = nullptr;
      handle_at(current).resume();  // runs the chain until an operation finishes
      void* const finished = detail::last_finished_frame;
      if (finished == nullptr) [[unlikely]] continue;  // suspended by another awaiter: resume the chain again
      using handle_type = decltype(handle_at(0));
      const detail::chain_link link = handle_type::from_address(finished).promise().chain;
      const std::size_t slot = link.slot;
      auto& entry = ring[slot];
      detail::deliver_result(entry.op, entry.index, deliver);
      if (start_next(entry, next, count, launch, deliver)) {
        const auto started = handle_at(slot);
        started.promise().chain = link;  // the successor of the finished operation
        // The frame pool usually hands the finished frame to the next operation, and then the
        // predecessor's link names it already; otherwise it is relinked (itself, if alone).
        if (started.address() != finished) [[unlikely]] {
          handle_at(predecessor[slot]).promise().chain.next = started;
        }
      } else if (--live > 0) {  // the input is exhausted: the slot leaves the circle
        const std::size_t before = predecessor[slot];
        const std::size_t after = successor[slot];
        successor[before] = after;
        predecessor[after] = before;
        handle_at(before).promise().chain.next = handle_at(after);
      }
      current = successor[slot];
    }
  }

 private:
  // Gives a slot whose operation finished the next input that suspends (delivering those that
  // finish at once); false, and the slot empty, when the input is exhausted.
  template <class Slot, class Launch, class Deliver>
  [[gnu::always_inline]] static bool start_next(Slot& slot, std::size_t& next, std::size_t count, Launch& launch,
                                                Deliver& deliver) {
    slot.op.reset();  // free the frame first: the next operation reuses it, hot in cache
    while (next < count) {
      const std::size_t index = next++;
      slot.op = launch(index);
      if (!slot.op.done()) {
        slot.index = index;
        return true;
      }
      detail::deliver_result(slot.op, index, deliver);
    }
    slot.op.reset();
    return false;
  }
};

}  // namespace braid
