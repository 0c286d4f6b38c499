// How far ahead of a task the worker prefetches its data object.
//
//   off         no prefetching (neither descriptors nor data)
//   fixed(k)    the object of the task k slots ahead is prefetched before the current task runs
//   automatic   each worker finds its distance by measurement: it runs windows of tasks at
//               its current distance and its neighbours and moves to the one that ran
//               fastest (detail::distance_tuner), starting at 4 in every run.
#pragma once

#include <cstdint>
#include <string>


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

}  // namespace braid::tasks
