// Tasks of the runtime: small run-to-completion units, each annotated with the one data
// object it touches (MxTasks, Mühlig 2023).
//
//   struct count_down : braid::tasks::annotated_task<count_down> {
//     int left;
//     braid::tasks::task_result execute(braid::tasks::worker& self) {
//       if (--left == 0) return braid::tasks::task_result::remove();
//       return braid::tasks::task_result::succeed(*this);   // run me again (re-annotated or not)
//     }
//   };
//
// A task never blocks and never yields: it runs to its end and says what happens next
// (task_result): spawn a successor (often itself, re-annotated with the next object, so one
// descriptor serves a whole tree traversal), free itself, both, nothing, or stop the runtime.
//
// A descriptor is at most `max_task_bytes` (two cache lines) and carries its annotations in its
// first 56 bytes: the data object (a tagged resource_ptr: address, owner, primitive), the
// access intent, what to prefetch of which address, a priority and an optional target
// worker. Tasks are plain structs deriving from annotated_task<Derived> (CRTP: the execute
// and destroy entry points are function pointers in the descriptor, no vtable). Descriptors
// come from the runtime's allocator (worker.allocate<T>(...), runtime.allocate<T>(...)); once
// spawned they belong to the runtime until they return remove.
//
// Optimistic readers: a task that reads an optimistically synchronized object may run on
// data a writer changes under it; the worker then restores the descriptor's bytes as they
// were before the run and runs it again. Such tasks must therefore be trivially copyable
// (checked when it matters, at run time, with a clear error), and must not have side effects
// beyond their own descriptor except through the worker (spawn, when_validated), which
// defers them until the read is validated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "braid/tasks/prefetch_descriptor.hpp"
#include "braid/tasks/resource.hpp"

namespace braid::tasks {

class worker;
class task_descriptor;

inline constexpr std::size_t max_task_bytes = 128;
inline constexpr std::uint16_t any_worker = 0xFFFF;

enum class access_intent : std::uint8_t { write, readonly };
enum class priority : std::uint8_t { normal = 0, low = 1 };
inline constexpr unsigned priority_count = 2;

// What the worker does with a task after it ran.
class task_result {
 public:
  enum class action : std::uint8_t { remove, keep, succeed, succeed_and_remove, stop };

  // Dispatch `successor` (may be the task itself, re-annotated).
  [[nodiscard]] static task_result succeed(task_descriptor& successor) noexcept {
    return task_result(action::succeed, &successor);
  }
  // Dispatch `successor` and free this task.
  [[nodiscard]] static task_result succeed_and_remove(task_descriptor& successor) noexcept {
    return task_result(action::succeed_and_remove, &successor);
  }
  // Destroy and free this task.
  [[nodiscard]] static task_result remove() noexcept { return task_result(action::remove, nullptr); }
  // Leave the descriptor alone: whoever owns it keeps it (MxTasking's null result).
  [[nodiscard]] static task_result keep() noexcept { return task_result(action::keep, nullptr); }
  // Stop the runtime (every worker finishes its current task and leaves); this task is freed.
  [[nodiscard]] static task_result stop() noexcept { return task_result(action::stop, nullptr); }

  [[nodiscard]] action what() const noexcept { return action_; }
  [[nodiscard]] task_descriptor* successor() const noexcept { return successor_; }

 private:
  task_result(action what, task_descriptor* successor) noexcept : successor_(successor), action_(what) {}

  task_descriptor* successor_;
  action action_;
};

// Per task type: how to run and destroy one, and whether its bytes may be saved and restored.
struct task_type_info {
  task_result (*execute)(task_descriptor& task, worker& self);
  void (*destroy)(task_descriptor& task) noexcept;
  std::uint16_t bytes;
  bool restorable;  // trivially copyable: an optimistic reader may be re-run from saved bytes
};

class alignas(64) task_descriptor {
 public:
  // ---- annotations ---------------------------------------------------------------------
  // The data object, how it is accessed, and what of it to prefetch before the task runs.
  void annotate(resource_ptr object, access_intent intent, prefetch_descriptor hint = {}) noexcept {
    object_ = object;
    intent_ = intent;
    prefetch_address_ = object.get();
    prefetch_ = hint;
  }
  // Prefetch `address` by `hint` ahead of the task, without a data object to synchronize on.
  void annotate_prefetch(const void* address, prefetch_descriptor hint) noexcept {
    prefetch_address_ = address;
    prefetch_ = hint;
  }
  void annotate(priority level) noexcept { priority_ = level; }
  // Run on this worker (any_worker: let the dispatcher decide).
  void annotate_worker(std::uint16_t target) noexcept { destination_ = target; }
  // Forget the data object (the task then runs unsynchronized, on the spawning worker).
  void clear_object() noexcept {
    object_ = resource_ptr{};
    prefetch_address_ = nullptr;
    prefetch_ = {};
  }

