// Schedulers for IMLP kernels: the state machines tools/imlp generates from a kernel
// description (braid/index/generated/<kernel>.hpp, written at build time; the kernels are in
// braid/index/kernels/ of the source tree). After Cimple (Kiriansky et al., PACT'18) §6.2.
//
//   using K = imlp_kernels::binary_search_tree_find<prefetch_hint::t0, node, Key, Value>;
//   imlp_run<K, 64>(imlp_schedule::dynamic, {root}, keys.size(), 48,
//                   [&](auto& slots, std::size_t slot, std::size_t task) { K::start(slots, slot, keys[task]); },
//                   [&](std::size_t task, auto&& result) { out[task] = std::forward<decltype(result)>(result); });
//
// Schedules (all pull tasks 0..count-1 through `start`, and hand each result to `finish` as the
// task completes, so results come out of order: finish(task, value) is the kernel's sink, called
// by the step at its Return with the Return's expression (each Return's own type, such as a
// Value or std::nullopt: take `auto&&` or the result type), and finish(task) for a void kernel;
// imlp_push_scheduler below takes pushed tasks, keeps their results in the contexts and drains
// them in order or out of order):
//   dynamic       dynamic refill (AMAC-like): a finished context takes the next task at once;
//                 Kernel::step (switch) or Kernel::step_goto (computed goto) per context
//   static_batch  group prefetching: `group` tasks start together and advance a stage per round
//                 (Kernel::super_step_static, a for loop per stage over the contexts that
//                 entered the round in it); the batch is refilled when all of it has finished,
//                 so short tasks leave slots idle
//   hybrid        static stages as for loops, the other stages through the switch, refilled at
//                 once (Kernel::super_step_hybrid)
// Width is a template parameter: the contexts are one Kernel::soa<Width> or aos<Width> on the
// stack; min(group, Width, count) of them run. Contexts stay on the calling thread.
//
// Cost: per step, a dispatch (switch, goto or none for static stages) and the kernel's stage;
// per round of hybrid, one pass that lists the contexts by the state they are in, so no stage's
// loop tests a context's state (a static batch's states move in lock step: its loops test it).
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <map>
#include <string>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace braid {

enum class imlp_schedule { dynamic, static_batch, hybrid };
enum class imlp_layout { soa, aos };
enum class imlp_dispatch { switch_table, computed_goto };

constexpr const char* to_string(imlp_schedule s) noexcept {
  return s == imlp_schedule::dynamic ? "dynamic" : s == imlp_schedule::static_batch ? "static" : "hybrid";
}
constexpr const char* to_string(imlp_layout l) noexcept { return l == imlp_layout::soa ? "soa" : "aos"; }
constexpr const char* to_string(imlp_dispatch d) noexcept {
  return d == imlp_dispatch::switch_table ? "switch" : "goto";
}

namespace detail {

template <class Kernel, imlp_layout Layout, std::size_t Width>
using imlp_slots_t = std::conditional_t<Layout == imlp_layout::soa, typename Kernel::template soa<Width>,
                                        typename Kernel::template aos<Width>>;

// Inlined, as the kernel's step is, into the scheduler's loop. Entry: the contexts the switch
// step is compiled for (Kernel::entry).
template <class Kernel, imlp_dispatch Dispatch, auto Entry = Kernel::entry::any, class Slots,
          class Sink = typename Kernel::keep_result>
[[gnu::always_inline]] inline bool imlp_step(Slots& slots, std::size_t slot, const typename Kernel::shared_args& shared,
                                             Sink&& sink = Sink{}) {
  if constexpr (Dispatch == imlp_dispatch::computed_goto) {
    return Kernel::step_goto(slots, slot, shared, sink);
  } else {
    return Kernel::template step<Entry>(slots, slot, shared, sink);
  }
}

// The sink a pull schedule hands the steps: a Return's value goes straight to
// finish(task of the context, value), as a hand-written AMAC stores its result, instead of
// through the context.
template <class Finish>
struct imlp_task_sink {
  Finish& finish;
  const std::size_t* task_of;
  template <class Slots, class... Value>
  [[gnu::always_inline]] void operator()(Slots&, std::size_t slot, Value&&... value) const {
    finish(task_of[slot], std::forward<Value>(value)...);
  }
};

// How many contexts run: the group, at most Width and at most the tasks.
template <std::size_t Width>
std::size_t imlp_active(std::size_t group, std::size_t count) noexcept {
  return std::min({std::max<std::size_t>(group, 1), count, Width});
}

// Starts tasks 0 .. active-1 in contexts 0 .. active-1; returns the next task.
template <class Slots, class Start>
std::size_t imlp_fill(Slots& slots, std::size_t active, std::size_t* task_of, Start& start) {
  for (std::size_t slot = 0; slot < active; ++slot) {
    start(slots, slot, slot);
    task_of[slot] = slot;
  }
  return active;
}

}  // namespace detail

// Dynamic refill: `active` contexts; a finished one (its result delivered by the step) takes
// the next task, whose first step runs at once (up to its first Yield); when tasks run out, the
// last live context moves into the finished one's place, so the drain visits live contexts
// only.
template <class Kernel, std::size_t Width, imlp_layout Layout = imlp_layout::soa,
          imlp_dispatch Dispatch = imlp_dispatch::switch_table, class Start, class Finish>
