// fiber<T>: the stackful comparator — the "library coroutines" of the interleaving thesis.
//
// The same kind of operation as a coro<T>, written as a plain function that receives a
// fiber_context and yields on a small private stack (Boost.Context), run by the very same
// schedulers. It exists to measure what stackless coroutines save: a fiber switch saves and
// restores every callee-saved register and the stack pointer, a coroutine switch only the
// live state the compiler chose to keep in its frame.
//
//   std::optional<int> find_on_fiber(braid::fiber_context& context, const table& t, int key) {
//     for (const node* n = t.bucket(key); n != nullptr;) {
//       const node& current = braid::fiber_fetch(context, n);   // prefetch, yield, load
//       ...
//   }
//   braid::run(braid::interleaved_scheduler{16}, keys, [&](int key) {
//     return braid::fiber<std::optional<int>>(
//         [&t, key](braid::fiber_context& context) { return find_on_fiber(context, t, key); });
//   });
//
// A fiber starts eagerly, like coro<T>. What the function throws is rethrown by take_result();
// destroying an unfinished fiber unwinds its stack (destructors on it run) before freeing it.
//
// Workers: the function runs on a worker, a Boost.Context fiber with its own stack that runs
// one function after another. A finished fiber hands its worker back to the thread's idle list
// at once, so the next fiber launched takes it, stack still in cache: a run of any length
// creates min(group, count) workers once per thread, not one context per operation (and, under
// AddressSanitizer, not one fake stack per operation). A worker whose function was abandoned
// unfinished is destroyed with it. The function and its result live in a record from the
// frame pool; a worker's stack comes from the global heap when the worker is made.
//
// Invariants: a worker runs at most one function at a time; an idle worker is parked between
// functions, its stack holding no operation's state; the idle list is per thread and bounded
// (detail::fiber_worker::max_idle), its workers destroyed when the thread exits.
#pragma once

#include <boost/context/detail/exception.hpp>
#include <boost/context/fiber.hpp>
#include <boost/context/stack_context.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

#include "braid/core/detail/fiber_switch_annotations.hpp"
#include "braid/core/detail/result_slot.hpp"
#include "braid/core/frame_pool.hpp"
#include "braid/core/prefetch.hpp"

namespace braid {

// Stack size of a fiber unless its creator asks for another. Sanitizers need bigger frames.
#if defined(BRAID_SANITIZED)
inline constexpr std::size_t default_fiber_stack_bytes = 256 * 1024;
#else
inline constexpr std::size_t default_fiber_stack_bytes = 16 * 1024;
#endif

namespace detail {
class fiber_worker;
}

// The operation's handle on its own suspension.
class fiber_context {
 public:
  // Returns control to whoever resumed the fiber (its scheduler).
  void suspend() {
    void* fake_stack = nullptr;
    annotations_.before_leave(&fake_stack);
    try {
      to_resumer_ = std::move(to_resumer_).resume();
    } catch (...) {  // forced unwinding of a destroyed worker starts here
      annotations_.after_reenter(fake_stack);
      throw;
    }
    annotations_.after_reenter(fake_stack);
  }

 private:
  friend class detail::fiber_worker;
  boost::context::fiber to_resumer_;
  detail::fiber_switch_annotations annotations_;
};

// Prefetch, yield, load: the fiber spelling of `co_await fetch<interleaved>(address)`.
template <prefetch_hint Hint = prefetch_hint::t0, class T>
inline T& fiber_fetch(fiber_context& context, T* address) {
  prefetch<Hint>(address);
  context.suspend();
  return *address;
}

template <prefetch_hint Hint = prefetch_hint::t0, class T>
inline T& fiber_fetch_lines(fiber_context& context, T* address) {
  prefetch_lines<sizeof(T), Hint>(address);
  context.suspend();
  return *address;
}

namespace detail {

// One function for a worker to run, type-erased: `run` calls it, records its result or what
// it threw, and sets `finished`; only a forced unwind (the worker being destroyed) escapes.
struct fiber_job {
  void (*run)(fiber_job& job, fiber_context& context);
  bool finished = false;
};

// A Boost.Context fiber that runs jobs one after another on its own stack, parking between
// them. Made by acquire(), which reuses a parked worker of the same stack size from this
// thread's idle list; given back by release() (parked, between jobs) or destroy() (any time:
// unwinds the stack of the job it is in).
class fiber_worker {
 public:
  static constexpr std::size_t max_idle = 256;  // parked workers kept per thread

  static fiber_worker* acquire(std::size_t stack_bytes);
  static void release(fiber_worker* worker) noexcept;
  static void destroy(fiber_worker* worker) noexcept;
  // Destroys this thread's parked workers (at thread exit; tests).
  static void destroy_idle() noexcept;
  // Workers this thread has made (for tests: reuse keeps it at the largest group in flight).
  static std::uint64_t made_on_this_thread() noexcept;

