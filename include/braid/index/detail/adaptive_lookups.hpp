// technique::adaptive for every index: the structure's coroutine lookup run by an
// adaptive_scheduler, which picks its sequential instantiation (the plain code) or the
// interleaved one, and the group, while it runs. The scheduler lives per thread, per structure
// type and per group cap, so what it learned carries from one multi_find to the next (two
// instances of one structure type on one thread share it: a working set that differs between
// them is one it follows, as it follows any change).
#pragma once

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "braid/core/adaptive_scheduler.hpp"

namespace braid::detail {

template <class Structure>
adaptive_scheduler& adaptive_scheduler_for(std::size_t max_group) {
  thread_local std::vector<std::pair<std::size_t, adaptive_scheduler>> schedulers;
  for (auto& [cap, scheduler] : schedulers) {
    if (cap == max_group) return scheduler;
  }
  return schedulers.emplace_back(max_group, adaptive_scheduler({.max_group = max_group})).second;
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

}  // namespace braid::detail