void imlp_run_dynamic(const typename Kernel::shared_args& shared, std::size_t count, std::size_t group, Start&& start,
                      Finish&& finish) {
  static_assert(Width >= 1);
  if (count == 0) return;
  detail::imlp_slots_t<Kernel, Layout, Width> slots{};
  std::size_t task_of[Width];
  std::size_t live = detail::imlp_active<Width>(group, count);
  std::size_t next = detail::imlp_fill(slots, live, task_of, start);
  const detail::imlp_task_sink<Finish> sink{finish, task_of};
  // Each first step runs at once (a task that ends in it has delivered and is left finished).
  for (std::size_t slot = 0; slot < live; ++slot) {
    (void)Kernel::template step<Kernel::entry::started>(slots, slot, shared, sink);
  }
  while (live > 0) {
    for (std::size_t slot = 0; slot < live;) {
      // Every context is past its first step (the fill and the refill run it at once): the
      // loop holds no copy of the first stage.
      if (!detail::imlp_step<Kernel, Dispatch, Kernel::entry::resumed>(slots, slot, shared, sink)) {
        ++slot;
        continue;
      }
      if (next < count) {
        start(slots, slot, next);
        task_of[slot] = next++;
        // The new task's first step runs now, as AMAC refills (its first prefetch is not a
        // round late), without the dispatch. A task that ends in this step (delivered) stays
        // at this slot; the loop's next step of it finds it finished and refills the slot.
        if (!Kernel::template step<Kernel::entry::started>(slots, slot, shared, sink)) ++slot;
        continue;
      }
      --live;
      if (slot != live) {
        Kernel::move_slot(slots, live, slot);
        task_of[slot] = task_of[live];
      }
    }
  }
}

// Static batches (group prefetching): tasks [base, base + active) start together and advance
// one stage per round, each stage a for loop over the contexts; the next batch starts when the
// whole batch has finished.
template <class Kernel, std::size_t Width, imlp_layout Layout = imlp_layout::soa, class Start, class Finish>
void imlp_run_static(const typename Kernel::shared_args& shared, std::size_t count, std::size_t group, Start&& start,
                     Finish&& finish) {
  static_assert(Width >= 1);
  if (count == 0) return;
  detail::imlp_slots_t<Kernel, Layout, Width> slots{};
  const std::size_t active = detail::imlp_active<Width>(group, count);
  for (std::size_t base = 0; base < count; base += active) {
    const std::size_t width = std::min(active, count - base);
    for (std::size_t slot = 0; slot < width; ++slot) start(slots, slot, base + slot);
    std::size_t live = width;
    const auto sink = [&finish, base](auto&, std::size_t slot, auto&&... value) {
      finish(base + slot, std::forward<decltype(value)>(value)...);
    };
    while (live > 0) {
      Kernel::super_step_static(slots, width, shared, [&live](std::size_t) { --live; }, sink);
    }
  }
}

// Hybrid: each round runs the kernel's static stages as for loops and its other stages
// through the switch; a finished context takes the next task at once.
template <class Kernel, std::size_t Width, imlp_layout Layout = imlp_layout::soa, class Start, class Finish>
void imlp_run_hybrid(const typename Kernel::shared_args& shared, std::size_t count, std::size_t group, Start&& start,
                     Finish&& finish) {
  static_assert(Width >= 1);
  if (count == 0) return;
  detail::imlp_slots_t<Kernel, Layout, Width> slots{};
  std::size_t task_of[Width];
  const std::size_t active = detail::imlp_active<Width>(group, count);
  std::size_t next = detail::imlp_fill(slots, active, task_of, start);
  const detail::imlp_task_sink<Finish> sink{finish, task_of};
  std::size_t live = active;
  while (live > 0) {
    Kernel::super_step_hybrid(
        slots, active, shared,
        [&](std::size_t slot) {
          if (next < count) {
            start(slots, slot, next);
            task_of[slot] = next++;
          } else {
            --live;
          }
        },
        sink);
  }
}

template <class Kernel, std::size_t Width, imlp_layout Layout = imlp_layout::soa,
          imlp_dispatch Dispatch = imlp_dispatch::switch_table, class Start, class Finish>
void imlp_run(imlp_schedule schedule, const typename Kernel::shared_args& shared, std::size_t count, std::size_t group,
              Start&& start, Finish&& finish) {
  switch (schedule) {
    case imlp_schedule::dynamic:
      imlp_run_dynamic<Kernel, Width, Layout, Dispatch>(shared, count, group, start, finish);
      return;
    case imlp_schedule::static_batch:
      imlp_run_static<Kernel, Width, Layout>(shared, count, group, start, finish);
      return;
    case imlp_schedule::hybrid:
      imlp_run_hybrid<Kernel, Width, Layout>(shared, count, group, start, finish);
      return;
  }
}

