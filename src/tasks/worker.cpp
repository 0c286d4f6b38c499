#include "braid/tasks/worker.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include "braid/core/cycles.hpp"
#include "braid/core/detail/counters.hpp"
#include "braid/core/detail/thread_sanitizer.hpp"
#include "braid/core/prefetch.hpp"
#include "braid/tasks/detail/latches.hpp"
#include "braid/tasks/runtime.hpp"
#include "braid/tasks/squad.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace braid::tasks {

// The worker's view of a resource's synchronization words.
struct resource_access {
  static std::atomic<std::uint64_t>& version(resource& object) noexcept { return object.version_; }
  static std::atomic<std::uint32_t>& latch(resource& object) noexcept { return object.latch_; }
};

namespace {

constinit thread_local worker* current_worker_of_thread = nullptr;

using detail::cpu_relax;
using detail::exclusive_guard;
using detail::latched_write_guard;
using detail::serialized_write_guard;
using detail::shared_guard;
using detail::spin_guard;

}  // namespace

worker_statistics& worker_statistics::operator+=(const worker_statistics& other) noexcept {
  using counts = worker_statistics;
  return braid::detail::add_counters<&counts::executed, &counts::dispatched_local, &counts::dispatched_remote,
                                     &counts::forwarded, &counts::optimistic_retries, &counts::refills,
                                     &counts::prefetches, &counts::retired, &counts::reclaimed, &counts::htm_commits,
                                     &counts::htm_conflict_aborts, &counts::htm_capacity_aborts,
                                     &counts::htm_latch_aborts, &counts::htm_other_aborts,
                                     &counts::htm_fallback_runs>(*this, other);
}

worker* runtime::current_worker() noexcept { return current_worker_of_thread; }

worker::worker(runtime& owner, std::uint16_t id, unsigned region, unsigned regions, descriptor_heap& heap)
    : cache_(heap),
      runtime_(&owner),
      id_(id),
      region_(region),
      regions_(regions),
      remote_(new remote_task_queue[priority_count * regions]) {
  garbage_.reserve(256);
}

worker::~worker() = default;

// ---- the loop --------------------------------------------------------------------------------

void worker::configure_prefetching() {
  const runtime_config& config = runtime_->config();
  prefetch_mode_ = config.distance.kind();
  low_priority_below_ = std::min<unsigned>(config.low_priority_below, ring_capacity);
  reclamation_ = config.reclaim;
  constexpr unsigned largest_distance = ring_capacity / 2;
  switch (prefetch_mode_) {
    case prefetch_distance::mode::off: refill_at_ = 0; break;
    case prefetch_distance::mode::fixed:
      fixed_distance_ = std::clamp(config.distance.tasks(), 1u, largest_distance);
      refill_at_ = fixed_distance_;
      break;
    case prefetch_distance::mode::automatic: {
      const unsigned largest = std::clamp(config.max_automatic_distance, 1u, largest_distance);
      tuner_ = detail::distance_tuner(initial_automatic_distance, largest);
      fixed_distance_ = tuner_.distance();
      refill_at_ = fixed_distance_;
      start_tuning_window();
      break;
    }
  }
}

void worker::start_tuning_window() noexcept {
  window_left_ = tuning_window_tasks;
  window_start_ = read_cycle_counter();
}

// The window's cycles go to the tuner, whose next distance the following tasks are placed at
// (tasks already in the ring keep the prefetch slots they were given).
void worker::finish_tuning_window() noexcept {
  fixed_distance_ = tuner_.window_done(read_cycle_counter() - window_start_);
  refill_at_ = fixed_distance_;
  start_tuning_window();
}

void worker::run_loop() {
  current_worker_of_thread = this;
  configure_prefetching();
  unsigned idle_rounds = 0;
  try {
    while (!runtime_->stopping()) {
      if (count_ <= refill_at_) refill();
      if (count_ == 0) {
        idle_wait(idle_rounds);
        continue;
      }
      if (idle_rounds != 0) {
        idle_rounds = 0;
        // A window that waited for work measures the wait, not the distance.
        if (prefetch_mode_ == prefetch_distance::mode::automatic) start_tuning_window();
      }
      run_buffered_tasks();
    }
  } catch (...) {
    // The task that threw is not dispatched again; what it deferred is dropped.
    effect_count_ = 0;
    deferring_ = false;
    while (task_descriptor* deferred = deferred_spawns_.pop()) free(*deferred);
    if (running_ != nullptr) free(*running_);
    runtime_->record_failure(std::current_exception());
  }
  running_ = nullptr;
  if (reclamation_ != reclamation::none) runtime_->epochs().leave(id_);
  current_worker_of_thread = nullptr;
}

