// How far ahead of a task the worker prefetches its data object.
//
//   off         no prefetching (neither descriptors nor data)
//   fixed(k)    the object of the task k slots ahead is prefetched before the current task runs
//   automatic   per task: the prefetch is placed early enough that the tasks running in
//               between take at least as long as the prefetch needs. The need is the
//               prefetched line count through `memory_latency` (from braid's memory probe, on
//               this machine); the time of the tasks in between comes from a short history of
//               measured cycles per task type (sampled with the TSC).
#pragma once

#include <cstdint>
#include <string>

#include "braid/core/memory_probe.hpp"

namespace braid::tasks {

class prefetch_distance {
 public:
  enum class mode : std::uint8_t { off, fixed, automatic };

  [[nodiscard]] static constexpr prefetch_distance off() noexcept { return {mode::off, 0}; }
  [[nodiscard]] static constexpr prefetch_distance fixed(unsigned tasks) noexcept {
    return tasks == 0 ? off() : prefetch_distance{mode::fixed, tasks};
  }
  [[nodiscard]] static constexpr prefetch_distance automatic() noexcept { return {mode::automatic, 0}; }

  [[nodiscard]] constexpr mode kind() const noexcept { return kind_; }
  [[nodiscard]] constexpr unsigned tasks() const noexcept { return tasks_; }
  [[nodiscard]] std::string describe() const;  // "off", "fixed:2", "automatic"

  friend constexpr bool operator==(prefetch_distance, prefetch_distance) noexcept = default;

 private:
  constexpr prefetch_distance(mode kind, unsigned tasks) noexcept : kind_(kind), tasks_(tasks) {}
  mode kind_;
  unsigned tasks_;
};

// Time to bring `lines` cache lines in, as the model of the automatic distance sees it: the
// first line costs a dependent-load latency; each further line issued at the same time costs
// the reciprocal of the best fetch rate (lines overlap in the miss buffers).
struct memory_latency {
  double first_line_ns = 0;
  double next_line_ns = 0;

  [[nodiscard]] double ns_for(unsigned lines) const noexcept {
    return lines == 0 ? 0.0 : first_line_ns + next_line_ns * (lines - 1);
  }
  // From a full probe (braid::probe_memory, or braid-bench's measured profile).
  [[nodiscard]] static memory_latency from(const memory_profile& profile) noexcept;
  // A short probe (64 MiB, about a quarter second), for runtimes that are given no profile.
  [[nodiscard]] static memory_latency measure();
};

}  // namespace braid::tasks
