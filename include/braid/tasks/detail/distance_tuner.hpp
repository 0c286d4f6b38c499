// distance_tuner: the automatic prefetch distance of a worker, found by measurement.
//
// What: the worker runs windows of a fixed number of tasks, each at one prefetch distance, and
// reports the TSC cycles each window took. The tuner climbs to the distance with the fewest
// cycles per window: it runs rounds of four windows, at d, d + 1, d, d - 1 (a neighbour outside
// [1, largest] is not tried), and moves d to a neighbour that beat the mean of the two windows
// at d by more than 1/32 (less follows the noise of a window). After a round that did not move, it rests: it runs d for 1, then 2,
// 4, up to 8 windows before the next round (a move ends the rest), so that once settled, about
// one window in six explores.
//
// Why measured, not modelled: a distance computed from a task's measured cycles and the idle
// memory latency is too short once many misses are in flight (the latency under load is
// higher), and the bookkeeping it needs per task (timing samples, a walk over the buffer per
// placed prefetch) cost more than it saved. A window costs one TSC read.
//
// Invariants: 1 <= distance() <= largest; a round is four windows; the distance the worker
// runs between rounds is settled().
// Known limits: assumes the task mix is stable over a round (four windows); a workload that
// changes phase is followed a step per round (after at most 8 resting windows). While settled,
// a third of the windows of each round explore a neighbour, so a steep optimum costs about a
// sixth of the difference to its neighbours.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

namespace braid::tasks::detail {

class distance_tuner {
 public:
  static constexpr unsigned trials_per_round = 4;
  static constexpr unsigned longest_rest = 8;  // windows at the settled distance between rounds

  distance_tuner(unsigned initial, unsigned largest) noexcept
      : largest_(std::max(1u, largest)), settled_(std::clamp(initial, 1u, largest_)) {}

  // The distance the current window runs at.
  [[nodiscard]] unsigned distance() const noexcept { return resting_left_ != 0 ? settled_ : trial_distance(trial_); }
  // The distance the tuner holds best.
  [[nodiscard]] unsigned settled() const noexcept { return settled_; }

  // The current window took `cycles`; returns the distance of the next one.
  unsigned window_done(std::uint64_t cycles) noexcept {
    if (resting_left_ != 0) {
      --resting_left_;
      return distance();
    }
    cycles_[trial_] = cycles;
    trial_ = next_trial(trial_ + 1);
    if (trial_ == trials_per_round) {
      const unsigned before = settled_;
      decide();
      rest_ = settled_ != before ? 0 : std::min(longest_rest, rest_ == 0 ? 1 : rest_ * 2);
      resting_left_ = rest_;
      trial_ = next_trial(0);
    }
    return distance();
  }

 private:
  // Trial order: d, d + 1, d, d - 1.
  [[nodiscard]] unsigned trial_distance(unsigned trial) const noexcept {
    switch (trial) {
      case 1: return settled_ + 1;
      case 3: return settled_ - 1;
      default: return settled_;
    }
  }
  [[nodiscard]] bool tried(unsigned trial) const noexcept {
    const unsigned distance = trial_distance(trial);
    return distance >= 1 && distance <= largest_;
  }
  // The first trial from `trial` on that is tried (trials_per_round when none is left).
  [[nodiscard]] unsigned next_trial(unsigned trial) const noexcept {
    while (trial < trials_per_round && !tried(trial)) ++trial;
    return trial;
  }

  void decide() noexcept {
    const std::uint64_t at_settled = (cycles_[0] + cycles_[2]) / 2;
    const std::uint64_t better_than = at_settled - at_settled / 32;
    std::uint64_t best = better_than;
    unsigned move_to = settled_;
    for (unsigned trial : {1u, 3u}) {
      if (tried(trial) && cycles_[trial] < best) {
        best = cycles_[trial];
        move_to = trial_distance(trial);
      }
    }
    settled_ = move_to;
  }

  unsigned largest_;
  unsigned settled_;
  unsigned trial_ = 0;
  unsigned rest_ = 0;          // the rest after the latest round
  unsigned resting_left_ = 0;  // windows of it still to run
  std::array<std::uint64_t, trials_per_round> cycles_{};
};

}  // namespace braid::tasks::detail
