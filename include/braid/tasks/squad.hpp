// task_squad: tasks of one partition, collected and dispatched as one batch (dissertation
// Ch. 6). A task annotated with a squad (its resource_ptr, primitive `batched`) does not run
// when spawned: it waits in the squad. Flushing the squad moves all of its tasks, with one
// splice, into the owner worker's local queue, where they run back to back (and keep the
// partition's data in cache). A squad serializes its tasks by scheduling: they all run on its
// owner, so they need no other synchronization.
//
// Queues: an unsynchronized list for tasks the owner spawns, a multi-producer queue for the
// other workers.
#pragma once

#include <cstdint>

#include "braid/tasks/resource.hpp"
#include "braid/tasks/task_queues.hpp"

namespace braid::tasks {

class worker;

class task_squad : public resource {
 public:
  explicit task_squad(std::uint16_t owner) noexcept : owner_(owner) {}

  [[nodiscard]] std::uint16_t owner() const noexcept { return owner_; }

 private:
  friend class worker;
  friend class runtime;
  friend struct squad_flush_task;

  // From the owner: the local list; from anywhere else: the shared queue.
  void push(task_descriptor& task, const worker* spawner) noexcept;
  // On the owner: every waiting task, in spawn order per producer, into `into`.
  void drain_into(local_task_queue& into) noexcept {
    remote_.take_all(local_);
    into.splice(local_);
  }

  local_task_queue local_;
  remote_task_queue remote_;
  std::uint16_t owner_;
};

}  // namespace braid::tasks
