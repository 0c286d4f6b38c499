// worker: one pinned thread of the task runtime, and the handle a running task receives.
//
// What a task may do through it: spawn other tasks (dispatched at once, by the rules below),
// allocate descriptors from the worker's cache, retire objects for epoch-based reclamation,
// register an effect that runs once its read is validated, stop the runtime.
//
// Dispatching (dissertation §1.3 of the notes), inline on spawn:
//   1. a task with an explicit target worker goes there;
//   2. a task annotated with an object that is serialized by scheduling (schedule_all), or a
//      writer on an object whose writers are scheduled (schedule_writer), goes to the object's
//      owner (read from the tagged pointer: no miss);
//   3. a task on a squad waits in the squad until the squad is flushed;
//   4. everything else runs on the spawning worker (its unsynchronized local queue).
// A task that reaches a worker that is not the owner of its scheduled object (an explicit
// target that disagrees) is forwarded to the owner before it runs.
//
// The loop: a ring of 64 upcoming tasks, refilled in batches from the local queue, then the
// multi-producer queues (normal priority first; low priority only while fewer than
// `low_priority_below` tasks are buffered). Before a task runs, the worker prefetches the
// next task's descriptor and issues the data prefetch placed in this slot for a task further
// ahead (see prefetch_distance; the automatic distance is tuned per worker by
// detail::distance_tuner over windows of `tuning_window_tasks` tasks). Then it wraps the
// object's primitive around the task:
// latches, versions, re-execution of optimistic readers that fail validation (descriptor
// bytes restored, spawns and effects of the failed run discarded).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "braid/tasks/descriptor_allocator.hpp"
#include "braid/tasks/detail/distance_tuner.hpp"
#include "braid/tasks/epoch.hpp"
#include "braid/tasks/prefetch_distance.hpp"
#include "braid/tasks/task.hpp"
#include "braid/tasks/task_queues.hpp"

namespace braid::tasks {

class runtime;
class task_squad;

struct worker_statistics {
  std::uint64_t executed = 0;           // task runs, re-executions included
  std::uint64_t dispatched_local = 0;
  std::uint64_t dispatched_remote = 0;
  std::uint64_t forwarded = 0;          // arrived at a worker that is not the object's owner
  std::uint64_t optimistic_retries = 0; // optimistic reads that failed validation and ran again
  std::uint64_t refills = 0;
  std::uint64_t prefetches = 0;         // data prefetches issued
  std::uint64_t retired = 0;
  std::uint64_t reclaimed = 0;

  // The transactional primitive (primitive::transactional): task runs committed in a hardware
  // transaction, attempts aborted by cause, and runs under the fallback latch (after the
  // attempts gave up, or where RTM is not used). commits + fallback_runs = the task runs.
  std::uint64_t htm_commits = 0;
  std::uint64_t htm_conflict_aborts = 0;  // another core touched the transaction's lines
  std::uint64_t htm_capacity_aborts = 0;  // the lines it touched did not fit
  std::uint64_t htm_latch_aborts = 0;     // the fallback latch was held (explicit abort)
  std::uint64_t htm_other_aborts = 0;     // interrupts, faults, unsupported instructions
  std::uint64_t htm_fallback_runs = 0;

  [[nodiscard]] std::uint64_t htm_aborts() const noexcept {
    return htm_conflict_aborts + htm_capacity_aborts + htm_latch_aborts + htm_other_aborts;
  }

  worker_statistics& operator+=(const worker_statistics& other) noexcept;
};

class worker {
 public:
  using effect_function = void (*)(task_descriptor& task, worker& self);

  // Hardware-transaction attempts of one run under the transactional primitive before it takes
  // the fallback latch (an attempt aborted because the latch was held waits for it and counts).
  static constexpr int transaction_attempts = 10;

  worker(const worker&) = delete;
  worker& operator=(const worker&) = delete;
  ~worker();

  [[nodiscard]] std::uint16_t id() const noexcept { return id_; }
  [[nodiscard]] unsigned region() const noexcept { return region_; }
  [[nodiscard]] class runtime& owner_runtime() const noexcept { return *runtime_; }

  // Dispatches `task` (see the rules above). Inside an optimistic read, the task is held back
  // until the read is validated (and destroyed if it is not).
  void spawn(task_descriptor& task) {
    if (deferring_) [[unlikely]] {
      defer(task);
      return;
    }
    dispatch(task);
  }

  // A descriptor from this worker's cache.
  template <class T, class... Args>
  [[nodiscard]] T* allocate(Args&&... arguments) {
    void* memory = cache_.allocate();
    try {
      return ::new (memory) T(std::forward<Args>(arguments)...);
    } catch (...) {
      cache_.free(memory);
      throw;
    }
  }
  template <class Function>
  [[nodiscard]] lambda_task<Function>* allocate_lambda(Function function) {
    return allocate<lambda_task<Function>>(std::move(function));
  }

  // Destroys a descriptor this worker holds and frees it into the worker's cache.
  void free(task_descriptor& task) noexcept {
    task.type_->destroy(task);
    cache_.free(&task);
  }

  // Retires `object` (unlinked by the caller): freed with `reclaim` once no task can reach it.
  void retire(resource* object, void (*reclaim)(resource*) noexcept);
  template <class T>
  void retire(T* object) {
    retire(static_cast<resource*>(object), [](resource* dead) noexcept { delete static_cast<T*>(dead); });
  }

  // Runs `effect` with the current task after it returned: for an optimistic reader, only once
  // its read is validated (a failed run's effects are dropped). Up to 4 per run.
  void when_validated(effect_function effect);

  // Whether the running task is an optimistic reader (its effects are deferred).
  [[nodiscard]] bool in_optimistic_read() const noexcept { return deferring_; }

