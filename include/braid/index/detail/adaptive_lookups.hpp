// technique::adaptive for every index: the plain lookup or the interleaved coroutine lookup,
// and the group, picked while it runs from the throughput measured per window.
//   - A structure whose lookup is written over a stream of inputs (lookups<M>) runs each window
//     as the plain loop (find) or as g long-lived chained coroutines over the window's keys
//     (run_over_batch), the setting chosen by an adaptive_controller: the same long-lived form
//     as technique::coro, so adapting costs nothing against the best fixed group but the drain
//     at each window's end (a window of an interleaved setting holds 64 keys per coroutine, so
//     the drain is a small share of it).
//   - Any other structure runs its lookup<M> on an adaptive_scheduler: the sequential or the
//     chained instantiation, one coroutine per key.
// The controller (or scheduler) lives per thread, per structure type and per group cap, so what
// it learned carries from one multi_find to the next (two instances of one structure type on
// one thread share it: a working set that differs between them is one it follows, as it
// follows any change).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "braid/core/adaptive_scheduler.hpp"
#include "braid/core/chained_scheduler.hpp"
#include "braid/core/cycles.hpp"
#include "braid/core/input_stream.hpp"

namespace braid::detail {

// What adapts for `Structure` on this thread with group cap `max_group`: an adaptive_scheduler
// or an adaptive_controller, made on first use and kept for the thread's later runs.
template <class Structure, class Learner>
Learner& learner_for(std::size_t max_group) {
  thread_local std::vector<std::pair<std::size_t, Learner>> learners;
  for (auto& [cap, learner] : learners) {
    if (cap == max_group) return learner;
  }
  return learners.emplace_back(max_group, Learner({.max_group = max_group})).second;
}

template <class Structure>
adaptive_scheduler& adaptive_scheduler_for(std::size_t max_group) {
  return learner_for<Structure, adaptive_scheduler>(max_group);
}

// Runs make(key, mode tag) for every key: `plain(key)` and `interleaved(key)` create the
// lookup's two instantiations; results go to out[i] in input order. `group` caps the group.
template <class Structure, class Key, class Result, class Plain, class Interleaved>
void run_adaptive_lookups(std::span<const Key> keys, std::span<Result> out, std::size_t group, Plain plain,
                          Interleaved interleaved) {
  adaptive_scheduler_for<Structure>(group).run(
      keys.size(), [&](std::size_t index) { return plain(keys[index]); },
      [&](std::size_t index) { return interleaved(keys[index]); },
      [&](std::size_t index, auto&& result) { out[index] = std::forward<decltype(result)>(result); });
}

// The controller of run_adaptive_stream_lookups for `Structure`, per thread and group cap.
template <class Structure>
adaptive_controller& adaptive_controller_for(std::size_t max_group) {
  return learner_for<Structure, adaptive_controller>(max_group);
}

// Keys a window of `setting` takes: adaptive_scheduler's window for the plain loop, 64 per
// coroutine interleaved.
constexpr std::size_t adaptive_window_keys(std::size_t setting) noexcept {
  return setting == adaptive_controller::plain ? adaptive_scheduler::settings{}.window : 64 * setting;
}

// Runs every key through `plain(key)` (the plain lookup) or, g at a time, through
// `interleaved(shared_inputs)` (the structure's long-lived chained lookups), window by window
// as the controller chooses; results go to out[i] in input order. `group` caps g.
template <class Structure, class Key, class Result, class Plain, class Interleaved>
void run_adaptive_stream_lookups(std::span<const Key> keys, std::span<Result> out, std::size_t group, Plain plain,
                                 Interleaved interleaved) {
  adaptive_controller& controller = adaptive_controller_for<Structure>(group);
  for (std::size_t next = 0; next < keys.size();) {
    const std::size_t setting = controller.next_setting();
    const std::size_t end = std::min(keys.size(), next + adaptive_window_keys(setting));
    const std::uint64_t start = read_cycle_counter();
    if (setting == adaptive_controller::plain) {
      for (std::size_t i = next; i < end; ++i) out[i] = plain(keys[i]);
    } else {
      run_over_batch(chained_scheduler{setting}, keys.subspan(next, end - next), out.subspan(next, end - next),
                     interleaved);
    }
    controller.record(setting, read_cycle_counter() - start, end - next);
    next = end;
  }
}

}  // namespace braid::detail
