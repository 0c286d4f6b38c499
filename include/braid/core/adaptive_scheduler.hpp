// adaptive_scheduler: picks, while it runs, between the plain loop and interleaving, and the
// group size, from the throughput it measures.
//
//   braid::adaptive_scheduler adaptive;                    // keep one per thread: it remembers
//   adaptive.run(keys.size(),                              // what it learned across runs
//                [&](std::size_t i) { return find<braid::sequential>(t, keys[i]); },
//                [&](std::size_t i) { return find<braid::interleaved>(t, keys[i]); },
//                [&](std::size_t i, auto result) { out[i] = result; });
//
// The work is cut into windows of `window` completed operations. Each window runs one
// setting: plain (the sequential instantiation, one operation after another) or interleaved
// with a group of g operations in flight (refilled at once, as interleaved_scheduler). The
// cycle counter times every window. A hill climb moves on the ladder
//   plain, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64   (up to max_group)
// Every few windows one window probes another rung: the one below, the one above, and a jump
// (to the plain loop from higher up, or from the bottom back to the starting rung) in turn.
// A rung cheaper than the current setting's smoothed cost by more than the hysteresis (the
// plain loop: cheaper at all) becomes the setting, and the climb probes on in that direction
// at once; one cheaper by less (a plateau) has the rung beyond it probed next. When all three
// kinds of probe have lost, the interval to the next probe doubles (up to max_probe_interval
// windows), so probing costs a fraction of a percent once the setting is right. When the
// current setting's cost changes by more than a quarter in two windows in a row (the working
// set moved from cache to DRAM, or back), the interval resets and the climb starts again from
// where it is; one such window alone is taken as noise.
//
// Interleaved windows share one ring: shrinking the group stops refilling until enough
// operations finish, growing it launches more at once, so switching costs no drain. Switching
// to plain resumes the operations still in flight to completion first. Coros that can chain
// (written for chained_with<H>) run on chained_scheduler's ring (detail/chained_ring.hpp): they
// hand over to each other at every suspension, and the scheduler runs only when one finishes.
//
// Guarantees: every index in [0, count) is launched exactly once (by one of the two launchers)
// and delivered exactly once; results are those of the operations, whichever launcher made
// them, so the two must compute the same thing (a structure's lookup<sequential> and
// lookup<interleaved>). run() with one launcher adapts the group only (1 is the bottom rung).
// Exceptions from an operation or the sink propagate after the operations in flight are freed.
// Not thread-safe: one scheduler per thread (its learned setting is per instance).
//
// Cost: one cycle-counter read per window and a few comparisons; no heap allocation once the
// frame pool is warm (the ring is pooled, the ladder is a fixed array).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "braid/core/cycles.hpp"
#include "braid/core/detail/chained_ring.hpp"
#include "braid/core/operation.hpp"
#include "braid/core/scheduler.hpp"

namespace braid {

// The policy of adaptive_scheduler, apart from running operations: which setting to run the
// next window with, given what the earlier windows cost. Exposed for tests and for runtimes
// that adapt something else the same way.
class adaptive_controller {
 public:
  static constexpr std::size_t plain = 0;  // the setting "no interleaving"

  struct settings {
    std::size_t max_group = 64;
    bool plain_allowed = true;
    double hysteresis = 0.03;               // a neighbour must be this much cheaper to win
    double change_threshold = 0.25;         // relative cost change that restarts the climb
    std::size_t first_probe_interval = 2;   // windows between probes after a move or a change
    std::size_t max_probe_interval = 64;
    std::size_t start_group = 8;            // the first setting (nearest rung)
  };

