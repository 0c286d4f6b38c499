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
// Every few windows a probe (two windows) tries another rung: the one below, the one above,
// and a jump (to the plain loop from higher up, or from the bottom back to the starting rung)
// in turn. A rung cheaper than the current setting by more than the hysteresis (the plain
// loop: cheaper at all) becomes the setting, and the climb probes on in that direction at
// once; one cheaper by less (a plateau) has the rung beyond it probed next. A rung that lost
// waits before its next probe in proportion to what it lost by, so that no rung costs more
// than probe_budget of the time (the plain loop in DRAM, three times the best group's cost,
// is probed every 400 windows, not every few). When all three kinds of probe have lost, the
// interval to the next probe doubles (up to max_probe_interval windows). When the current
// setting's cost leaves a band of +-50 % around what it cost when chosen for three windows in
// a row (the working set moved from cache to DRAM, or back), the interval and the waits reset
// and the climb starts again from where it is, unless the setting now costs what it cost in one
// of the last four working sets left: then that working set's best setting and costs return at
// once (a workload that alternates between data in cache and in DRAM pays the climb once per
// working set, not at every change). Costs are the cheapest of a few windows
// (adaptive_controller says why).
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
//
// Window costs are noisy, and the noise only adds: an interrupt, another tenant, a page walk
// make a window slower, never faster (on a shared machine a tenth of DRAM-bound windows cost a
// third more than the median). So every estimate is the cheapest of a few windows: the
// current setting's is the cheaper of its last two, a probe runs two windows and counts the
// cheaper, and a change of working set is three windows in a row outside the band around the
// cost the setting had when it was chosen. A mean would be pulled up by the slow windows and
// make every probe look like a win.
class adaptive_controller {
 public:
  static constexpr std::size_t plain = 0;  // the setting "no interleaving"
  static constexpr std::size_t probe_windows = 2;   // windows per probe; the cheaper counts
  static constexpr std::size_t change_windows = 3;  // windows in a row that show a change

  struct settings {
    std::size_t max_group = 64;
    bool plain_allowed = true;
    double hysteresis = 0.03;               // a neighbour must be this much cheaper to win
    double change_threshold = 0.5;          // relative cost change that restarts the climb
    std::size_t first_probe_interval = 2;   // windows between probes after a move or a change
    std::size_t max_probe_interval = 64;
    std::size_t start_group = 8;            // the first setting (nearest rung)
    // The share of the time a losing rung may cost: a rung whose probe cost f times the
    // current setting's is not probed again for (f - 1) * probe_windows / probe_budget
    // windows (the plain loop at 3x the best group in DRAM: every 400 windows), at most
    // max_probe_deferral, or until the working set changes.
    double probe_budget = 0.01;
    std::size_t max_probe_deferral = 1024;
  };

