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
// A fiber starts eagerly, like coro<T>. Its stack and state come from the frame pool (no
// global heap in steady state). What the function throws is rethrown by take_result();
// destroying an unfinished fiber unwinds its stack (destructors on it run) before freeing it.
#pragma once

#include <boost/context/detail/exception.hpp>
#include <boost/context/fiber.hpp>
#include <boost/context/stack_context.hpp>

#include <cstddef>
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

// The operation's handle on its own suspension.
class fiber_context {
 public:
  // Returns control to whoever resumed the fiber (its scheduler).
  void suspend() {
    void* fake_stack = nullptr;
    annotations_.before_leave(&fake_stack);
    try {
      to_resumer_ = std::move(to_resumer_).resume();
    } catch (...) {  // forced unwinding of a destroyed fiber starts here
      annotations_.after_reenter(fake_stack);
      throw;
    }
    annotations_.after_reenter(fake_stack);
  }

 private:
  template <class>
  friend class fiber;
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

// Boost.Context stack allocator over the frame pool.
struct pooled_fiber_stack {
  std::size_t bytes;
  fiber_switch_annotations* annotations;

  boost::context::stack_context allocate() {
    boost::context::stack_context stack;
    stack.size = bytes;
    void* bottom = frame_pool::allocate(bytes);
    annotations->set_fiber_stack(bottom, bytes);
    stack.sp = static_cast<std::byte*>(bottom) + bytes;
    return stack;
  }
  void deallocate(boost::context::stack_context& stack) noexcept {
    frame_pool::deallocate(static_cast<std::byte*>(stack.sp) - stack.size, stack.size);
  }
};

}  // namespace detail

template <class T>
class [[nodiscard]] fiber {
 public:
  using result_type = T;
  static constexpr bool starts_eagerly = true;

  fiber() noexcept = default;

  // Creates the fiber and runs `function(context)` up to its first suspension.
  template <class Function>
    requires std::is_invocable_r_v<T, Function&, fiber_context&>
  explicit fiber(Function function, std::size_t stack_bytes = default_fiber_stack_bytes)
      : state_(new (frame_pool::allocate(sizeof(state))) state) {
    try {
      side_ = boost::context::fiber(
          std::allocator_arg, detail::pooled_fiber_stack{stack_bytes, &state_->context.annotations_},
          [state = state_, function = std::move(function)](boost::context::fiber&& resumer) mutable {
            state->context.annotations_.on_start();
            state->context.to_resumer_ = std::move(resumer);
            try {
              if constexpr (std::is_void_v<T>) {
                function(state->context);
              } else {
                state->result.set_value(function(state->context));
              }
            } catch (const boost::context::detail::forced_unwind&) {
              state->context.annotations_.before_exit();
              throw;  // the fiber is being destroyed: let Boost.Context unwind its stack
            } catch (...) {
              state->result.set_exception(std::current_exception());
            }
            state->context.annotations_.before_exit();
            return std::move(state->context.to_resumer_);
          });
      resume();
    } catch (...) {
      release_state();
      throw;
    }
  }

  fiber(fiber&& other) noexcept
      : state_(std::exchange(other.state_, nullptr)), side_(std::move(other.side_)) {}
  fiber& operator=(fiber&& other) noexcept {
    if (this != &other) {
      reset();
      state_ = std::exchange(other.state_, nullptr);
      side_ = std::move(other.side_);
    }
    return *this;
  }
  ~fiber() { reset(); }

  // The fiber's function has returned (or thrown) once its suspended side is gone.
  [[nodiscard]] bool done() const noexcept { return !side_; }
  [[nodiscard]] bool empty() const noexcept { return state_ == nullptr; }

  void resume() {
    void* fake_stack = nullptr;
    state_->context.annotations_.before_enter(&fake_stack);
    side_ = std::move(side_).resume();
    state_->context.annotations_.after_return(fake_stack);
  }

  T take_result() { return state_->result.take(); }

  // Unwinds an unfinished fiber's stack, then frees stack and state.
  void reset() noexcept {
    if (side_) {
      void* fake_stack = nullptr;
      state_->context.annotations_.before_enter(&fake_stack);
      side_ = boost::context::fiber{};  // jumps in, unwinds, jumps back
      state_->context.annotations_.after_return(fake_stack);
    }
    release_state();
  }

 private:
  struct state {
    detail::result_slot<T> result;
    fiber_context context;
  };

  void release_state() noexcept {
    if (state_ == nullptr) return;
    std::destroy_at(state_);
    frame_pool::deallocate(std::exchange(state_, nullptr), sizeof(state));
  }

  state* state_ = nullptr;
  boost::context::fiber side_;  // the operation's suspended side; empty once it returned
};

}  // namespace braid