  adaptive_controller() : adaptive_controller(settings{}) {}
  explicit adaptive_controller(const settings& chosen) : settings_(chosen) {
    if (chosen.max_group == 0) throw std::invalid_argument("adaptive_controller: max_group must be at least 1");
    if (!(chosen.hysteresis >= 0 && chosen.hysteresis < 1)) {
      throw std::invalid_argument("adaptive_controller: hysteresis must be in [0, 1)");
    }
    if (chosen.first_probe_interval == 0 || chosen.max_probe_interval < chosen.first_probe_interval) {
      throw std::invalid_argument("adaptive_controller: probe intervals must satisfy 1 <= first <= max");
    }
    constexpr std::array<std::size_t, 11> groups = {2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64};
    rungs_[rung_count_++] = chosen.plain_allowed ? plain : 1;
    for (std::size_t group : groups) {
      if (group <= chosen.max_group) rungs_[rung_count_++] = group;
    }
    if (chosen.max_group > 1 && rungs_[rung_count_ - 1] != chosen.max_group && chosen.max_group < 64) {
      rungs_[rung_count_++] = chosen.max_group;  // an odd maximum is a rung of its own
    }
    current_ = start_ = nearest_rung(chosen.start_group);
    interval_ = chosen.first_probe_interval;
  }

  // The setting of the next window: a group size, or `plain`.
  [[nodiscard]] std::size_t next_setting() {
    if (windows_since_probe_ >= interval_ && rung_count_ > 1) {
      probing_ = next_probe_ ? *next_probe_ : cycle_probe();
      next_probe_.reset();
      return rungs_[*probing_];
    }
    return rungs_[current_];
  }

  // What the window run with `setting` cost: `cycles` for `operations` completions.
  void record(std::size_t setting, std::uint64_t cycles, std::size_t operations) {
    if (operations == 0) return;
    const double cost = static_cast<double>(cycles) / static_cast<double>(operations);
    if (probing_ && rungs_[*probing_] == setting) {
      finish_probe(cost);
      return;
    }
    probing_.reset();
    ++windows_since_probe_;
    const double before = cost_[current_];
    const double change = 1 + settings_.change_threshold;
    if (before > 0 && (cost > before * change || cost < before / change)) {
      // One window off is noise (an interrupt, a page fault); two in a row are a new working
      // set: the climb restarts from the new cost.
      if (++changed_windows_ < 2) return;
      cost_[current_] = cost;
      restart_climb();
      return;
    }
    changed_windows_ = 0;
    // The current setting's cost: smoothed, so that one noisy window neither wins nor loses a probe.
    cost_[current_] = before > 0 ? 0.75 * before + 0.25 * cost : cost;
  }

  [[nodiscard]] std::size_t current_setting() const noexcept { return rungs_[current_]; }
  [[nodiscard]] std::size_t probe_interval() const noexcept { return interval_; }

 private:
  [[nodiscard]] std::size_t nearest_rung(std::size_t group) const noexcept {
    const auto distance = [group](std::size_t value) { return value > group ? value - group : group - value; };
    std::size_t best = 0;
    for (std::size_t rung = 0; rung < rung_count_; ++rung) {
      if (distance(rungs_[rung]) < distance(rungs_[best])) best = rung;
    }
    return best;
  }

  // Probes take turns: the rung below, the rung above, and a jump: to the bottom rung (the
  // plain loop) from higher up, or from the bottom to the starting rung. Costs need not fall
  // monotonically towards the best setting (a binary search in DRAM: plain beats a group of 2,
  // a group of 16 beats both), so neighbours alone could stop in the wrong valley.
  [[nodiscard]] std::size_t cycle_probe() {
    for (;;) {
      const std::size_t turn = turn_++ % 3;
      if (turn == 0 && current_ > 0) return current_ - 1;
      if (turn == 1 && current_ + 1 < rung_count_) return current_ + 1;
      if (turn == 2 && current_ > 1) return 0;
      if (turn == 2 && current_ <= 1 && start_ > current_ + 1) return start_;
    }
  }

  // The rung one further from current_ than `rung`, if the ladder goes on.
  [[nodiscard]] std::optional<std::size_t> beyond(std::size_t rung) const noexcept {
    if (rung < current_ && rung > 0) return rung - 1;
    if (rung > current_ && rung + 1 < rung_count_) return rung + 1;
    return std::nullopt;
  }

