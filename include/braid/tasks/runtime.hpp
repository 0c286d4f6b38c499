// runtime: the task runtime (MxTasking, Mühlig 2023) — one pinned worker per chosen core,
// each with its own task pool, descriptor cache and prefetching task buffer.
//
//   braid::tasks::runtime tasks({.workers = 2, .distance = braid::tasks::prefetch_distance::automatic()});
//   auto* hello = tasks.allocate_lambda([](braid::tasks::worker& self) {
//     std::printf("hello from worker %u\n", self.id());
//     return braid::tasks::task_result::stop();
//   });
//   tasks.spawn(*hello);
//   tasks.run();   // until a task stops the runtime
//
// Lifecycle: the constructor starts the worker threads (pinned, parked); run() lets them
// execute until some task returns task_result::stop() or calls stop(), then returns (and
// rethrows the first exception a task threw). Tasks spawned before run() wait in the
// workers' queues; tasks still queued when the runtime stops stay there for the next run();
// the destructor destroys them and reclaims everything retired. The runtime can be run any
// number of times; settings such as the prefetch distance may change between runs.
//
// Data objects: `annotate(object, annotation)` (MxTasking's to_resource) or
// `new_resource<T>(annotation, args...)` give the tagged resource_ptr that tasks are
// annotated with; it carries the owner worker (round robin, weighted by access frequency:
// workers that own hot objects are chosen less often) and the synchronization primitive.
//
// Thread safety: spawn, allocate, annotate, new_resource and stop may be called from any
// thread, also while the runtime runs; run and the setters only from one thread, between runs.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <utility>
#include <vector>

#include "braid/core/thread_runner.hpp"
#include "braid/tasks/descriptor_allocator.hpp"
#include "braid/tasks/epoch.hpp"
#include "braid/tasks/prefetch_distance.hpp"
#include "braid/tasks/resource.hpp"
#include "braid/tasks/squad.hpp"
#include "braid/tasks/task.hpp"
#include "braid/tasks/worker.hpp"

namespace braid::tasks {

struct runtime_config {
  unsigned workers = 1;
  prefetch_distance distance = prefetch_distance::fixed(2);
  reclamation reclaim = reclamation::per_refill;
  std::chrono::microseconds epoch_interval{1000};
  // A refill takes low-priority tasks only while fewer than this many tasks are buffered.
  unsigned low_priority_below = 16;
  // Automatic distance: the tuner tries no distance beyond this many tasks ahead (at most 32).
  unsigned max_automatic_distance = 16;
};

struct runtime_statistics {
  worker_statistics tasks;
  descriptor_heap_statistics descriptors;
};

class runtime {
 public:
  explicit runtime(runtime_config config = {});
  runtime(const runtime&) = delete;
  runtime& operator=(const runtime&) = delete;
  ~runtime();

  [[nodiscard]] unsigned workers() const noexcept { return static_cast<unsigned>(workers_.size()); }
  [[nodiscard]] const runtime_config& config() const noexcept { return config_; }
  // CPUs the workers are pinned to (-1 where the system refused).
  [[nodiscard]] const std::vector<int>& cpus() const noexcept { return runner_.cpus(); }

  // ---- between runs --------------------------------------------------------------------
  void set_prefetch_distance(prefetch_distance distance);
  void set_reclamation(reclamation mode);
  void set_low_priority_below(unsigned tasks);

  // ---- running -------------------------------------------------------------------------
  // Runs the workers until a task stops the runtime; rethrows the first task exception.
  void run();
  // Every worker leaves after its current task. Any thread.
  void stop() noexcept { stopping_.store(true, std::memory_order_release); }
  [[nodiscard]] bool stopping() const noexcept { return stopping_.load(std::memory_order_relaxed); }

  // ---- tasks ---------------------------------------------------------------------------
  // Dispatches `task`: on a worker of this runtime exactly as worker::spawn; from any other
  // thread to its target, its object's owner (scheduled objects) or the workers in turn.
  void spawn(task_descriptor& task);

