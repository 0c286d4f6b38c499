#include "braid/tasks/epoch.hpp"

#include <algorithm>

namespace braid::tasks {

const char* to_string(reclamation mode) noexcept {
  switch (mode) {
    case reclamation::none: return "none";
    case reclamation::per_task: return "per-task";
    case reclamation::per_refill: return "per-refill";
  }
  return "?";
}

epoch_manager::epoch_manager(unsigned workers, std::uint64_t advance_interval_cycles)
    : interval_cycles_(advance_interval_cycles), workers_(workers), locals_(new local_epoch[workers]) {}

std::uint64_t epoch_manager::oldest_active() const noexcept {
  std::uint64_t oldest = idle;
  for (unsigned worker = 0; worker < workers_; ++worker) {
    oldest = std::min(oldest, locals_[worker].value.load(std::memory_order_seq_cst));
  }
  return oldest;
}

void epoch_manager::maybe_advance(std::uint64_t now_cycles) noexcept {
  std::uint64_t last = last_advance_cycles_.load(std::memory_order_relaxed);
  if (now_cycles - last < interval_cycles_) return;
  // One worker wins the interval; the others see the new timestamp and skip.
  if (last_advance_cycles_.compare_exchange_strong(last, now_cycles, std::memory_order_relaxed)) advance();
}

void epoch_manager::advance() noexcept { global_.fetch_add(1, std::memory_order_seq_cst); }

}  // namespace braid::tasks
