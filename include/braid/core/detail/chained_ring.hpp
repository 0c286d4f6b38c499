// chained_ring: the circle of coro operations that chained_scheduler runs, and that
// adaptive_scheduler's interleaved windows run when their operations can chain.
//
// Slots keep their positions; successor / predecessor name the circle of live slots, and each
// live operation's promise links to the next one's (detail/chain_link.hpp), so a chained
// suspension hands over without coming back here. run() resumes the circle at `current` and
// gets control back only when an operation finishes (or suspends by another awaiter; it learns
// which from the thread's record of the last linked coro to finish, and leaves that record as
// it found it when it returns, so a ring may run inside an operation of another); it then
// delivers the result and either gives the slot the next input, which takes over the finished
// operation's link (relinked only if its frame is another one), or takes the slot out of the
// circle. fill() launches inputs into free slots and links each in before `current`.
//
// Invariants: when control is here every live operation is suspended and its link names the
// next live slot's operation (itself, if alone); a free slot holds no operation; at most
// `capacity` slots are live. A just-launched operation is unlinked: its first suspension
// returns to the launcher. Complexity: O(1) per finished operation, per launch and per
// removal; storage from the frame pool.
#pragma once

#include <coroutine>
#include <cstddef>
#include <utility>

#include "braid/core/detail/chain_link.hpp"
#include "braid/core/detail/scratch_array.hpp"
#include "braid/core/operation.hpp"
#include "braid/core/scheduler.hpp"

namespace braid::detail {

// An operation chained_ring can run: a coro whose promise holds a chain link.
template <class Op>
concept chainable_operation = operation<Op> && requires(Op& op) { op.handle().promise().chain; };

template <chainable_operation Op>
class chained_ring {
 public:
  explicit chained_ring(std::size_t capacity)
      : slots_(capacity), successor_(capacity), predecessor_(capacity), free_(capacity) {}

  [[nodiscard]] std::size_t live() const noexcept { return live_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return slots_.capacity(); }

  // Launches inputs from `next` until `group` operations are live or the input is exhausted
  // (delivering those that finish at once); each joins the circle just before `current`.
  template <class Launch, class Deliver>
  void fill(std::size_t group, std::size_t& next, std::size_t count, Launch& launch, Deliver& deliver) {
    while (live_ < group && live_ < capacity()) {
      auto op = launch_until_suspended(next, count, launch, deliver);
      if (!op) return;
      std::size_t slot;
      if (free_count_ > 0) {
        slot = free_[--free_count_];
        slots_[slot].op = std::move(*op);
        slots_[slot].index = next - 1;
      } else {
        slot = slots_.live();
        slots_.push(std::move(*op), next - 1);
      }
      link_in(slot);
    }
  }

  // Resumes the circle until stop(live operations) holds after a finished operation, or no
  // operation is live. The finished operation's slot takes the next input while at most
  // `group` are live (with it) and the input lasts; otherwise the slot leaves the circle. If
  // an operation or `deliver` throws, the ring may only be destroyed.
  template <class Launch, class Deliver, class Stop>
  [[gnu::always_inline]] void run(std::size_t group, std::size_t& next, std::size_t count, Launch& launch,
                                  Deliver& deliver, Stop&& stop) {
    // The loop works on locals: the ring's own members would be reloaded after every resume,
    // which the compiler must assume may change them once the ring's address has escaped.
    auto* const slots = &slots_[0];
    std::size_t* const successor = &successor_[0];
    std::size_t* const predecessor = &predecessor_[0];
    auto handle_of = [slots](std::size_t slot) { return slots[slot].op.handle(); };
    std::size_t current = current_;
    std::size_t live = live_;
    const finish_record_scope record_scope;  // an enclosing ring's record survives this run
    while (live > 0) {
      last_finished_frame = nullptr;
      handle_of(current).resume();  // runs the chain until an operation finishes
      void* const finished = last_finished_frame;
      if (finished == nullptr) [[unlikely]] continue;  // suspended by another awaiter: resume the chain again
      const chain_link link = handle_type::from_address(finished).promise().chain;
      const std::size_t slot = link.slot;
      auto& entry = slots[slot];
      deliver_result(entry.op, entry.index, deliver);
      if (live <= group && start_next(entry, next, count, launch, deliver)) {
        const handle_type started = handle_of(slot);
        started.promise().chain = link;  // the successor of the finished operation
        // The frame pool usually hands the finished frame to the next operation, and then the
        // predecessor's link names it already; otherwise it is relinked (itself, if alone).
        if (started.address() != finished) [[unlikely]] {
          handle_of(predecessor[slot]).promise().chain.next = started;
        }
        current = successor[slot];
      } else {  // the slot leaves the circle
        entry.op.reset();
        free_[free_count_++] = slot;
        current = successor[slot];
        if (--live > 0) {
          const std::size_t before = predecessor[slot];
          successor[before] = current;
          predecessor[current] = before;
          handle_of(before).promise().chain.next = handle_of(current);
        }
      }
      if (stop(live)) break;
    }
    live_ = live;
    current_ = current;
  }

 private:
  using handle_type = decltype(std::declval<Op&>().handle());

  handle_type handle_at(std::size_t slot) noexcept { return slots_[slot].op.handle(); }

  void link_in(std::size_t slot) noexcept {
    if (live_++ == 0) {
      successor_[slot] = predecessor_[slot] = current_ = slot;
    } else {
      const std::size_t before = predecessor_[current_];
      successor_[before] = slot;
      predecessor_[slot] = before;
      successor_[slot] = current_;
      predecessor_[current_] = slot;
      handle_at(before).promise().chain.next = handle_at(slot);
    }
    handle_at(slot).promise().chain = {handle_at(successor_[slot]), slot};
  }

  // Gives a slot whose operation finished the next input that suspends (delivering those that
  // finish at once); false when the input is exhausted.
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
      deliver_result(slot.op, index, deliver);
    }
    return false;
  }

  operation_ring<Op> slots_;  // positions fixed: a free slot keeps an empty operation
  scratch_array<std::size_t> successor_;
  scratch_array<std::size_t> predecessor_;
  scratch_array<std::size_t> free_;  // free slot positions below slots_.live()
  std::size_t free_count_ = 0;
  std::size_t live_ = 0;
  std::size_t current_ = 0;  // the slot the chain resumes at
};

}  // namespace braid::detail