  template <class T, class... Args>
  [[nodiscard]] T* allocate(Args&&... arguments) {
    if (worker* self = current_worker(); self != nullptr && &self->owner_runtime() == this) {
      return self->allocate<T>(std::forward<Args>(arguments)...);
    }
    void* memory = heap_.allocate_one();
    try {
      return ::new (memory) T(std::forward<Args>(arguments)...);
    } catch (...) {
      heap_.free_one(memory);
      throw;
    }
  }
  template <class Function>
  [[nodiscard]] lambda_task<Function>* allocate_lambda(Function function) {
    return allocate<lambda_task<Function>>(std::move(function));
  }
  // Destroys and frees a descriptor that was never spawned (or that a task kept).
  void free(task_descriptor& task) noexcept;

  // ---- data objects --------------------------------------------------------------------
  // Owner and primitive for `object` (MxTasking's to_resource).
  [[nodiscard]] resource_ptr annotate(resource* object, const resource_annotation& annotation);
  template <class T, class... Args>
  [[nodiscard]] resource_ptr new_resource(const resource_annotation& annotation, Args&&... arguments) {
    return annotate(new T(std::forward<Args>(arguments)...), annotation);
  }
  // Deletes at once: only when no task can reach the object (otherwise retire it).
  template <class T>
  void delete_resource(resource_ptr object) {
    delete object.as<T>();
  }
  // Retires from any thread: on a worker like worker::retire; elsewhere kept until the
  // runtime is destroyed.
  void retire(resource* object, void (*reclaim)(resource*) noexcept);

  // The owner worker for a new object of this frequency (round robin, weighted).
  [[nodiscard]] std::uint16_t assign_owner(access_frequency frequency) noexcept;

  // ---- squads --------------------------------------------------------------------------
  [[nodiscard]] resource_ptr new_squad(std::optional<std::uint16_t> owner = std::nullopt);
  // Destroys the squad and the tasks still waiting in it. Not while the runtime runs.
  void delete_squad(resource_ptr squad);
  void flush(resource_ptr squad);

  // ---- introspection -------------------------------------------------------------------
  [[nodiscard]] worker& worker_at(unsigned index) noexcept { return *workers_[index]; }
  [[nodiscard]] runtime_statistics statistics() const;
  void reset_statistics() noexcept;
  [[nodiscard]] epoch_manager& epochs() noexcept { return epochs_; }

  // The worker the calling thread is, or null.
  [[nodiscard]] static worker* current_worker() noexcept;

 private:
  friend class worker;

  void remote_push(std::uint16_t target, unsigned source_region, task_descriptor& task) noexcept {
    workers_[target]->accept_remote(task, task.task_priority(), source_region);
  }
  void record_failure(std::exception_ptr failure) noexcept;

  runtime_config config_;
  descriptor_heap heap_;  // outlives the workers' caches
  epoch_manager epochs_;
  thread_runner runner_;
  std::vector<std::unique_ptr<worker>> workers_;

  alignas(64) std::atomic<bool> stopping_{false};
  alignas(64) std::atomic<std::uint64_t> owner_cursor_{0};
  std::unique_ptr<std::atomic<std::uint64_t>[]> owner_weight_;
  std::atomic<std::uint64_t> spawn_cursor_{0};

  std::mutex failure_mutex_;
  std::exception_ptr failure_;

  std::mutex external_garbage_mutex_;
  std::vector<std::pair<resource*, void (*)(resource*) noexcept>> external_garbage_;
};

// RAII: builds the runtime, lets the caller spawn the first tasks, and runs it to the end in
// its destructor (MxTasking's runtime_guard). A task exception there terminates the program
// with its message: a destructor cannot report it otherwise.
class runtime_guard {
 public:
  explicit runtime_guard(runtime_config config = {}) : runtime_(config) {}
  runtime_guard(const runtime_guard&) = delete;
  runtime_guard& operator=(const runtime_guard&) = delete;
  ~runtime_guard();

  runtime* operator->() noexcept { return &runtime_; }
  runtime& operator*() noexcept { return runtime_; }

 private:
  runtime runtime_;
};

}  // namespace braid::tasks
