#include "braid/tasks/runtime.hpp"

#include <cstdio>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>

#include "braid/core/cycles.hpp"

namespace braid::tasks {

// Moves a flushed squad's tasks into its owner's local queue, in one splice.
struct squad_flush_task : annotated_task<squad_flush_task> {
  explicit squad_flush_task(task_squad& flushed) noexcept : squad(&flushed) {}
  task_result execute(worker& self) {
    squad->drain_into(self.local_[static_cast<unsigned>(priority::normal)]);
    return task_result::remove();
  }
  task_squad* squad;
};

namespace {

// The NUMA node of a CPU, from sysfs (0 where the system does not say).
int numa_node_of(int cpu) {
  if (cpu < 0) return 0;
  std::error_code error;
  const std::filesystem::path directory = "/sys/devices/system/cpu/cpu" + std::to_string(cpu);
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 4 && name.starts_with("node") && name.find_first_not_of("0123456789", 4) == std::string::npos) {
      return std::stoi(name.substr(4));
    }
  }
  return 0;
}

std::uint64_t owner_weight(access_frequency frequency) noexcept {
  switch (frequency) {
    case access_frequency::excessive: return 64;
    case access_frequency::high: return 8;
    case access_frequency::normal: return 1;
    case access_frequency::unused: return 0;
  }
  return 1;
}

runtime_config validated(runtime_config config) {
  if (config.workers == 0) throw std::invalid_argument("braid tasks: a runtime needs at least one worker");
  if (config.workers > resource_ptr::max_workers) {
    throw std::invalid_argument("braid tasks: at most " + std::to_string(resource_ptr::max_workers) + " workers");
  }
  return config;
}

std::uint64_t cycles_of(std::chrono::microseconds interval) {
  return static_cast<std::uint64_t>(static_cast<double>(interval.count()) * 1000.0 * tsc_per_ns());
}

}  // namespace

runtime::runtime(runtime_config config)
    : config_(validated(config)),
      epochs_(config_.workers, cycles_of(config_.epoch_interval)),
      runner_(config_.workers),
      owner_weight_(new std::atomic<std::uint64_t>[config_.workers]) {
  // NUMA regions of the workers' CPUs, numbered densely.
  std::map<int, unsigned> regions;
  std::vector<int> node_of_worker;
  for (unsigned index = 0; index < config_.workers; ++index) {
    const int node = numa_node_of(runner_.cpus()[index]);
    node_of_worker.push_back(node);
    regions.emplace(node, 0);
  }
  unsigned next_region = 0;
  for (auto& [node, region] : regions) region = next_region++;
  workers_.reserve(config_.workers);
  for (unsigned index = 0; index < config_.workers; ++index) {
    workers_.emplace_back(new worker(*this, static_cast<std::uint16_t>(index), regions[node_of_worker[index]],
                                     next_region, heap_));
    owner_weight_[index].store(0, std::memory_order_relaxed);
  }
}

runtime::~runtime() {
  for (auto& each : workers_) each->discard_pending();
  for (auto& each : workers_) each->reclaim_garbage(true);
  for (auto& [object, reclaim] : external_garbage_) reclaim(object);
}

runtime_guard::~runtime_guard() {
  try {
    runtime_.run();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "braid tasks: a task failed: %s\n", error.what());
    std::terminate();
  } catch (...) {
    std::fprintf(stderr, "braid tasks: a task failed with an unknown exception\n");
    std::terminate();
  }
}

void runtime::set_prefetch_distance(prefetch_distance distance) { config_.distance = distance; }

void runtime::set_reclamation(reclamation mode) { config_.reclaim = mode; }

void runtime::set_low_priority_below(unsigned tasks) { config_.low_priority_below = tasks; }

