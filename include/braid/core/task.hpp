// task<T>: a nestable operation coroutine, for lookups written as a chain of helper
// functions (Masstree's get, a B+-tree descent with one helper per level).
//
//   template <braid::execution_mode M> braid::task<const leaf*> reach_leaf(const tree&, key);
//   template <braid::execution_mode M> braid::task<std::optional<value>> get(const tree& t, key k) {
//     const leaf* l = co_await reach_leaf<M>(t, k);          // symmetric transfer into the child
//     co_return co_await search_leaf<M>(*l, k);
//   }
//
// Semantics:
//  - a task starts lazily; awaiting it transfers control symmetrically into it (no stack
//    growth at any depth) and its completion transfers straight back to the awaiting parent;
//  - a suspension anywhere in the chain (a `fetch` in the leaf) returns control to whoever
//    resumed the root: its scheduler;
//  - resuming the root resumes the innermost suspended task directly (the root keeps a
//    pointer to it, updated on every call and return), not the chain top-down;
//  - what a task throws propagates to its awaiting parent like a normal exception, and from
//    the root to the caller of take_result();
//  - destroying an unfinished root destroys every frame of its chain (each parent frame owns
//    the child task it is awaiting);
//  - a task whose parameters include a `lookup_context&` takes its frame from that context's
//    arena (braid/core/lookup_context.hpp); every other task's frame comes from the frame pool.
//
// A task<> can only be awaited from another task<>. A task can also await a flat coro<>
// (`co_await find<M>(t, key)`): a coro that already finished (it starts eagerly) gives its
// result without a suspension; otherwise the task suspends and the chain's innermost frame
// becomes the coro, which the root's resume() resumes directly; once the coro has finished,
// the same resume() continues the task that awaits it. This is the two-level form: one task
// frame per transaction, one flat frame per operation. A coro pays nothing for this.
#pragma once

#include <coroutine>
#include <exception>
#include <type_traits>
#include <utility>

#include "braid/core/coro.hpp"
#include "braid/core/detail/result_slot.hpp"
#include "braid/core/lookup_context.hpp"

namespace braid {

template <class T>
class task;

namespace detail {

// What the root of a chain keeps for the whole chain.
//  - `innermost`: the frame that runs when the root is resumed.
//  - `flat_parent`: while a task awaits an unfinished flat coro (then `innermost`), that task;
//    when the coro has finished, resuming the root continues it. Null otherwise.
struct task_chain {
  std::coroutine_handle<> innermost{};
  std::coroutine_handle<> flat_parent{};
};

// The chain bookkeeping every task promise carries.
//  - `continuation` is the awaiting parent; null for the root.
//  - `chain` points to the root's `chain_of_root`. For a root it points to its own member.
class task_promise_base : public context_frames {
 public:
  std::suspend_always initial_suspend() noexcept { return {}; }

  struct final_awaiter {
    static bool await_ready() noexcept { return false; }
    template <class Promise>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> finished) noexcept {
      task_promise_base& promise = finished.promise();
      if (promise.continuation_) {
        promise.chain_->innermost = promise.continuation_;
        return promise.continuation_;
      }
      return std::noop_coroutine();  // the root finished: back to the scheduler
    }
    static void await_resume() noexcept {}
  };
  final_awaiter final_suspend() noexcept { return {}; }

 protected:
  template <class>
  friend class braid::task;
  template <class>
  friend struct flat_awaiter;

  std::coroutine_handle<> continuation_{};
  task_chain* chain_ = &chain_of_root_;
  task_chain chain_of_root_{};
};

// `co_await op` for a flat coro inside a task. The coro has run to its first suspension
// already (or to its end); an unfinished one becomes the innermost frame of the chain, and
// the root's resume() continues the awaiting task once the coro has finished (the coro
// itself knows nothing of tasks: its final suspension returns to whoever resumed it).
template <class Coro>
struct flat_awaiter {
  Coro& op;

  bool await_ready() const noexcept { return op.done(); }

  template <class ParentPromise>
  void await_suspend(std::coroutine_handle<ParentPromise> parent) const noexcept {
    static_assert(std::is_base_of_v<task_promise_base, ParentPromise>,
                  "a braid::coro can be awaited only from inside a braid::task");
    task_chain& chain = *parent.promise().chain_;
    chain.innermost = op.handle();
    chain.flat_parent = parent;
  }

  auto await_resume() const { return op.take_result(); }
};

}  // namespace detail

// Found by argument-dependent lookup for `co_await some_coro(...)` in a task body.
template <class T, class FrameAllocation>
detail::flat_awaiter<basic_coro<T, FrameAllocation>> operator co_await(basic_coro<T, FrameAllocation>&& op) noexcept {
  return {op};
}

template <class T>
class [[nodiscard]] task {
 public:
  using result_type = T;
  // Lazy: a scheduler starts a root task with its first resume().
  static constexpr bool starts_eagerly = false;

  struct promise_type : detail::task_promise_base, detail::returns<promise_type, T> {
    detail::result_slot<T> result;

    task get_return_object() noexcept {
      auto handle = std::coroutine_handle<promise_type>::from_promise(*this);
      chain_of_root_.innermost = handle;
      return task{handle};
    }
    void unhandled_exception() noexcept { result.set_exception(std::current_exception()); }
  };

  task() noexcept = default;
  task(task&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  task& operator=(task&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  ~task() { reset(); }

  // ---- used on a root task, by a scheduler -----------------------------------------------
  // True once the root has returned or thrown. Precondition: !empty().
  [[nodiscard]] bool done() const noexcept { return handle_.done(); }
  [[nodiscard]] bool empty() const noexcept { return !handle_; }

  // Starts the chain, or continues its innermost suspended task (or flat coro; once that has
  // finished, the task awaiting it). Precondition: !done().
  void resume() const {
    detail::task_chain& chain = handle_.promise().chain_of_root_;
    chain.innermost.resume();
    while (chain.flat_parent && chain.innermost.done()) {
      chain.innermost = std::exchange(chain.flat_parent, {});
      chain.innermost.resume();
    }
  }

  // The root's result (moved out), or rethrows what the chain threw. Precondition: done().
  T take_result() { return handle_.promise().result.take(); }

  void reset() noexcept {
    if (handle_) std::exchange(handle_, nullptr).destroy();
  }

  // ---- used inside a parent task: `co_await child(...)` -----------------------------------
  struct awaiter {
    std::coroutine_handle<promise_type> child;

    static bool await_ready() noexcept { return false; }

    template <class ParentPromise>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<ParentPromise> parent) noexcept {
      static_assert(std::is_base_of_v<detail::task_promise_base, ParentPromise>,
                    "a braid::task can only be awaited from inside another braid::task");
      promise_type& callee = child.promise();
      callee.continuation_ = parent;
      callee.chain_ = parent.promise().chain_;
      callee.chain_->innermost = child;
      return child;
    }

    T await_resume() { return child.promise().result.take(); }
  };

  awaiter operator co_await() && noexcept { return awaiter{handle_}; }

 private:
  explicit task(std::coroutine_handle<promise_type> handle) noexcept : handle_(handle) {}

  std::coroutine_handle<promise_type> handle_{};
};

}  // namespace braid
