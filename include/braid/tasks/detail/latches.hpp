// The latches a worker wraps around a task, by primitive (see resource.hpp): scoped guards
// over a resource's latch word (32 bits) or optimistic version word (64 bits). Internal to
// the runtime; no guard can be copied, each releases exactly what it took.
//
//   spin_guard              exclusive_latch: test and test-and-set on the latch word.
//                           Invariant: the word is 1 while held, 0 when free.
//   shared_guard            reader/writer latch, reader side: counts itself in the low bits.
//   exclusive_guard         reader/writer latch, writer side: sets writer_bit first (new
//                           readers then wait, so writers are not starved), then waits for the
//                           readers inside to drain. Invariant: bit 31 is set while a writer
//                           holds or waits for the latch; the low 31 bits count readers inside.
//   serialized_write_guard  schedule_writer: writers are already serialized by being run on
//                           the owner worker, so the version is bumped without a CAS.
//   latched_write_guard     OLFIT: the version word is the writers' latch (lock_version).
//
// Versions (a seqlock): even while no writer is inside, odd while one is; every write adds 2.
// The release fence after making the version odd orders it before the writer's data stores,
// for readers that validate with an acquire fence (Boehm, "Can seqlocks get along with
// programming language memory models?", 2012).
//
// Cost: uncontended, one atomic read-modify-write to enter and one store (or RMW) to leave;
// contended, the spinning loads stay in the waiter's cache until the holder writes the line.
#pragma once

#include <atomic>
#include <cstdint>

#include "braid/tasks/resource.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace braid::tasks::detail {

// A spin-wait hint to the CPU (PAUSE on x86): the waiter yields pipeline resources to its
// sibling hyperthread and leaves the spin loop without a memory-order mis-speculation.
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

// Spinlock on the latch word (test and test-and-set).
class spin_guard {
 public:
  explicit spin_guard(std::atomic<std::uint32_t>& latch) noexcept : latch_(latch) {
    while (latch_.exchange(1, std::memory_order_acquire) != 0) {
      while (latch_.load(std::memory_order_relaxed) != 0) cpu_relax();
    }
  }
  ~spin_guard() { latch_.store(0, std::memory_order_release); }
  spin_guard(const spin_guard&) = delete;
  spin_guard& operator=(const spin_guard&) = delete;

 private:
  std::atomic<std::uint32_t>& latch_;
};

// Reader/writer latch: bit 31 marks a writer (set first, so new readers wait: writers are
// not starved), the low bits count readers.
inline constexpr std::uint32_t writer_bit = 1u << 31;

// Waits until no writer holds or waits for the latch, then replaces its state with
// entered(state), with acquire ordering.
template <class Entered>
void enter_without_writer(std::atomic<std::uint32_t>& latch, Entered entered) noexcept {
  for (;;) {
    std::uint32_t state = latch.load(std::memory_order_relaxed);
    if ((state & writer_bit) == 0 &&
        latch.compare_exchange_weak(state, entered(state), std::memory_order_acquire, std::memory_order_relaxed)) {
      return;
    }
    cpu_relax();
  }
}

class shared_guard {
 public:
  explicit shared_guard(std::atomic<std::uint32_t>& latch) noexcept : latch_(latch) {
    enter_without_writer(latch_, [](std::uint32_t state) { return state + 1; });
  }
  ~shared_guard() { latch_.fetch_sub(1, std::memory_order_release); }
  shared_guard(const shared_guard&) = delete;
  shared_guard& operator=(const shared_guard&) = delete;

 private:
  std::atomic<std::uint32_t>& latch_;
};

class exclusive_guard {
 public:
  explicit exclusive_guard(std::atomic<std::uint32_t>& latch) noexcept : latch_(latch) {
    enter_without_writer(latch_, [](std::uint32_t state) { return state | writer_bit; });
    while ((latch_.load(std::memory_order_acquire) & ~writer_bit) != 0) cpu_relax();  // readers drain
  }
  ~exclusive_guard() { latch_.store(0, std::memory_order_release); }
  exclusive_guard(const exclusive_guard&) = delete;
  exclusive_guard& operator=(const exclusive_guard&) = delete;

 private:
  std::atomic<std::uint32_t>& latch_;
};

class serialized_write_guard {  // writers already serialized by scheduling: no CAS needed
 public:
  explicit serialized_write_guard(std::atomic<std::uint64_t>& version) noexcept
      : version_(version), before_(version.load(std::memory_order_relaxed)) {
    version_.store(before_ + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
  }
  ~serialized_write_guard() { version_.store(before_ + 2, std::memory_order_release); }
  serialized_write_guard(const serialized_write_guard&) = delete;
  serialized_write_guard& operator=(const serialized_write_guard&) = delete;

 private:
  std::atomic<std::uint64_t>& version_;
  std::uint64_t before_;
};

class latched_write_guard {  // OLFIT: the version word is the writers' latch
 public:
  explicit latched_write_guard(resource& object) noexcept : object_(object) { object_.lock_version(); }
  ~latched_write_guard() { object_.unlock_version(); }
  latched_write_guard(const latched_write_guard&) = delete;
  latched_write_guard& operator=(const latched_write_guard&) = delete;

 private:
  resource& object_;
};

}  // namespace braid::tasks::detail
