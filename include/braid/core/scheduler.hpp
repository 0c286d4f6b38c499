// Schedulers: run `count` operations, created on demand by `launch(index)`, and hand every
// result to `deliver(index, result)` (or `deliver(index)` for void operations). Every index
// in [0, count) is launched exactly once and delivered exactly once; delivery order is
// completion order, the index restores input order.
//
//   sequential_scheduler            one operation after another: the plain loop.
//   interleaved_scheduler{group}    a ring of `group` operations in flight, resumed round-robin;
//                                   a finished slot is refilled at once (AMAC order).
//   batched_scheduler{group}        strict batches of `group`: the next batch is launched when
//                                   every operation of the current one has finished (GP order,
//                                   CoroBase's batch scheduler).
//
// Schedulers never allocate from the global heap once the frame pool is warm: the ring lives
// in the calling thread's frame pool. If an operation or the sink throws, the operations in
// flight are destroyed (their frames freed) and the exception propagates to the caller.
//
// The convenience functions at the end map a range of inputs through an operation factory:
//   std::vector<R> results = braid::run(braid::interleaved_scheduler{16}, keys,
//                                       [&](int key) { return find<braid::interleaved>(t, key); });
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <new>
#include <optional>
#include <ranges>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "braid/core/frame_pool.hpp"
#include "braid/core/operation.hpp"

namespace braid {

namespace detail {

inline std::size_t checked_group(std::size_t group, const char* scheduler) {
  if (group == 0) {
    throw std::invalid_argument(std::string(scheduler) + ": group size must be at least 1");
  }
  return group;
}

// A fixed array of in-flight operations with their input indices, kept in the frame pool.
template <class Op>
class operation_ring {
 public:
  struct slot {
    Op op;
    std::size_t index;
  };

  explicit operation_ring(std::size_t capacity)
      : slots_(static_cast<slot*>(frame_pool::allocate(capacity * sizeof(slot)))),
        capacity_(capacity) {
    static_assert(alignof(slot) <= frame_pool::alignment);
  }
  operation_ring(const operation_ring&) = delete;
  operation_ring& operator=(const operation_ring&) = delete;
  ~operation_ring() {
    std::destroy_n(slots_, live_);
    frame_pool::deallocate(slots_, capacity_ * sizeof(slot));
  }

  [[nodiscard]] std::size_t live() const noexcept { return live_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  slot& operator[](std::size_t position) noexcept { return slots_[position]; }

  void push(Op&& op, std::size_t index) {
    std::construct_at(slots_ + live_, slot{std::move(op), index});
    ++live_;
  }

  // Removes the slot at `position` by moving the last live slot into it.
  void retire(std::size_t position) noexcept {
    --live_;
    if (position != live_) slots_[position] = std::move(slots_[live_]);
    std::destroy_at(slots_ + live_);
  }

 private:
  slot* slots_;
  std::size_t capacity_;
  std::size_t live_ = 0;
};

// Launches inputs from `next` until one suspends; returns it, or nullopt when the input is
// exhausted. Operations that finish at once are delivered on the way.
template <class Launch, class Deliver>
inline auto launch_until_suspended(std::size_t& next, std::size_t count, Launch& launch,
                                   Deliver& deliver) -> std::optional<launched_operation_t<Launch>> {
  while (next < count) {
    const std::size_t index = next++;
    launched_operation_t<Launch> op = launch(index);
    start(op);
    if (!op.done()) return std::optional{std::move(op)};
    deliver_result(op, index, deliver);
  }
  return std::nullopt;
}

// Launches inputs from `next` into `ring` until it holds `target` operations in flight or the
// input is exhausted.
template <class Op, class Launch, class Deliver>
void fill_ring(operation_ring<Op>& ring, std::size_t target, std::size_t& next, std::size_t count, Launch& launch,
               Deliver& deliver) {
  while (ring.live() < target) {
    auto op = launch_until_suspended(next, count, launch, deliver);
    if (!op) return;
    ring.push(std::move(*op), next - 1);
  }
}

// Gives a slot whose operation finished the next input that suspends; false when the input is
// exhausted. Like resume_round, always inlined: it runs once per operation.
template <class Slot, class Launch, class Deliver>
[[gnu::always_inline]] inline bool refill_slot(Slot& slot, std::size_t& next, std::size_t count, Launch& launch,
                                               Deliver& deliver) {
  slot.op.reset();  // free the frame first: the next operation reuses it, hot in cache
  auto op = launch_until_suspended(next, count, launch, deliver);
  if (!op) return false;
  slot.op = std::move(*op);
  slot.index = next - 1;
  return true;
}

// One round over the ring: resumes every operation in flight once. A finished one is
// delivered, then refill(slot) may give its slot a new operation (true), which waits for the
// next round; otherwise the slot is retired. Always inlined into the scheduler's loop: called,
// it made interleaved lookups up to a third slower (linear-probing table, coro and fiber).
template <class Op, class Deliver, class Refill>
[[gnu::always_inline]] inline void resume_round(operation_ring<Op>& ring, Deliver& deliver, Refill&& refill) {
  for (std::size_t position = 0; position < ring.live();) {
    auto& slot = ring[position];
    slot.op.resume();
    if (slot.op.done()) {
      deliver_result(slot.op, slot.index, deliver);
      if (!refill(slot)) {
        ring.retire(position);  // the last live slot moved here: resume it next
        continue;
      }
    }
    ++position;
  }
}

// The ring loop shared by the interleaved (refill at once) and batched (refill when the
// batch is empty) schedulers.
template <bool refill_at_once, class Launch, class Deliver>
void run_ring(std::size_t group, std::size_t count, Launch& launch, Deliver& deliver) {
  using Op = launched_operation_t<Launch>;
  static_assert(operation<Op>, "launch(index) must return a braid operation (coro, task, fiber)");
  if (count == 0) return;

  operation_ring<Op> ring(std::min(group, count));
  std::size_t next = 0;
  fill_ring(ring, ring.capacity(), next, count, launch, deliver);
  while (ring.live() > 0) {
    resume_round(ring, deliver, [&](auto& slot) {
      if constexpr (refill_at_once) return refill_slot(slot, next, count, launch, deliver);
      else return false;
    });
    if constexpr (!refill_at_once) {
      // strict batches: the next starts when all are done
      if (ring.live() == 0) fill_ring(ring, ring.capacity(), next, count, launch, deliver);
    }
  }
}

// The schedulers with a ring of `group` operations in flight: interleaved and batched.
template <bool refill_at_once>
struct ring_scheduler {
  std::size_t group;

