// transaction_scheduler: CoroBase's coroutine-to-transaction execution. A worker thread runs a
// batch of transactions, each a braid::task<status> written one transaction at a time; an
// operation about to miss the cache (tx.get<interleaved>(...) and the other operation
// coroutines of transaction.hpp) prefetches and suspends, and the worker resumes another
// transaction of its batch meanwhile.
//
//   template <braid::execution_mode M>
//   braid::task<status> move_stock(database& db, table_handle items, std::string from, std::string to) {
//     for (;;) {                                           // retried after a conflict
//       transaction tx = db.begin();
//       std::string a, b;
//       status s = co_await tx.get<M>(items, from, a);    // suspends at the likely misses
//       if (s == status::ok) s = co_await tx.get<M>(items, to, b);
//       ... co_await tx.update<M>(...) ...
//       if (s == status::ok) s = co_await commit<M>(tx);
//       if (!is_abort(s)) co_return s;
//     }
//   }
//   run_transactions({.size = 8, .policy = batch_policy::refill}, count,
//                    [&](std::size_t i) { return move_stock<braid::interleaved>(...); },
//                    [&](std::size_t i, status s) { ... });
//
// The same source with M = braid::sequential is the plain engine: no operation suspends, so a
// batch runs its transactions one after another.
//
// Two levels (CoroBase's "flattened" design): the transaction is one task frame; each
// operation is one flat coro frame with the index descent and the version-chain walk inlined;
// a suspension inside the operation returns straight to this scheduler, and resuming the
// transaction resumes the operation (task.hpp: a task awaiting a coro).
//
// Policies:
//   strict  CoroBase's Algorithm 1: the next batch starts when every transaction of the
//           current one has finished (locality, and per-batch setup in CoroBase);
//   refill  a finished slot takes the next transaction at once (more overlap, lower latency
//           under skewed transaction lengths).
// Both are safe for reclamation. CoroBase enters the epoch per batch, which is unsafe once a
// slot is refilled while others are suspended. Here each operation pins the engine's epoch
// domains in its own frame, for as long as it runs or is suspended, and the domain lets one
// thread hold many overlapping pins. A transaction suspended between operations holds no pin.
// Reclamation therefore keeps pace with a batch that never drains. What a transaction still
// needs for its snapshot is kept by the engine's version collector: it reads every open
// transaction's begin timestamp.
//
// Per-slot state: everything a transaction uses is its own (its engine slot: read and write
// sets, SSN stamps, log buffer, scratch strings), so the transactions of a batch share nothing
// but the worker's thread. A batch must fit in the engine's transaction slots together with
// every other thread's: size <= max_batch_size.
//
// commit<M>(tx): precommit (commit timestamp, certification, log record appended), then, in
// an interleaved mode, suspend until the record is durable instead of blocking the worker,
// then finish (make the writes visible). In sync log mode this turns a batch into a commit
// group: the batch's other transactions run while one fdatasync covers them all.
//
// Known limits: one operation of a transaction at a time (a multi-key read inside one
// transaction is transaction::multi_get); a transaction that never suspends (sequential
// mode, or data in the cache) runs to its end before the next one starts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "braid/core/coro.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/scheduler.hpp"
#include "braid/core/task.hpp"
#include "braid/txn/status.hpp"
#include "braid/txn/transaction.hpp"

namespace braid::txn {

enum class batch_policy : std::uint8_t { strict, refill };

inline constexpr std::size_t max_batch_size = 16;

struct batch_options {
  std::size_t size = 8;  // transactions in flight per worker, 1..max_batch_size
  batch_policy policy = batch_policy::strict;
};

// Commits `tx` (as tx.commit()), suspending while an interleaved commit waits for the log.
template <execution_mode M>
coro<status> commit(transaction& tx) {
  if (const status s = tx.precommit(); s != status::ok) co_return s;
  if constexpr (M::suspends) {
    while (!tx.is_durable()) co_await yield_point<M>();
  }
  co_return tx.finish_commit();
}

// Runs transactions 0..count-1 on the calling thread, `options.size` at a time: launch(i)
// returns transaction i as a task<status> (not started), deliver(i, status) receives its
// result in completion order. invalid_argument (nothing runs) for a batch size outside
// 1..max_batch_size or an unknown policy; otherwise ok. What a transaction throws propagates after the batch's
// other transactions have been destroyed (their transactions abort).
template <class Launch, class Deliver>
status run_transactions(const batch_options& options, std::size_t count, Launch&& launch, Deliver&& deliver) {
  if (options.size == 0 || options.size > max_batch_size) return status::invalid_argument;
  if (options.policy != batch_policy::strict && options.policy != batch_policy::refill) return status::invalid_argument;
  if (options.policy == batch_policy::strict) {
    batched_scheduler{options.size}.run(count, std::forward<Launch>(launch), std::forward<Deliver>(deliver));
  } else {
    interleaved_scheduler{options.size}.run(count, std::forward<Launch>(launch), std::forward<Deliver>(deliver));
  }
  return status::ok;
}

}  // namespace braid::txn