// The multi_find of a one-Arg kernel: out[i] = the kernel's result for inputs[i]. The width
// is 16 for groups up to 16 and 128 above (a larger group runs 128 in flight).
template <class Kernel, imlp_layout Layout = imlp_layout::soa, imlp_dispatch Dispatch = imlp_dispatch::switch_table,
          class Inputs, class Out>
void imlp_map(imlp_schedule schedule, const typename Kernel::shared_args& shared, const Inputs& inputs, Out& out,
              std::size_t group) {
  // The arrays by pointer, held in the lambdas: a result stored into `out` cannot move them,
  // so the loop does not reload them.
  auto start = [input = std::data(inputs)](auto& slots, std::size_t slot, std::size_t task) {
    Kernel::start(slots, slot, input[task]);
  };
  auto finish = [result = std::data(out)](std::size_t task, auto&& value) {
    result[task] = std::forward<decltype(value)>(value);
  };
  if (group <= 16) {
    imlp_run<Kernel, 16, Layout, Dispatch>(schedule, shared, inputs.size(), group, start, finish);
  } else {
    imlp_run<Kernel, 128, Layout, Dispatch>(schedule, shared, inputs.size(), group, start, finish);
  }
}

// Push-style scheduler: tasks are pushed one at a time (a ticket each) and run `group` at a
// time by dynamic refill; results are drained in ticket order or as they finish.
//   push(args...)               starts a task; when all contexts are busy it first runs rounds
//                               until one finishes (that result waits for a drain)
//   drain_out_of_order(f)       runs every task to its end, f(ticket, result) as each finishes
//   drain_in_order(f)           the same, f called in ticket order (a finished task waits for
//                               the tasks pushed before it)
//   drain_until(ticket)         runs until that task has finished and returns its result; the
//                               others stay for later drains. Throws std::invalid_argument for
//                               a ticket never pushed or already drained.
// Not thread-safe: one scheduler per thread, as every IMLP context stays on its thread.
template <class Kernel, std::size_t Width, imlp_layout Layout = imlp_layout::soa,
          imlp_dispatch Dispatch = imlp_dispatch::switch_table>
class imlp_push_scheduler {
 public:
  using result_type = typename Kernel::result_type;
  using ticket = std::size_t;
  static_assert(Width >= 1);

  // Throws std::invalid_argument for a group of 0; a group above Width runs Width.
  explicit imlp_push_scheduler(const typename Kernel::shared_args& shared, std::size_t group = Width)
      : shared_(shared), active_(std::min(group, Width)) {
    if (group == 0) throw std::invalid_argument("imlp_push_scheduler: group must be at least 1");
  }

  template <class... Args>
  ticket push(Args&&... args) {
    while (live_ == active_) round();
    Kernel::start(slots_, live_, std::forward<Args>(args)...);
    task_of_[live_++] = next_ticket_;
    return next_ticket_++;
  }

  [[nodiscard]] std::size_t in_flight() const noexcept { return live_; }
  [[nodiscard]] std::size_t waiting() const noexcept { return finished_.size(); }

  template <class F>
  void drain_out_of_order(F&& f) {
    for (;;) {
      for (auto& [done, result] : finished_) f(done, std::move(result));
      finished_.clear();
      if (live_ == 0) return;
      round();
    }
  }

  template <class F>
  void drain_in_order(F&& f) {
    for (;;) {
      // Every task before the oldest one still running has finished: deliver those.
      ticket oldest_running = next_ticket_;
      for (std::size_t slot = 0; slot < live_; ++slot) oldest_running = std::min(oldest_running, task_of_[slot]);
      auto end = finished_.lower_bound(oldest_running);
      for (auto it = finished_.begin(); it != end; ++it) f(it->first, std::move(it->second));
      finished_.erase(finished_.begin(), end);
      if (live_ == 0) return;
      round();
    }
  }

  result_type drain_until(ticket wanted) {
    for (;;) {
      if (auto it = finished_.find(wanted); it != finished_.end()) {
        result_type result = std::move(it->second);
        finished_.erase(it);
        return result;
      }
      if (std::find(task_of_, task_of_ + live_, wanted) == task_of_ + live_) {
        throw std::invalid_argument("imlp_push_scheduler::drain_until: ticket " + std::to_string(wanted) +
                                    " is not pushed or already drained");
      }
      round();
    }
  }

 private:
  // One step of every running task; a finished one leaves its result in finished_ and the
  // last running task takes its context.
  void round() {
    for (std::size_t slot = 0; slot < live_;) {
      if (!detail::imlp_step<Kernel, Dispatch>(slots_, slot, shared_)) {
        ++slot;
        continue;
      }
      finished_.emplace(task_of_[slot], std::move(slots_.result(slot)));
      if (slot != --live_) {
        Kernel::move_slot(slots_, live_, slot);
        task_of_[slot] = task_of_[live_];
      }
    }
  }

  typename Kernel::shared_args shared_;
  std::size_t active_;
  detail::imlp_slots_t<Kernel, Layout, Width> slots_{};
  ticket task_of_[Width]{};
  std::size_t live_ = 0;
  ticket next_ticket_ = 0;
  std::map<ticket, result_type> finished_;
};

}  // namespace braid