  template <class Launch, class Deliver>
  void run(std::size_t count, Launch&& launch, Deliver&& deliver) const {
    run_ring<refill_at_once>(group, count, launch, deliver);
  }
};

}  // namespace detail

struct sequential_scheduler {
  static constexpr const char* name = "sequential";

  template <class Launch, class Deliver>
  void run(std::size_t count, Launch&& launch, Deliver&& deliver) const {
    for (std::size_t index = 0; index < count; ++index) {
      launched_operation_t<Launch> op = launch(index);
      detail::start(op);
      while (!op.done()) op.resume();
      detail::deliver_result(op, index, deliver);
    }
  }
};

struct interleaved_scheduler : detail::ring_scheduler<true> {
  static constexpr const char* name = "interleaved";
  explicit interleaved_scheduler(std::size_t group_size)
      : ring_scheduler{detail::checked_group(group_size, "interleaved_scheduler")} {}
};

struct batched_scheduler : detail::ring_scheduler<false> {
  static constexpr const char* name = "batched";
  explicit batched_scheduler(std::size_t group_size)
      : ring_scheduler{detail::checked_group(group_size, "batched_scheduler")} {}
};

template <class S>
concept scheduler = requires(const S& s) {
  { S::name } -> std::convertible_to<const char*>;
};

// ---- mapping a range of inputs ----------------------------------------------------------

// Runs make_operation(inputs[i]) for every input and writes its result to out[i].
template <scheduler S, std::ranges::random_access_range Inputs, class MakeOperation, class R>
void run_into(const S& sched, const Inputs& inputs, MakeOperation&& make_operation,
              std::span<R> out) {
  const auto count = static_cast<std::size_t>(std::ranges::size(inputs));
  if (out.size() < count) throw std::invalid_argument("run_into: output shorter than input");
  auto first = std::ranges::begin(inputs);
  sched.run(
      count, [&](std::size_t index) { return make_operation(first[index]); },
      [&](std::size_t index, auto&& result) { out[index] = std::forward<decltype(result)>(result); });
}

// Runs make_operation(inputs[i]) for every input; returns the results in input order.
template <scheduler S, std::ranges::random_access_range Inputs, class MakeOperation>
auto run(const S& sched, const Inputs& inputs, MakeOperation&& make_operation) {
  using Op = std::remove_cvref_t<
      std::invoke_result_t<MakeOperation&, std::ranges::range_reference_t<const Inputs>>>;
  using R = typename Op::result_type;
  static_assert(std::is_default_constructible_v<R>,
                "braid::run collects into a vector; use sched.run(count, launch, deliver) for "
                "results that are not default-constructible");
  std::vector<R> results(static_cast<std::size_t>(std::ranges::size(inputs)));
  run_into(sched, inputs, make_operation, std::span<R>(results));
  return results;
}

}  // namespace braid