  void finish_probe(double cost) {
    const std::size_t probed = *probing_;
    probing_.reset();
    cost_[probed] = cost;
    windows_since_probe_ = 0;
    const double current_cost = cost_[current_];
    // The plain loop wins ties: it is the code with nothing to go wrong.
    const double margin = rungs_[probed] == plain ? 0.0 : settings_.hysteresis;
    if (current_cost <= 0 || cost < current_cost * (1 - margin)) {
      const std::size_t from = current_;
      current_ = probed;
      losses_in_a_row_ = 0;
      interval_ = settings_.first_probe_interval;
      windows_since_probe_ = interval_;  // probe on at once, in the same direction
      next_probe_ = probed < from ? (probed > 0 ? std::optional(probed - 1) : std::nullopt)
                                  : (probed + 1 < rung_count_ ? std::optional(probed + 1) : std::nullopt);
      return;
    }
    if (cost < current_cost) {
      // Cheaper, but within the hysteresis: a plateau. Look one rung further that way.
      if (const auto further = beyond(probed)) {
        next_probe_ = further;
        windows_since_probe_ = interval_;
        return;
      }
    }
    // Every kind of probe lost since the last move: the setting is right; back off.
    if (++losses_in_a_row_ >= 3) interval_ = std::min(interval_ * 2, settings_.max_probe_interval);
  }

  void restart_climb() {
    changed_windows_ = 0;
    interval_ = settings_.first_probe_interval;
    windows_since_probe_ = interval_;
    losses_in_a_row_ = 0;
    next_probe_.reset();
    for (std::size_t rung = 0; rung < rung_count_; ++rung) {
      if (rung != current_) cost_[rung] = 0;  // what the old working set cost says nothing now
    }
  }

  settings settings_;
  std::array<std::size_t, 13> rungs_{};
  std::array<double, 13> cost_{};  // cycles per operation of each rung's latest window; 0: unknown
  std::size_t rung_count_ = 0;
  std::size_t current_ = 0;
  std::size_t start_ = 0;                  // the starting rung, where jumps from the bottom go
  std::optional<std::size_t> probing_;     // the rung the current window probes
  std::optional<std::size_t> next_probe_;  // the rung the next probe must try (a climb goes on)
  std::size_t windows_since_probe_ = 0;
  std::size_t interval_ = 1;
  std::size_t losses_in_a_row_ = 0;
  std::size_t changed_windows_ = 0;  // consecutive windows whose cost jumped
  std::size_t turn_ = 0;
};

namespace detail {
// The ring of the interleaved windows: chained_scheduler's for coros that can chain.
template <class Op>
struct adaptive_ring {
  using type = operation_ring<Op>;
};
template <chainable_operation Op>
struct adaptive_ring<Op> {
  using type = chained_ring<Op>;
};
}  // namespace detail

class adaptive_scheduler {
 public:
  static constexpr const char* name = "adaptive";

  struct settings {
    std::size_t window = 512;   // completed operations per measured window
    std::size_t max_group = 64;
  };

  adaptive_scheduler() : adaptive_scheduler(settings{}) {}
  explicit adaptive_scheduler(const settings& chosen)
      : window_(chosen.window),
        max_group_(chosen.max_group),
        with_plain_(adaptive_controller::settings{.max_group = chosen.max_group, .plain_allowed = true}),
        interleaved_only_(adaptive_controller::settings{.max_group = chosen.max_group, .plain_allowed = false}) {
    if (chosen.window == 0) throw std::invalid_argument("adaptive_scheduler: window must be at least 1");
  }

  // Adapts between launch_plain (a sequential-mode operation) and launch_interleaved.
  template <class LaunchPlain, class LaunchInterleaved, class Deliver>
  void run(std::size_t count, LaunchPlain&& launch_plain, LaunchInterleaved&& launch_interleaved,
           Deliver&& deliver) const {
    run_windows(count, &launch_plain, launch_interleaved, deliver, with_plain_);
  }

  // Adapts the group size only (group 1 is the bottom rung): the form braid::run uses.
  template <class Launch, class Deliver>
  void run(std::size_t count, Launch&& launch, Deliver&& deliver) const {
    run_windows(count, static_cast<std::remove_reference_t<Launch>*>(nullptr), launch, deliver, interleaved_only_);
  }

  // The setting the last run ended with: a group size, or 0 for the plain loop.
  [[nodiscard]] std::size_t current_setting(bool with_plain = true) const noexcept {
    return with_plain ? with_plain_.current_setting() : interleaved_only_.current_setting();
  }

