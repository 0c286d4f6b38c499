// The lookup contexts of one scheduler run (braid/core/context_scheduler.hpp): one per
// operation that can be in flight, handed out and taken back through a free stack, and the
// operation wrapper that gives its context back when it is done with it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <utility>

#include "braid/core/frame_pool.hpp"
#include "braid/core/lookup_context.hpp"
#include "braid/core/operation.hpp"

namespace braid::detail {

// `count` contexts of `arena_bytes` each, in frame-pool memory: a warm thread's run makes no
// heap allocation. Contexts never move (their arena frames point to them).
class context_set {
 public:
  context_set(std::size_t count, std::size_t arena_bytes)
      : contexts_(static_cast<lookup_context*>(frame_pool::allocate(bytes_for(count)))),
        free_(reinterpret_cast<lookup_context**>(contexts_ + count)),
        count_(count) {
    static_assert(alignof(lookup_context) <= frame_pool::alignment);
    try {
      for (; free_count_ < count; ++free_count_) {
        free_[free_count_] = std::construct_at(contexts_ + free_count_, arena_bytes);
      }
    } catch (...) {
      std::destroy_n(contexts_, free_count_);
      frame_pool::deallocate(contexts_, bytes_for(count));
      throw;
    }
  }
  context_set(const context_set&) = delete;
  context_set& operator=(const context_set&) = delete;
  ~context_set() {
    std::destroy_n(contexts_, count_);
    frame_pool::deallocate(contexts_, bytes_for(count_));
  }

  // The context most recently given back (its arena still hot). Throws std::logic_error when
  // every context is in use: a scheduler launched more operations than it has slots.
  lookup_context& acquire() {
    if (free_count_ == 0) throw std::logic_error("context_set: more lookups in flight than contexts");
    return *free_[--free_count_];
  }
  // The lookup that used `context` is over: reset it for the next one.
  void release(lookup_context& context) {
    context.reset();
    free_[free_count_++] = &context;
  }

 private:
  // Never 0: the pool's smallest frame still holds its free-list link.
  static std::size_t bytes_for(std::size_t count) noexcept {
    return std::max<std::size_t>(count, 1) * (sizeof(lookup_context) + sizeof(lookup_context*));
  }

  lookup_context* contexts_;
  lookup_context** free_;
  std::size_t count_;
  std::size_t free_count_ = 0;
};

// An operation and the context its frames live in. Giving the operation up (reset, a move
// onto it, destruction) destroys its frames first, then resets the context and returns it.
template <operation Op>
class context_operation {
 public:
  using result_type = typename Op::result_type;
  static constexpr bool starts_eagerly = Op::starts_eagerly;

  context_operation(Op op, lookup_context& context, context_set& contexts) noexcept
      : op_(std::move(op)), context_(&context), contexts_(&contexts) {}
  context_operation(context_operation&& other) noexcept
      : op_(std::move(other.op_)), context_(std::exchange(other.context_, nullptr)), contexts_(other.contexts_) {}
  context_operation& operator=(context_operation&& other) noexcept {
    if (this != &other) {
      reset();
      op_ = std::move(other.op_);
      context_ = std::exchange(other.context_, nullptr);
      contexts_ = other.contexts_;
    }
    return *this;
  }
  ~context_operation() { reset(); }

  [[nodiscard]] bool done() const noexcept { return op_.done(); }
  void resume() { op_.resume(); }
  result_type take_result() { return op_.take_result(); }

  // noexcept: a context whose frames outlive their operation breaks the lookup_context
  // invariant, and terminating is the only safe answer.
  void reset() noexcept {
    op_.reset();
    if (context_ != nullptr) contexts_->release(*std::exchange(context_, nullptr));
  }

 private:
  Op op_;
  lookup_context* context_;
  context_set* contexts_;
};

}  // namespace braid::detail