  adaptive_controller() : adaptive_controller(settings{}) {}
  explicit adaptive_controller(const settings& chosen) : settings_(chosen) {
    if (chosen.max_group == 0) throw std::invalid_argument("adaptive_controller: max_group must be at least 1");
    if (!(chosen.hysteresis >= 0 && chosen.hysteresis < 1)) {
      throw std::invalid_argument("adaptive_controller: hysteresis must be in [0, 1)");
    }
    if (!(chosen.change_threshold > 0)) throw std::invalid_argument("adaptive_controller: change_threshold must be positive");
    if (!(chosen.probe_budget > 0 && chosen.probe_budget <= 1)) {
      throw std::invalid_argument("adaptive_controller: probe_budget must be in (0, 1]");
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
    if (probing_) return rungs_[*probing_];  // a probe's second window
    if (windows_since_probe_ >= interval_ && rung_count_ > 1) {
      std::optional<std::size_t> probe = next_probe_ && due(*next_probe_) ? next_probe_ : cycle_probe();
      next_probe_.reset();
      if (!probe) {
        windows_since_probe_ = 0;  // every candidate is deferred: wait another interval
        return rungs_[current_];
      }
      probing_ = probe;
      probe_cost_ = 0;
      probe_windows_done_ = 0;
      return rungs_[*probing_];
    }
    return rungs_[current_];
  }

  // What the window run with `setting` cost: `cycles` for `operations` completions.
  void record(std::size_t setting, std::uint64_t cycles, std::size_t operations) {
    if (operations == 0) return;
    const double cost = static_cast<double>(cycles) / static_cast<double>(operations);
    ++windows_;
    if (probing_ && rungs_[*probing_] == setting) {
      probe_cost_ = probe_windows_done_ == 0 ? cost : std::min(probe_cost_, cost);
      if (++probe_windows_done_ == probe_windows) finish_probe(probe_cost_);
      return;
    }
    probing_.reset();
    ++windows_since_probe_;
    for (std::size_t i = recent_.size() - 1; i > 0; --i) recent_[i] = recent_[i - 1];
    recent_[0] = cost;
    recent_count_ = std::min(recent_count_ + 1, recent_.size());
    cost_[current_] = recent_count_ > 1 ? std::min(recent_[0], recent_[1]) : cost;
    if (reference_ <= 0) {
      reference_ = cost_[current_];
      return;
    }
    if (recent_count_ == change_windows && working_set_changed()) {
      // The costs of the other rungs, and what they lost by, belong to the old working set:
      // remember them, and take up a working set seen before, or climb afresh.
      remember_working_set();
      reference_ = cost_[current_];
      if (!recall_working_set()) restart_climb();
    }
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

  [[nodiscard]] bool due(std::size_t rung) const noexcept { return windows_ >= not_before_[rung]; }

  // All of the last change_windows windows above the band around the reference cost, or all
  // below it: one slow or fast window is noise.
  [[nodiscard]] bool working_set_changed() const noexcept {
    const double change = 1 + settings_.change_threshold;
    bool all_above = true;
    bool all_below = true;
    for (std::size_t i = 0; i < change_windows; ++i) {
      all_above = all_above && recent_[i] > reference_ * change;
      all_below = all_below && recent_[i] < reference_ / change;
    }
    return all_above || all_below;
  }

  // Probes take turns: the rung below, the rung above, and a jump: to the bottom rung (the
  // plain loop) from higher up, or from the bottom to the starting rung. Costs need not fall
  // monotonically towards the best setting (a binary search in DRAM: plain beats a group of 2,
  // a group of 16 beats both), so neighbours alone could stop in the wrong valley. A rung that
  // is not yet due again is passed over; none at all: no probe.
  [[nodiscard]] std::optional<std::size_t> cycle_probe() {
    for (std::size_t tries = 0; tries < 3; ++tries) {
      const std::size_t turn = turn_++ % 3;
      std::optional<std::size_t> candidate;
      if (turn == 0 && current_ > 0) candidate = current_ - 1;
      if (turn == 1 && current_ + 1 < rung_count_) candidate = current_ + 1;
      if (turn == 2 && current_ > 1) candidate = 0;
      if (turn == 2 && current_ <= 1 && start_ > current_ + 1) candidate = start_;
      if (candidate && due(*candidate)) return candidate;
    }
    return std::nullopt;
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
      move_to(probed);
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
    defer(probed, cost / current_cost - 1);
    // Every kind of probe lost since the last move: the setting is right; back off.
    if (++losses_in_a_row_ >= 3) interval_ = std::min(interval_ * 2, settings_.max_probe_interval);
  }

  // A rung that lost by `excess` (a fraction of the current cost) waits in proportion to it.
  void defer(std::size_t rung, double excess) {
    const double deferral = std::min(std::max(excess, 0.0) * static_cast<double>(probe_windows) / settings_.probe_budget,
                                     static_cast<double>(settings_.max_probe_deferral));
    not_before_[rung] = windows_ + static_cast<std::uint64_t>(deferral);
  }

  [[nodiscard]] bool within_band(double cost, double reference) const noexcept {
    const double change = 1 + settings_.change_threshold;
    return reference > 0 && cost <= reference * change && cost >= reference / change;
  }

  // Keeps the costs of the working set just left (the current setting's as it was before the
  // change), in place of one it resembles or of the oldest.
  void remember_working_set() {
    std::size_t slot = next_memory_;
    for (std::size_t i = 0; i < memory_.size(); ++i) {
      if (within_band(reference_, memory_[i].cost[current_])) slot = i;
    }
    if (slot == next_memory_) next_memory_ = (next_memory_ + 1) % memory_.size();
    memory_[slot].cost = cost_;
    memory_[slot].cost[current_] = reference_;
    memory_[slot].best = current_;
  }

  // A remembered working set in which the current setting cost what it costs now is taken to
  // be back (a workload that alternates between data in cache and in DRAM): its best setting
  // and costs return, the rungs that lost there wait as they would have, and the probes that
  // follow check it. False if none matches.
  bool recall_working_set() {
    for (const remembered& known : memory_) {
      if (!within_band(cost_[current_], known.cost[current_])) continue;
      const double now = cost_[current_];
      const double scale = now / known.cost[current_];  // the machine's drift since then
      for (std::size_t rung = 0; rung < rung_count_; ++rung) cost_[rung] = known.cost[rung] * scale;
      cost_[current_] = now;
      for (std::size_t rung = 0; rung < rung_count_; ++rung) {
        not_before_[rung] = 0;
        if (rung != known.best && cost_[rung] > 0) defer(rung, cost_[rung] / cost_[known.best] - 1);
      }
      if (known.best != current_) {
        current_ = known.best;
        reference_ = cost_[current_];
        recent_count_ = 0;
      }
      interval_ = settings_.first_probe_interval;
      windows_since_probe_ = 0;
      losses_in_a_row_ = 0;
      next_probe_.reset();
      return true;
    }
    return false;
  }

  void move_to(std::size_t rung) {
    const std::size_t from = current_;
    current_ = rung;
    reference_ = cost_[rung];
    recent_count_ = 0;
    losses_in_a_row_ = 0;
    interval_ = settings_.first_probe_interval;
    windows_since_probe_ = interval_;  // probe on at once, in the same direction
    next_probe_ = rung < from ? (rung > 0 ? std::optional(rung - 1) : std::nullopt)
                              : (rung + 1 < rung_count_ ? std::optional(rung + 1) : std::nullopt);
  }

  void restart_climb() {
    interval_ = settings_.first_probe_interval;
    windows_since_probe_ = interval_;
    losses_in_a_row_ = 0;
    next_probe_.reset();
    for (std::size_t rung = 0; rung < rung_count_; ++rung) {
      not_before_[rung] = 0;
      if (rung != current_) cost_[rung] = 0;  // what the old working set cost says nothing now
    }
  }

  settings settings_;
  std::array<std::size_t, 13> rungs_{};
  std::array<double, 13> cost_{};  // cycles per operation of each rung: latest estimate; 0: unknown
  std::array<std::uint64_t, 13> not_before_{};  // the window from which a rung may be probed again
  std::size_t rung_count_ = 0;
  std::size_t current_ = 0;
  std::size_t start_ = 0;                  // the starting rung, where jumps from the bottom go
  std::optional<std::size_t> probing_;     // the rung the current probe tries
  std::optional<std::size_t> next_probe_;  // the rung the next probe must try (a climb goes on)
  double probe_cost_ = 0;                  // the cheapest of the probe's windows so far
  std::size_t probe_windows_done_ = 0;
  std::array<double, change_windows> recent_{};  // the current setting's last windows, newest first
  std::size_t recent_count_ = 0;
  double reference_ = 0;  // the current setting's cost when it was chosen (0: not measured yet)
  std::uint64_t windows_ = 0;
  std::size_t windows_since_probe_ = 0;
  std::size_t interval_ = 1;
  std::size_t losses_in_a_row_ = 0;
  std::size_t turn_ = 0;
  struct remembered {
    std::array<double, 13> cost{};  // 0: unknown (an unused slot knows nothing)
    std::size_t best = 0;
  };
  std::array<remembered, 4> memory_{};  // working sets left behind, the oldest replaced first
  std::size_t next_memory_ = 0;
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
        run_interleaved(ring, std::min(setting, ring.capacity()), next, count, launch_interleaved, counted, finished);
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
  // (`finished` counts them; or the input and the ring are exhausted). A ring holding more
  // than `group` (the group shrank) refills nothing until it is down to `group`.
  template <class Op, class Launch, class Counted>
  void run_interleaved(detail::operation_ring<Op>& ring, std::size_t group, std::size_t& next, std::size_t count,
                       Launch& launch, Counted& counted, const std::size_t& finished) const {
    detail::fill_ring(ring, group, next, count, launch, counted);
    while (ring.live() > 0 && finished < window_) {
      detail::resume_round(ring, counted, [&](auto& slot) {
        return ring.live() <= group && detail::refill_slot(slot, next, count, launch, counted);
      });
      // the group may have grown, or immediate completions left room
      detail::fill_ring(ring, group, next, count, launch, counted);
    }
  }

  // The same on a chained ring: it grows to `group` at the window's start; a finished
  // operation's slot takes the next input only while at most `group` are live.
  template <class Op, class Launch, class Counted>
  void run_interleaved(detail::chained_ring<Op>& ring, std::size_t group, std::size_t& next, std::size_t count,
                       Launch& launch, Counted& counted, const std::size_t& finished) const {
    ring.fill(group, next, count, launch, counted);
    ring.run(group, next, count, launch, counted, [&](std::size_t) { return finished >= window_; });
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