 private:
  template <class LaunchPlain, class LaunchInterleaved, class Deliver>
  void run_windows(std::size_t count, LaunchPlain* launch_plain, LaunchInterleaved& launch_interleaved,
                   Deliver& deliver, adaptive_controller& controller) const {
    using Op = launched_operation_t<LaunchInterleaved>;
    static_assert(operation<Op>, "launch(index) must return a braid operation (coro, task, fiber)");
    if (count == 0) return;
    typename detail::adaptive_ring<Op>::type ring(std::min(max_group_, count));
    std::size_t next = 0;
    std::size_t finished = 0;  // completions of the current window
    auto counted = [&](std::size_t index, auto&&... result) {
      ++finished;
      deliver(index, std::forward<decltype(result)>(result)...);
    };
    while (next < count || ring.live() > 0) {
      const std::size_t setting = controller.next_setting();  // never plain without a plain launcher
      finished = 0;
      const std::uint64_t start = read_cycle_counter();
      if (setting == adaptive_controller::plain) {
        drain(ring, counted);
        run_plain(*launch_plain, next, std::min(count, next + window_), counted);
      } else {
        run_interleaved(ring, std::min(setting, ring.capacity()), next, count, launch_interleaved, counted);
      }
      controller.record(setting, read_cycle_counter() - start, finished);
    }
  }

  template <class LaunchPlain, class Counted>
  static void run_plain(LaunchPlain& launch, std::size_t& next, std::size_t end, Counted& counted) {
    for (; next < end; ++next) {
      auto op = launch(next);
      detail::start(op);
      while (!op.done()) op.resume();
      detail::deliver_result(op, next, counted);
    }
  }

  // Resumes every operation in flight to completion, round-robin.
  template <class Op, class Counted>
  static void drain(detail::operation_ring<Op>& ring, Counted& counted) {
    while (ring.live() > 0) detail::resume_round(ring, counted, [](auto&) { return false; });
  }

  // One window: runs with up to `group` operations in flight until `window_` have finished
  // (or the input and the ring are exhausted). A ring holding more than `group` (the group
  // shrank) refills nothing until it is down to `group`.
  template <class Op, class Launch, class Counted>
  void run_interleaved(detail::operation_ring<Op>& ring, std::size_t group, std::size_t& next, std::size_t count,
                       Launch& launch, Counted& counted) const {
    std::size_t completions = 0;
    auto deliver_counting = [&](std::size_t index, auto&&... result) {
      ++completions;
      counted(index, std::forward<decltype(result)>(result)...);
    };
    detail::fill_ring(ring, group, next, count, launch, deliver_counting);
    while (ring.live() > 0 && completions < window_) {
      detail::resume_round(ring, deliver_counting, [&](auto& slot) {
        return ring.live() <= group && detail::refill_slot(slot, next, count, launch, deliver_counting);
      });
      // the group may have grown, or immediate completions left room
      detail::fill_ring(ring, group, next, count, launch, deliver_counting);
    }
  }

  // The same on a chained ring: it grows to `group` at the window's start; a finished
  // operation's slot takes the next input only while at most `group` are live.
  template <class Op, class Launch, class Counted>
  void run_interleaved(detail::chained_ring<Op>& ring, std::size_t group, std::size_t& next, std::size_t count,
                       Launch& launch, Counted& counted) const {
    std::size_t completions = 0;
    auto deliver_counting = [&](std::size_t index, auto&&... result) {
      ++completions;
      counted(index, std::forward<decltype(result)>(result)...);
    };
    ring.fill(group, next, count, launch, deliver_counting);
    ring.run(group, next, count, launch, deliver_counting, [&](std::size_t) { return completions >= window_; });
  }

  template <class Op, class Counted>
  static void drain(detail::chained_ring<Op>& ring, Counted& counted) {
    std::size_t none = 0;
    auto never_launch = [](std::size_t) -> Op { throw std::logic_error("adaptive_scheduler: drain launched"); };
    ring.run(0, none, 0, never_launch, counted, [](std::size_t) { return false; });
  }

  std::size_t window_;
  std::size_t max_group_;
  // What the scheduler learned: mutable, so that a const scheduler (as braid::run takes it)
  // still adapts; one scheduler per thread.
  mutable adaptive_controller with_plain_;
  mutable adaptive_controller interleaved_only_;
};

}  // namespace braid
