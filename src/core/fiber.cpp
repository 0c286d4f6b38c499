#include "braid/core/fiber.hpp"

#include <new>
#include <stdexcept>

namespace braid::detail {

namespace {

constexpr std::align_val_t stack_alignment{64};

// Boost.Context stack allocator: a worker's stack, from the global heap (workers are long-lived).
struct worker_stack {
  std::size_t bytes;
  fiber_switch_annotations* annotations;

  boost::context::stack_context allocate() {
    void* bottom = ::operator new(bytes, stack_alignment);
    annotations->set_fiber_stack(bottom, bytes);
    boost::context::stack_context stack;
    stack.size = bytes;
    stack.sp = static_cast<std::byte*>(bottom) + bytes;
    return stack;
  }
  void deallocate(boost::context::stack_context& stack) noexcept {
    ::operator delete(static_cast<std::byte*>(stack.sp) - stack.size, stack_alignment);
  }
};

// This thread's parked workers, most recently parked first. Constant-initialized, so that
// the fast path is a %fs-relative access; the exit hook destroys what is left.
struct idle_list {
  fiber_worker* head = nullptr;
  std::size_t count = 0;
  std::uint64_t made = 0;
};
constinit thread_local idle_list idle{};

struct thread_exit_hook {
  ~thread_exit_hook();
};

}  // namespace

fiber_worker::fiber_worker(std::size_t stack_bytes) : stack_bytes_(stack_bytes) {
  side_ = boost::context::fiber(std::allocator_arg, worker_stack{stack_bytes, &context_.annotations_},
                                [this](boost::context::fiber&& resumer) { return main(std::move(resumer)); });
}

fiber_worker::~fiber_worker() = default;

// Runs the jobs it is given; leaves only when destroyed, by the forced unwind that
// destroying side_ raises at its suspension point.
boost::context::fiber fiber_worker::main(boost::context::fiber&& resumer) {
  context_.annotations_.on_start();
  context_.to_resumer_ = std::move(resumer);
  try {
    for (;;) {
      job_->run(*job_, context_);
      job_ = nullptr;
      context_.suspend();  // parked: the next resume brings a job
    }
  } catch (const boost::context::detail::forced_unwind&) {
    context_.annotations_.before_exit();
    throw;
  }
}

fiber_worker* fiber_worker::acquire(std::size_t stack_bytes) {
  if (stack_bytes == 0) throw std::invalid_argument("fiber: the stack needs at least one byte");
  idle_list& list = idle;
  for (fiber_worker** link = &list.head; *link != nullptr; link = &(*link)->next_idle_) {
    if ((*link)->stack_bytes_ == stack_bytes) {
      fiber_worker* worker = *link;
      *link = worker->next_idle_;
      --list.count;
      return worker;
    }
  }
  thread_local thread_exit_hook exit_hook;
  (void)exit_hook;
  auto* worker = new fiber_worker(stack_bytes);
  ++list.made;
  return worker;
}

void fiber_worker::release(fiber_worker* worker) noexcept {
  idle_list& list = idle;
  if (list.count == max_idle) {
    destroy(worker);
    return;
  }
  worker->next_idle_ = list.head;
  list.head = worker;
  ++list.count;
}

void fiber_worker::destroy(fiber_worker* worker) noexcept {
  void* fake_stack = nullptr;
  worker->context_.annotations_.before_enter(&fake_stack);
  worker->side_ = boost::context::fiber{};  // jumps in, unwinds, jumps back
  worker->context_.annotations_.after_return(fake_stack);
  delete worker;
}

std::uint64_t fiber_worker::made_on_this_thread() noexcept { return idle.made; }

void fiber_worker::destroy_idle() noexcept {
  while (fiber_worker* worker = idle.head) {
    idle.head = worker->next_idle_;
    --idle.count;
    destroy(worker);
  }
}

thread_exit_hook::~thread_exit_hook() { fiber_worker::destroy_idle(); }

}  // namespace braid::detail