void runtime::run() {
  stopping_.store(false, std::memory_order_release);
  {
    std::lock_guard lock(failure_mutex_);
    failure_ = nullptr;
  }
  runner_.run([this](unsigned index) { workers_[index]->run_loop(); });
  std::lock_guard lock(failure_mutex_);
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

void runtime::record_failure(std::exception_ptr failure) noexcept {
  {
    std::lock_guard lock(failure_mutex_);
    if (!failure_) failure_ = std::move(failure);
  }
  stop();
}

void runtime::spawn(task_descriptor& task) {
  if (worker* self = current_worker(); self != nullptr && &self->owner_runtime() == this) {
    self->spawn(task);
    return;
  }
  std::uint16_t target = task.destination();
  if (const resource_ptr object = task.object()) {
    const primitive protocol = object.protocol();
    if (protocol == primitive::batched) {
      object.as<task_squad>()->push(task, nullptr);
      return;
    }
    if (target == any_worker &&
        (protocol == primitive::schedule_all || (protocol == primitive::schedule_writer && !task.is_reader()))) {
      target = object.owner();
    }
  }
  if (target == any_worker) {
    target = static_cast<std::uint16_t>(spawn_cursor_.fetch_add(1, std::memory_order_relaxed) % workers());
  }
  if (target >= workers()) {
    throw std::logic_error("braid tasks: task annotated with worker " + std::to_string(target) + " but the runtime has " +
                           std::to_string(workers()));
  }
  remote_push(target, 0, task);
}

void runtime::free(task_descriptor& task) noexcept {
  if (worker* self = current_worker(); self != nullptr && &self->owner_runtime() == this) {
    self->free(task);
    return;
  }
  task.type().destroy(task);
  heap_.free_one(&task);
}

std::uint16_t runtime::assign_owner(access_frequency frequency) noexcept {
  const unsigned count = workers();
  const auto start = static_cast<unsigned>(owner_cursor_.fetch_add(1, std::memory_order_relaxed) % count);
  unsigned best = start;
  std::uint64_t best_weight = owner_weight_[start].load(std::memory_order_relaxed);
  for (unsigned offset = 1; offset < count; ++offset) {
    const unsigned candidate = (start + offset) % count;
    const std::uint64_t weight = owner_weight_[candidate].load(std::memory_order_relaxed);
    if (weight < best_weight) {
      best = candidate;
      best_weight = weight;
    }
  }
  owner_weight_[best].fetch_add(owner_weight(frequency), std::memory_order_relaxed);
  return static_cast<std::uint16_t>(best);
}

resource_ptr runtime::annotate(resource* object, const resource_annotation& annotation) {
  if (object == nullptr) throw std::invalid_argument("braid tasks: annotate(nullptr)");
  if ((reinterpret_cast<std::uintptr_t>(object) >> 48) != 0) {
    throw std::invalid_argument("braid tasks: object address does not fit the 48 bits of a resource_ptr");
  }
  primitive protocol = annotation.protocol ? *annotation.protocol
                                           : select_primitive(annotation.isolation_level, annotation.ratio,
                                                              annotation.frequency);
  if (protocol == primitive::transactional && !hardware_transactions_supported()) {
    protocol = transactional_fallback(annotation.isolation_level, annotation.ratio, annotation.frequency);
    report_missing_transactions_once(protocol);
  }
  if (protocol == primitive::batched) {
    throw std::invalid_argument("braid tasks: the batched primitive belongs to task squads (new_squad)");
  }
  std::uint16_t owner = 0;
  if (annotation.owner) {
    if (*annotation.owner >= workers()) {
      throw std::invalid_argument("braid tasks: owner worker " + std::to_string(*annotation.owner) +
                                  " but the runtime has " + std::to_string(workers()));
    }
    owner = *annotation.owner;
    owner_weight_[owner].fetch_add(owner_weight(annotation.frequency), std::memory_order_relaxed);
  } else {
    owner = assign_owner(annotation.frequency);
  }
  return resource_ptr(object, owner, protocol);
}

void runtime::retire(resource* object, void (*reclaim)(resource*) noexcept) {
  if (worker* self = current_worker(); self != nullptr && &self->owner_runtime() == this) {
    self->retire(object, reclaim);
    return;
  }
  std::lock_guard lock(external_garbage_mutex_);
  external_garbage_.emplace_back(object, reclaim);
}

resource_ptr runtime::new_squad(std::optional<std::uint16_t> owner) {
  if (owner && *owner >= workers()) {
    throw std::invalid_argument("braid tasks: squad owner " + std::to_string(*owner) + " but the runtime has " +
                                std::to_string(workers()));
  }
  auto* squad = new task_squad(owner ? *owner : assign_owner(access_frequency::normal));
  return resource_ptr(squad, squad->owner(), primitive::batched);
}

void runtime::delete_squad(resource_ptr squad) {
  auto* doomed = squad.as<task_squad>();
  local_task_queue waiting;
  doomed->drain_into(waiting);
  while (task_descriptor* task = waiting.pop()) free(*task);
  delete doomed;
}

void runtime::flush(resource_ptr squad) {
  auto* flushed = squad.as<task_squad>();
  auto* flush_task = allocate<squad_flush_task>(*flushed);
  flush_task->annotate_worker(flushed->owner());
  spawn(*flush_task);
}

runtime_statistics runtime::statistics() const {
  runtime_statistics total;
  for (const auto& each : workers_) total.tasks += each->statistics();
  total.descriptors = heap_.statistics();
  return total;
}

void runtime::reset_statistics() noexcept {
  for (auto& each : workers_) each->statistics_ = {};
}

}  // namespace braid::tasks