  [[nodiscard]] resource_ptr object() const noexcept { return object_; }
  template <class T>
  [[nodiscard]] T* object_as() const noexcept {
    return object_.as<T>();
  }
  [[nodiscard]] access_intent intent() const noexcept { return intent_; }
  [[nodiscard]] bool is_reader() const noexcept { return intent_ == access_intent::readonly; }
  [[nodiscard]] priority task_priority() const noexcept { return priority_; }
  [[nodiscard]] std::uint16_t destination() const noexcept { return destination_; }
  [[nodiscard]] const void* prefetch_address() const noexcept { return prefetch_address_; }
  [[nodiscard]] prefetch_descriptor prefetch_hint() const noexcept { return prefetch_; }
  [[nodiscard]] const task_type_info& type() const noexcept { return *type_; }

 protected:
  explicit task_descriptor(const task_type_info& type) noexcept : execute_(type.execute), type_(&type) {}
  // Copies exist only as byte images for optimistic re-execution; the defaults keep the
  // derived types trivially copyable.
  task_descriptor(const task_descriptor&) noexcept = default;
  task_descriptor& operator=(const task_descriptor&) noexcept = default;
  ~task_descriptor() = default;

 private:
  friend class worker;
  friend class runtime;
  friend class task_squad;
  friend class local_task_queue;
  friend class remote_task_queue;

  task_result (*execute_)(task_descriptor&, worker&);
  const task_type_info* type_;
  task_descriptor* next_ = nullptr;  // intrusive link of the task queues
  resource_ptr object_{};
  const void* prefetch_address_ = nullptr;
  prefetch_descriptor prefetch_{};
  std::uint16_t destination_ = any_worker;
  access_intent intent_ = access_intent::write;
  priority priority_ = priority::normal;
};
static_assert(sizeof(task_descriptor) == 64);

// Base of every task type: `struct my_task : annotated_task<my_task> { task_result execute(worker&); }`.
template <class Derived>
class annotated_task : public task_descriptor {
 protected:
  annotated_task() noexcept : task_descriptor(type_info()) {
    static_assert(sizeof(Derived) <= max_task_bytes, "a task descriptor holds at most max_task_bytes");
    static_assert(alignof(Derived) <= 64, "task descriptors are 64-byte aligned");
  }

 private:
  static const task_type_info& type_info() noexcept {
    static constexpr task_type_info info{
        .execute = [](task_descriptor& task, worker& self) -> task_result {
          return static_cast<Derived&>(task).execute(self);
        },
        .destroy = [](task_descriptor& task) noexcept { static_cast<Derived&>(task).~Derived(); },
        .bytes = static_cast<std::uint16_t>(sizeof(Derived)),
        .restorable = std::is_trivially_copyable_v<Derived>,
    };
    return info;
  }
};

// A task from a callable: `worker.allocate<lambda_task<F>>(f)` or make via runtime helpers.
// The callable takes `worker&` and returns a task_result, or returns void (then the task is
// removed after it ran).
template <class Function>
class lambda_task : public annotated_task<lambda_task<Function>> {
 public:
  explicit lambda_task(Function function) noexcept(std::is_nothrow_move_constructible_v<Function>)
      : function_(std::move(function)) {}

  task_result execute(worker& self) {
    if constexpr (std::is_void_v<std::invoke_result_t<Function&, worker&>>) {
      function_(self);
      return task_result::remove();
    } else {
      return function_(self);
    }
  }

 private:
  Function function_;
};

}  // namespace braid::tasks