// The loop's per-task functions are forced inline: with a ring that holds one task (a single
// chain) the loop runs them once per task, and each call's prologue cost as much as their work.
[[gnu::always_inline]] inline void worker::run_buffered_tasks() {
  const bool prefetching = prefetch_mode_ != prefetch_distance::mode::off;
  const bool tuning = prefetch_mode_ == prefetch_distance::mode::automatic;
  do {
    buffer_slot& slot = ring_[head_ & ring_mask];
    task_descriptor* task = slot.task;
    if (prefetching) {
      if (count_ > 1) {
        const task_descriptor* next = ring_[(head_ + 1) & ring_mask].task;
        prefetch<prefetch_hint::t0>(next);
        prefetch<prefetch_hint::t0>(reinterpret_cast<const std::byte*>(next) + cache_line_bytes);
      }
      if (slot.prefetch_address != nullptr) {
        slot.prefetch.issue(slot.prefetch_address);
        slot.prefetch_address = nullptr;
        ++statistics_.prefetches;
      }
    }
    ++head_;
    --count_;
    if (reclamation_ == reclamation::per_task) runtime_->epochs().enter(id_);
    run(*task);
    if (tuning && --window_left_ == 0) finish_tuning_window();
  } while (count_ > refill_at_ && !runtime_->stopping());
}

[[gnu::always_inline]] inline void worker::refill() {
  ++statistics_.refills;
  take_queued(priority::normal);
  if (count_ < low_priority_below_) take_queued(priority::low);
  if (reclamation_ != reclamation::none && count_ != 0) {
    publish_epoch();
    // The clock read and the walk over the garbage, once per epoch_check_tasks tasks (unsigned
    // difference: statistics reset to 0 in between make it huge, so the next refill checks).
    if (statistics_.executed - last_epoch_check_ >= epoch_check_tasks) {
      last_epoch_check_ = statistics_.executed;
      runtime_->epochs().maybe_advance(read_cycle_counter());
      if (!garbage_.empty()) reclaim_garbage(false);
    }
  }
}

// The queued tasks of one priority: remote ones join the local queue (this worker's region
// first, then the others), then local ones fill the ring.
[[gnu::always_inline]] inline void worker::take_queued(priority level) {
  const auto queue = static_cast<unsigned>(level);
  const remote_task_queue* const of_level = &remote_[queue * regions_];
  for (unsigned source = 0; source < regions_; ++source) {
    if (of_level[source].maybe_nonempty()) {
      take_remote(level);
      break;
    }
  }
  local_task_queue& local = local_[queue];
  while (count_ < ring_capacity) {
    task_descriptor* task = local.pop();
    if (task == nullptr) break;
    place(*task);
  }
}

void worker::take_remote(priority level) noexcept {
  const auto queue = static_cast<unsigned>(level);
  remote_task_queue* const of_level = &remote_[queue * regions_];
  for (unsigned source = region_; source < regions_; ++source) of_level[source].take_all(local_[queue]);
  for (unsigned source = 0; source < region_; ++source) of_level[source].take_all(local_[queue]);
}

void worker::publish_epoch() noexcept { runtime_->epochs().enter(id_); }

[[gnu::always_inline]] inline void worker::place(task_descriptor& task) {
  const std::size_t position = head_ + count_;
  buffer_slot& slot = ring_[position & ring_mask];
  slot.task = &task;
  ++count_;
  // Fixed and automatic distances place alike; the automatic one changes between windows.
  if (prefetch_mode_ == prefetch_distance::mode::off) return;
  if (task.prefetch_address_ == nullptr || task.prefetch_.empty()) return;
  if (position < head_ + fixed_distance_) {
    // The slot k ahead of this task has run already: prefetch now, as early as it gets.
    task.prefetch_.issue(task.prefetch_address_);
    ++statistics_.prefetches;
    return;
  }
  buffer_slot& carrier = ring_[(position - fixed_distance_) & ring_mask];
  if (carrier.prefetch_address != nullptr) [[unlikely]] {
    // Taken by a task placed at another distance (the automatic one changed): issue now.
    task.prefetch_.issue(task.prefetch_address_);
    ++statistics_.prefetches;
    return;
  }
  carrier.prefetch_address = task.prefetch_address_;
  carrier.prefetch = task.prefetch_;
}

void worker::idle_wait(unsigned& idle_rounds) {
  if (idle_rounds == 0 && reclamation_ != reclamation::none) {
    runtime_->epochs().leave(id_);
    runtime_->epochs().maybe_advance(read_cycle_counter());
    if (!garbage_.empty()) reclaim_garbage(false);
  }
  ++idle_rounds;
  if (idle_rounds < 64) {
    cpu_relax();
  } else {
    std::this_thread::yield();
    if (reclamation_ != reclamation::none && (idle_rounds & 63) == 0) {
      runtime_->epochs().maybe_advance(read_cycle_counter());
      if (!garbage_.empty()) reclaim_garbage(false);
    }
  }
}

