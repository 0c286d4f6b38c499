// Epoch-based reclamation for tasks (MxTasking dissertation §4.2.2, after Silo and the open
// BwTree).
//
// An object that tasks may still be reading is not freed when it is unlinked but *retired*:
// tagged with the global epoch and kept by the retiring worker. Each worker publishes a local
// epoch, the global epoch it last saw, or `idle` while it has no task to run. An object
// retired in epoch e is freed once every local epoch is beyond e: every task that could have
// reached it before it was unlinked has finished by then.
//
// The global epoch advances at most once per `advance_interval` (TSC cycles), by whichever
// worker notices first (it looks once per 64 tasks and when idle); there is no epoch thread.
//
// Modes (`reclamation`):
//   none         retired objects are kept until the runtime is destroyed (no epoch traffic);
//   per_task     the local epoch is published before every task (a load of the global epoch
//                per task; a fenced store when it moved);
//   per_refill   published when the worker refills its task buffer (once per up to 64 tasks)
//                and when it goes idle: the batched variant the dissertation keeps.
// A worker reads the clock to advance the epoch, and frees what it retired, once per 64 tasks
// it ran and whenever it goes idle.
//
// What is protected: whatever a task reaches while it runs. A pointer a task stores in a
// descriptor that runs later is protected only while that task is queued within the same
// grace period; structures whose retired objects can be named by queued descriptors must
// re-validate them (the B-link tree never frees a node while the tree is in use).
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>

namespace braid::tasks {

enum class reclamation : std::uint8_t { none, per_task, per_refill };

const char* to_string(reclamation mode) noexcept;

class epoch_manager {
 public:
  static constexpr std::uint64_t idle = std::numeric_limits<std::uint64_t>::max();

  epoch_manager(unsigned workers, std::uint64_t advance_interval_cycles);

  [[nodiscard]] std::uint64_t current() const noexcept { return global_.load(std::memory_order_seq_cst); }

  // The worker starts (or continues) running tasks: it publishes the current global epoch.
  // Sequentially consistent: the store is ordered before the loads of the tasks that follow.
  // When the worker's local epoch already is the global one, nothing is stored: the store that
  // published it is still ordered before every later load, so a second one would only cost the
  // fence (about as much as a whole task on x86).
  void enter(unsigned worker) noexcept {
    const std::uint64_t epoch = global_.load(std::memory_order_seq_cst);
    std::atomic<std::uint64_t>& mine = local(worker);
    if (mine.load(std::memory_order_relaxed) != epoch) mine.store(epoch, std::memory_order_seq_cst);
  }
  // The worker has nothing to run: it holds no object.
  void leave(unsigned worker) noexcept { local(worker).store(idle, std::memory_order_seq_cst); }

  // The smallest published local epoch (idle when every worker is idle).
  [[nodiscard]] std::uint64_t oldest_active() const noexcept;

  // Advances the global epoch if at least the interval passed since the last advance.
  void maybe_advance(std::uint64_t now_cycles) noexcept;
  // Advances unconditionally (tests; shutdown).
  void advance() noexcept;

  void set_interval(std::uint64_t cycles) noexcept { interval_cycles_ = cycles; }

 private:
  struct alignas(64) local_epoch {
    std::atomic<std::uint64_t> value{idle};
  };
  std::atomic<std::uint64_t>& local(unsigned worker) noexcept { return locals_[worker].value; }

  alignas(64) std::atomic<std::uint64_t> global_{1};
  alignas(64) std::atomic<std::uint64_t> last_advance_cycles_{0};
  std::uint64_t interval_cycles_;
  unsigned workers_;
  std::unique_ptr<local_epoch[]> locals_;
};

}  // namespace braid::tasks