  fiber_worker(const fiber_worker&) = delete;
  fiber_worker& operator=(const fiber_worker&) = delete;

  // Runs `job` up to its first suspension (or its end).
  void start(fiber_job& job) {
    job_ = &job;
    resume();
  }
  void resume() {
    void* fake_stack = nullptr;
    context_.annotations_.before_enter(&fake_stack);
    side_ = std::move(side_).resume();
    context_.annotations_.after_return(fake_stack);
  }

 private:
  explicit fiber_worker(std::size_t stack_bytes);
  ~fiber_worker();
  boost::context::fiber main(boost::context::fiber&& resumer);

  fiber_context context_;
  boost::context::fiber side_;  // the worker's suspended side
  fiber_job* job_ = nullptr;    // the job it runs; null while parked
  std::size_t stack_bytes_;
  fiber_worker* next_idle_ = nullptr;
};

// A job with the function's result (or exception).
template <class T>
struct fiber_outcome : fiber_job {
  result_slot<T> result;
  void (*destroy)(fiber_outcome* self) noexcept = nullptr;
};

template <class T, class Function>
struct fiber_job_for final : fiber_outcome<T> {
  Function function;

  explicit fiber_job_for(Function&& f) : function(std::move(f)) {
    this->run = &run_function;
    this->destroy = &destroy_self;
  }

  static void run_function(fiber_job& job, fiber_context& context) {
    auto& self = static_cast<fiber_job_for&>(job);
    try {
      if constexpr (std::is_void_v<T>) {
        self.function(context);
      } else {
        self.result.set_value(self.function(context));
      }
    } catch (const boost::context::detail::forced_unwind&) {
      throw;  // the worker is being destroyed: let Boost.Context unwind its stack
    } catch (...) {
      self.result.set_exception(std::current_exception());
    }
    self.finished = true;
  }

  static void destroy_self(fiber_outcome<T>* outcome) noexcept {
    auto* self = static_cast<fiber_job_for*>(outcome);
    std::destroy_at(self);
    frame_pool::deallocate(self, sizeof(fiber_job_for));
  }
};

}  // namespace detail

template <class T>
class [[nodiscard]] fiber {
 public:
  using result_type = T;
  static constexpr bool starts_eagerly = true;

  fiber() noexcept = default;

  // Runs `function(context)` on a worker up to its first suspension.
  template <class Function>
    requires std::is_invocable_r_v<T, Function&, fiber_context&>
  explicit fiber(Function function, std::size_t stack_bytes = default_fiber_stack_bytes) {
    using job_type = detail::fiber_job_for<T, Function>;
    void* memory = frame_pool::allocate(sizeof(job_type));
    try {
      job_ = new (memory) job_type(std::move(function));
    } catch (...) {
      frame_pool::deallocate(memory, sizeof(job_type));
      throw;
    }
    try {
      worker_ = detail::fiber_worker::acquire(stack_bytes);
    } catch (...) {
      release_job();
      throw;
    }
    worker_->start(*job_);
    release_worker_if_finished();
  }

  fiber(fiber&& other) noexcept
      : job_(std::exchange(other.job_, nullptr)), worker_(std::exchange(other.worker_, nullptr)) {}
  fiber& operator=(fiber&& other) noexcept {
    if (this != &other) {
      reset();
      job_ = std::exchange(other.job_, nullptr);
      worker_ = std::exchange(other.worker_, nullptr);
    }
    return *this;
  }
  ~fiber() { reset(); }

  [[nodiscard]] bool done() const noexcept { return worker_ == nullptr; }
  [[nodiscard]] bool empty() const noexcept { return job_ == nullptr; }

  void resume() {
    worker_->resume();
    release_worker_if_finished();
  }

  T take_result() { return job_->result.take(); }

  // Unwinds an unfinished fiber's stack (destroying its worker), then frees its record.
  void reset() noexcept {
    if (worker_ != nullptr) detail::fiber_worker::destroy(std::exchange(worker_, nullptr));
    release_job();
  }

 private:
  void release_worker_if_finished() noexcept {
    if (job_->finished) detail::fiber_worker::release(std::exchange(worker_, nullptr));
  }
  void release_job() noexcept {
    if (job_ == nullptr) return;
    detail::fiber_outcome<T>* job = std::exchange(job_, nullptr);
    job->destroy(job);
  }

  detail::fiber_outcome<T>* job_ = nullptr;  // the function and its result
  detail::fiber_worker* worker_ = nullptr;   // running the function; null once it finished
};

}  // namespace braid
