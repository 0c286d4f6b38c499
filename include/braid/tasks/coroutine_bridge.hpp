// The bridge between braid's coroutines and the task runtime: one operation source, written
// once against an execution mode, runs as the plain algorithm (`sequential`), interleaved on
// a thread (`interleaved` + a scheduler), or as a chain of tasks (`tasks::on_runtime`).
//
//   template <braid::execution_mode M> braid::coro<int> find(const table& t, int key) {
//     const node* n = t.bucket(key);
//     while (n != nullptr) {
//       const node& current = co_await braid::fetch<M>(n);   // on_runtime: re-enqueue as a task
//       ...
//
//   braid::tasks::spawn_coroutine(self, find<braid::tasks::on_runtime>(t, key),
//                                 [](braid::tasks::worker&, int value) { ... });
//
// Under `on_runtime`, `co_await fetch<M>(p)` suspends the coroutine and records `p`; the
// coroutine's task then re-annotates itself with `p` (a size prefetch hint of the fetched
// bytes) and returns itself as its successor. The worker prefetches `p` a few tasks ahead, as
// for any annotated task, and resumes the coroutine when its slot comes. The fetch issues no
// prefetch of its own: timing is the runtime's.
//
// The coroutine task has no data object to synchronize on (a coroutine frame cannot be
// restored for an optimistic re-run): the operation validates what it reads itself, as it
// must when it runs interleaved on plain threads.
//
// `on_runtime` supplies its awaiter through `await_load` (see core/fetch.hpp), so `fetch<M>`
// finds it through the mode type whatever the include order.
#pragma once

#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "braid/core/fetch.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/operation.hpp"
#include "braid/tasks/runtime.hpp"
#include "braid/tasks/task.hpp"
#include "braid/tasks/worker.hpp"

namespace braid::tasks {

namespace detail {

// What the coroutine fetched when it last suspended, for its task to annotate itself with.
// A worker runs one task at a time, so one record per thread suffices.
struct pending_fetch {
  const void* address = nullptr;
  std::uint32_t bytes = 0;
  prefetch_temporality temporality = prefetch_temporality::temporal;
};
inline constinit thread_local pending_fetch last_fetch{};

template <class T>
struct runtime_load {
  T* address;
  std::uint32_t bytes;
  prefetch_temporality temporality;
  static constexpr bool await_ready() noexcept { return false; }
  void await_suspend(std::coroutine_handle<>) const noexcept { last_fetch = {address, bytes, temporality}; }
  T& await_resume() const noexcept { return *address; }
};

}  // namespace detail

// The mode of operations that run as tasks; `Temporality` is the prefetch the runtime issues.
template <prefetch_temporality Temporality>
struct on_runtime_with {
  static constexpr bool suspends = true;
  static constexpr prefetch_hint hint =
      Temporality == prefetch_temporality::non_temporal ? prefetch_hint::nta
      : Temporality == prefetch_temporality::write      ? prefetch_hint::write
                                                        : prefetch_hint::t0;
  static constexpr prefetch_temporality temporality = Temporality;
  static constexpr const char* name = "task runtime";
  using task_runtime_mode = void;

  // The awaiter `fetch<M>` uses: record what is fetched and suspend; no prefetch here, the
  // worker issues it a few tasks ahead.
  template <class T>
  static detail::runtime_load<T> await_load(T* address, std::size_t bytes) noexcept {
    return {address, static_cast<std::uint32_t>(bytes), Temporality};
  }
};
using on_runtime = on_runtime_with<prefetch_temporality::temporal>;

template <class M>
concept runtime_mode = execution_mode<M> && requires { typename M::task_runtime_mode; };

// A coroutine (coro<T>, task<T>, anything satisfying braid::operation) running as a task;
// `deliver(worker&, result)` (or `deliver(worker&)` for void) receives its result on the
// worker that finished it.
template <operation Operation, class Deliver>
class coroutine_task : public annotated_task<coroutine_task<Operation, Deliver>> {
 public:
  coroutine_task(Operation operation, Deliver deliver)
      : operation_(std::move(operation)), deliver_(std::move(deliver)) {}

  task_result execute(worker& self) {
    detail::last_fetch.address = nullptr;
    operation_.resume();
    if (operation_.done()) {
      deliver_result(self);
      return task_result::remove();
    }
    annotate_with_last_fetch();
    return task_result::succeed(*this);
  }

  // After the operation suspended (eagerly, on creation): annotate with what it fetched.
  void annotate_with_last_fetch() noexcept {
    const detail::pending_fetch fetched = detail::last_fetch;
    if (fetched.address != nullptr) {
      this->annotate_prefetch(fetched.address, prefetch_descriptor::bytes(fetched.bytes, fetched.temporality));
    } else {
      this->annotate_prefetch(nullptr, {});
    }
  }

  void deliver_result(worker& self) {
    if constexpr (std::is_void_v<typename Operation::result_type>) {
      operation_.take_result();
      deliver_(self);
    } else {
      deliver_(self, operation_.take_result());
    }
  }

 private:
  Operation operation_;
  Deliver deliver_;
};

// Runs `operation` on the runtime, from a worker: an eager coroutine that already finished is
// delivered at once; otherwise its task is spawned on this worker.
template <operation Operation, class Deliver>
void spawn_coroutine(worker& self, Operation operation, Deliver deliver) {
  using task_type = coroutine_task<Operation, Deliver>;
  if constexpr (Operation::starts_eagerly) {
    if (operation.done()) {
      if constexpr (std::is_void_v<typename Operation::result_type>) {
        operation.take_result();
        deliver(self);
      } else {
        deliver(self, operation.take_result());
      }
      return;
    }
    task_type* task = self.allocate<task_type>(std::move(operation), std::move(deliver));
    task->annotate_with_last_fetch();
    self.spawn(*task);
  } else {
    task_type* task = self.allocate<task_type>(std::move(operation), std::move(deliver));
    self.spawn(*task);  // its first run starts it
  }
}

}  // namespace braid::tasks