  void stop() noexcept;

  // Flushes a squad: its tasks move, in one batch, to the squad's owner.
  void flush(resource_ptr squad);

  [[nodiscard]] const worker_statistics& statistics() const noexcept { return statistics_; }
  [[nodiscard]] std::size_t cached_descriptors() const noexcept { return cache_.cached_blocks(); }

 private:
  friend class runtime;
  friend class task_squad;
  friend struct squad_flush_task;

  static constexpr std::size_t ring_capacity = 64;
  static constexpr std::size_t ring_mask = ring_capacity - 1;
  static constexpr unsigned max_effects = 4;
  static constexpr unsigned initial_automatic_distance = 4;
  static constexpr unsigned tuning_window_tasks = 8192;  // automatic mode: tasks per measured window
  static constexpr unsigned epoch_check_tasks = 64;  // tasks per look at the epoch clock

  struct buffer_slot {
    task_descriptor* task;
    const void* prefetch_address;  // the prefetch issued before this slot's task runs
    prefetch_descriptor prefetch;
  };

  worker(runtime& owner, std::uint16_t id, unsigned region, unsigned regions, descriptor_heap& heap);

  // ---- the loop --------------------------------------------------------------------------
  void run_loop();
  inline void run_buffered_tasks();  // inline: defined in worker.cpp, its only user
  inline void refill();
  inline void take_queued(priority level);
  void take_remote(priority level) noexcept;
  inline void place(task_descriptor& task);
  void idle_wait(unsigned& idle_rounds);
  void configure_prefetching();
  void start_tuning_window() noexcept;
  void finish_tuning_window() noexcept;

  // ---- running one task ------------------------------------------------------------------
  inline void run(task_descriptor& task);
  task_result run_synchronized(task_descriptor& task, resource_ptr object);
  task_result run_optimistic(task_descriptor& task, resource& object);
  task_result run_transactional(task_descriptor& task, resource& object);
  void count_abort(unsigned status, bool by_latch) noexcept;  // an RTM abort status, by cause
  task_result invoke(task_descriptor& task) { return task.execute_(task, *this); }
  void apply(task_descriptor& task, task_result result);
  void forward(task_descriptor& task, std::uint16_t owner);
  void run_effects(task_descriptor& task);

  // ---- dispatching -----------------------------------------------------------------------
  // The common case inline: a task for any worker (or this one) whose object's primitive does
  // not route it goes to the local queue; the rest takes dispatch_routed.
  void dispatch(task_descriptor& task) {
    // Primitives that route a task (schedule_writer: writers only) to its object's owner or squad.
    constexpr unsigned routing = (1u << static_cast<unsigned>(primitive::schedule_all)) |
                                 (1u << static_cast<unsigned>(primitive::batched));
    constexpr unsigned routing_writers = routing | (1u << static_cast<unsigned>(primitive::schedule_writer));
    const bool here = task.destination_ == any_worker || task.destination_ == id_;
    const unsigned routed = task.is_reader() ? routing : routing_writers;
    if (here && ((routed >> static_cast<unsigned>(task.object_.protocol())) & 1u) == 0) [[likely]] {
      local_[static_cast<unsigned>(task.priority_)].push(task);
      ++statistics_.dispatched_local;
      return;
    }
    dispatch_routed(task);
  }
  void dispatch_routed(task_descriptor& task);
  void defer(task_descriptor& task);
  void accept_remote(task_descriptor& task, priority level, unsigned source_region) noexcept {
    remote_[static_cast<unsigned>(level) * regions_ + source_region].push(task);
  }

  // ---- reclamation -----------------------------------------------------------------------
  struct garbage {
    resource* object;
    std::uint64_t epoch;
    void (*reclaim)(resource*) noexcept;
  };
  void reclaim_garbage(bool everything) noexcept;
  void publish_epoch() noexcept;
  void discard_pending() noexcept;  // runtime shutdown: destroy what is still queued

  // Hot state first: the ring and the loop's counters.
  alignas(64) std::array<buffer_slot, ring_capacity> ring_{};
  std::size_t head_ = 0;   // position of the next task to run (monotonic; slot = head_ & mask)
  std::size_t count_ = 0;  // buffered tasks not yet run
  std::size_t refill_at_ = 0;  // refill when count_ <= refill_at_
  prefetch_distance::mode prefetch_mode_ = prefetch_distance::mode::fixed;
  unsigned fixed_distance_ = 2;  // fixed mode, and the automatic mode's current window
  unsigned low_priority_below_ = 16;
  unsigned window_left_ = tuning_window_tasks;  // automatic mode: tasks left in this window
  std::uint64_t window_start_ = 0;              // its TSC at the start
  std::uint64_t last_epoch_check_ = 0;  // statistics_.executed at the latest look at the clock
  reclamation reclamation_ = reclamation::per_refill;
  bool deferring_ = false;
  task_descriptor* running_ = nullptr;

  std::array<local_task_queue, priority_count> local_;
  descriptor_cache cache_;

  runtime* runtime_;
  std::uint16_t id_;
  unsigned region_;
  unsigned regions_;

  // Deferred spawns and effects of the running optimistic reader.
  local_task_queue deferred_spawns_;
  std::array<effect_function, max_effects> effects_{};
  unsigned effect_count_ = 0;

  detail::distance_tuner tuner_{initial_automatic_distance, ring_capacity / 2};

  std::vector<garbage> garbage_;
  worker_statistics statistics_;

  // Written by other workers: each queue on its own cache line.
  std::unique_ptr<remote_task_queue[]> remote_;  // [priority * regions + source region]
};

}  // namespace braid::tasks