// ---- running one task -------------------------------------------------------------------------

[[gnu::always_inline]] inline void worker::run(task_descriptor& task) {
  running_ = &task;
  ++statistics_.executed;
  const resource_ptr object = task.object_;
  // No object and an object without synchronization both have primitive none.
  const task_result result = object.protocol() == primitive::none ? invoke(task) : run_synchronized(task, object);
  if (effect_count_ != 0) run_effects(task);
  running_ = nullptr;
  if (result.what() == task_result::action::succeed) [[likely]] {
    dispatch(*result.successor());
  } else {
    apply(task, result);
  }
}

task_result worker::run_synchronized(task_descriptor& task, resource_ptr object) {
  resource& target = *object.get();
  switch (object.protocol()) {
    case primitive::none:
    case primitive::batched: return invoke(task);
    case primitive::schedule_all:
      if (object.owner() != id_) {
        forward(task, object.owner());
        return task_result::keep();
      }
      return invoke(task);
    case primitive::exclusive_latch: {
      spin_guard guard(resource_access::latch(target));
      return invoke(task);
    }
    case primitive::reader_writer_latch:
      if (task.is_reader()) {
        shared_guard guard(resource_access::latch(target));
        return invoke(task);
      } else {
        exclusive_guard guard(resource_access::latch(target));
        return invoke(task);
      }
    case primitive::schedule_writer:
      if (!task.is_reader()) {
        if (object.owner() != id_) {
          forward(task, object.owner());
          return task_result::keep();
        }
        serialized_write_guard guard(resource_access::version(target));
        return invoke(task);
      }
      if (object.owner() == id_) return invoke(task);  // writers only run here: nothing to validate
      return run_optimistic(task, target);
    case primitive::olfit:
      if (!task.is_reader()) {
        latched_write_guard guard(target);
        return invoke(task);
      }
      return run_optimistic(task, target);
    case primitive::transactional: return run_transactional(task, target);
  }
  return invoke(task);
}

task_result worker::run_optimistic(task_descriptor& task, resource& object) {
  // Both optimistic variants read alike: wait while a writer is inside (odd version), run,
  // validate. They differ in how writers exclude each other (scheduling or the CAS latch).
  const task_type_info& type = *task.type_;
  if (!type.restorable) [[unlikely]] {
    throw std::logic_error("braid tasks: a task type that is not trivially copyable ran as an optimistic reader; "
                           "its descriptor cannot be restored for re-execution");
  }
  alignas(64) std::byte saved[max_task_bytes];
  std::memcpy(saved, static_cast<void*>(&task), type.bytes);
  for (;;) {
    const std::uint64_t before = object.stable_version();
    deferring_ = true;
    task_result result = task_result::keep();
    try {
      result = invoke(task);
    } catch (...) {
      deferring_ = false;
      throw;
    }
    deferring_ = false;
    if (object.validate(before)) {
      while (task_descriptor* deferred = deferred_spawns_.pop()) dispatch(*deferred);
      return result;
    }
    // A writer changed the object under the read: drop what the run produced, restore, retry.
    ++statistics_.optimistic_retries;
    ++statistics_.executed;
    effect_count_ = 0;
    while (task_descriptor* deferred = deferred_spawns_.pop()) free(*deferred);
    if (result.successor() != nullptr && result.successor() != &task) free(*result.successor());
    std::memcpy(static_cast<void*>(&task), saved, type.bytes);
  }
}

#if defined(__x86_64__) || defined(__i386__)
// ThreadSanitizer cannot see the order a hardware transaction gives (its accesses commit at
// once, with no synchronization it models), so it reports races between a transaction and the
// latch holders it excludes. A ThreadSanitizer build runs the transactional primitive on its
// fallback latch only; every other build uses RTM where the CPU has it.
constexpr bool try_hardware_transactions = !braid::detail::thread_sanitized;

[[gnu::target("rtm")]] task_result worker::run_transactional(task_descriptor& task, resource& object) {
  std::atomic<std::uint32_t>& latch = resource_access::latch(object);
  if (try_hardware_transactions && hardware_transactions_supported()) {
    constexpr unsigned latch_held = 0xff;
    for (int attempt = 0; attempt < transaction_attempts; ++attempt) {
      const unsigned status = _xbegin();
      if (status == _XBEGIN_STARTED) {
        // Reading the latch puts it in the transaction's read set: a fallback writer aborts us.
        if (latch.load(std::memory_order_relaxed) != 0) _xabort(latch_held);
        task_result result = invoke(task);
        _xend();
        ++statistics_.htm_commits;  // counted outside the transaction: an abort would undo it
        return result;
      }
      const bool by_latch = (status & _XABORT_EXPLICIT) != 0 && _XABORT_CODE(status) == latch_held;
      count_abort(status, by_latch);
      if (by_latch) {
        while (latch.load(std::memory_order_relaxed) != 0) cpu_relax();
      } else if ((status & _XABORT_RETRY) == 0) {
        break;
      }
    }
  }
  ++statistics_.htm_fallback_runs;
  spin_guard guard(latch);
  return invoke(task);
}

