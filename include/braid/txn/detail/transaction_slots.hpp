// transaction_slots: the fixed table of transaction states. A transaction takes a slot at
// begin and gives it back at its end; everything other transactions must learn about it (is
// it still running, its commit timestamp, its SSN stamps, its snapshot for the garbage
// collector) is in its slot, found from a version's stamp by the slot index in the id.
//
// Transaction id: (sequence << slot_bits) | slot index, with a sequence that never repeats,
// so an id names one transaction for ever; a slot whose `id` differs from the id in a stamp
// has been given back, and the stamp has been replaced (commit) or the version unlinked
// (abort) before that happened.
//
// State machine: active -> committing (commit timestamp taken and published) -> committed or
// aborted; active -> aborted. A committing transaction never suspends before its log record is
// appended, so a waiter on it (readers whose snapshot includes its commit timestamp, SSN
// certifiers) spins briefly; after that (log_ticket set) the waiter waits for the log to make
// the record durable (committed) or to fail (aborted), not for the owner's thread, which may
// be running other transactions meanwhile (pipelined commit).
//
// Complexity: claim is O(1) expected, O(max_transactions) worst case; oldest_snapshot reads
// every slot (the garbage collector calls it every few dozen commits).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>

#include "braid/txn/options.hpp"

namespace braid::txn::detail {

enum class transaction_state : std::uint8_t { idle, active, committing, committed, aborted };

struct alignas(64) transaction_slot {
  std::atomic<std::uint64_t> id{0};
  std::atomic<transaction_state> state{transaction_state::idle};
  std::atomic<bool> taken{false};
  std::atomic<std::uint64_t> begin_ts{~std::uint64_t{0}};  // ~0 while idle
  std::atomic<std::uint64_t> commit_ts{0};
  std::atomic<std::uint64_t> sstamp{0};  // SSN: final successor low watermark, set before committed
  // Pipelined commit: nonzero once the committing transaction's record is in the log (its
  // place there); from then on its outcome waits only for the disk, not for its thread.
  std::atomic<std::uint64_t> log_ticket{0};
};

class transaction_slots {
 public:
  static constexpr unsigned slot_bits = 8;
  static_assert((std::size_t{1} << slot_bits) == max_transactions);
  static constexpr std::uint64_t slot_mask = max_transactions - 1;

  transaction_slots() : slots_(new transaction_slot[max_transactions]) {}

  [[nodiscard]] transaction_slot& operator[](std::size_t index) noexcept { return slots_[index]; }
  [[nodiscard]] transaction_slot& of(std::uint64_t id) noexcept { return slots_[id & slot_mask]; }

  // Takes a free slot and gives it a new id; waits while all are taken.
  std::size_t claim() {
    thread_local std::size_t hint = 0;
    for (std::size_t attempt = 0;; ++attempt) {
      const std::size_t index = (hint + attempt) & slot_mask;
      transaction_slot& slot = slots_[index];
      bool expected = false;
      if (!slot.taken.load(std::memory_order_relaxed) &&
          slot.taken.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
        hint = index + 1;
        const std::uint64_t sequence = next_sequence_.fetch_add(1, std::memory_order_relaxed);
        slot.commit_ts.store(0, std::memory_order_relaxed);
        slot.log_ticket.store(0, std::memory_order_relaxed);
        slot.state.store(transaction_state::active, std::memory_order_seq_cst);
        slot.id.store(sequence << slot_bits | index, std::memory_order_seq_cst);
        return index;
      }
      if (attempt % max_transactions == max_transactions - 1) std::this_thread::yield();
    }
  }

  void release(std::size_t index) noexcept {
    transaction_slot& slot = slots_[index];
    slot.id.store(0, std::memory_order_seq_cst);
    slot.begin_ts.store(~std::uint64_t{0}, std::memory_order_seq_cst);
    slot.state.store(transaction_state::idle, std::memory_order_release);
    slot.taken.store(false, std::memory_order_release);
  }

  // The smallest begin timestamp of any open transaction, or `now` if it is smaller.
  [[nodiscard]] std::uint64_t oldest_snapshot(std::uint64_t now) const noexcept {
    std::uint64_t oldest = now;
    for (std::size_t index = 0; index < max_transactions; ++index) {
      oldest = std::min(oldest, slots_[index].begin_ts.load(std::memory_order_seq_cst));
    }
    return oldest;
  }

 private:
  std::unique_ptr<transaction_slot[]> slots_;
  std::atomic<std::uint64_t> next_sequence_{1};
};

}  // namespace braid::txn::detail