void worker::count_abort(unsigned status, bool by_latch) noexcept {
  if (by_latch) {
    ++statistics_.htm_latch_aborts;
  } else if ((status & _XABORT_CONFLICT) != 0) {
    ++statistics_.htm_conflict_aborts;
  } else if ((status & _XABORT_CAPACITY) != 0) {
    ++statistics_.htm_capacity_aborts;
  } else {
    ++statistics_.htm_other_aborts;
  }
}
#else
task_result worker::run_transactional(task_descriptor& task, resource& object) {
  ++statistics_.htm_fallback_runs;
  spin_guard guard(resource_access::latch(object));
  return invoke(task);
}
#endif

void worker::run_effects(task_descriptor& task) {
  const unsigned count = effect_count_;
  effect_count_ = 0;
  for (unsigned index = 0; index < count; ++index) effects_[index](task, *this);
}

void worker::when_validated(effect_function effect) {
  if (effect_count_ == max_effects) {
    throw std::logic_error("braid tasks: more than " + std::to_string(max_effects) + " effects in one task run");
  }
  effects_[effect_count_++] = effect;
}

void worker::apply(task_descriptor& task, task_result result) {
  switch (result.what()) {
    case task_result::action::remove: free(task); return;
    case task_result::action::keep: return;
    case task_result::action::succeed: dispatch(*result.successor()); return;
    case task_result::action::succeed_and_remove:
      dispatch(*result.successor());
      if (result.successor() != &task) free(task);
      return;
    case task_result::action::stop:
      free(task);
      runtime_->stop();
      return;
  }
}

void worker::forward(task_descriptor& task, std::uint16_t owner) {
  ++statistics_.forwarded;
  runtime_->remote_push(owner, region_, task);
}

// ---- dispatching ------------------------------------------------------------------------------

void worker::dispatch_routed(task_descriptor& task) {
  std::uint16_t target = task.destination_;
  if (const resource_ptr object = task.object_) {
    const primitive protocol = object.protocol();
    if (protocol == primitive::batched) {
      object.as<task_squad>()->push(task, this);
      return;
    }
    if (target == any_worker &&
        (protocol == primitive::schedule_all || (protocol == primitive::schedule_writer && !task.is_reader()))) {
      target = object.owner();
    }
  }
  if (target == any_worker || target == id_) {
    local_[static_cast<unsigned>(task.priority_)].push(task);
    ++statistics_.dispatched_local;
    return;
  }
  if (target >= runtime_->workers()) {
    throw std::logic_error("braid tasks: task annotated with worker " + std::to_string(target) + " but the runtime has " +
                           std::to_string(runtime_->workers()));
  }
  runtime_->remote_push(target, region_, task);
  ++statistics_.dispatched_remote;
}

void worker::defer(task_descriptor& task) { deferred_spawns_.push(task); }

void worker::stop() noexcept { runtime_->stop(); }

void worker::flush(resource_ptr squad) { runtime_->flush(squad); }

// ---- reclamation ------------------------------------------------------------------------------

void worker::retire(resource* object, void (*reclaim)(resource*) noexcept) {
  garbage_.push_back({object, runtime_->epochs().current(), reclaim});
  ++statistics_.retired;
}

void worker::reclaim_garbage(bool everything) noexcept {
  const std::uint64_t safe = everything ? epoch_manager::idle : runtime_->epochs().oldest_active();
  std::size_t kept = 0;
  for (const garbage& item : garbage_) {
    if (everything || item.epoch < safe) {
      item.reclaim(item.object);
      ++statistics_.reclaimed;
    } else {
      garbage_[kept++] = item;
    }
  }
  garbage_.resize(kept);
}

void worker::discard_pending() noexcept {
  for (; count_ != 0; --count_, ++head_) {
    buffer_slot& slot = ring_[head_ & ring_mask];
    slot.prefetch_address = nullptr;
    free(*slot.task);
  }
  for (auto& slot : ring_) slot.prefetch_address = nullptr;
  for (unsigned level = 0; level < priority_count; ++level) {
    for (unsigned source = 0; source < regions_; ++source) remote_[level * regions_ + source].take_all(local_[level]);
    while (task_descriptor* task = local_[level].pop()) free(*task);
  }
}

void task_squad::push(task_descriptor& task, const worker* spawner) noexcept {
  if (spawner != nullptr && spawner->id() == owner_ && runtime::current_worker() == spawner) {
    local_.push(task);
  } else {
    remote_.push(task);
  }
}

}  // namespace braid::tasks
