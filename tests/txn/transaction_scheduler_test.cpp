// The coroutine-to-transaction scheduler: transactions written once as tasks give the same
// committed state run plainly (sequential, one at a time) and interleaved (batches of 1..16,
// strict and refill, snapshot and serializable), conflicts among the transactions of a batch
// abort and retry as they would across threads, a commit waits for the log without blocking
// its batch, and a reader suspended inside an operation for thousands of other transactions
// reads its snapshot while they update and the collector reclaims afterwards.
// braid-test: concurrent
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "braid/core/fetch.hpp"
#include "braid/txn/database.hpp"
#include "braid/txn/transaction_scheduler.hpp"
#include "txn/txn_test_support.hpp"

namespace braid::txn::testing {
namespace {

constexpr std::size_t accounts = 12;
constexpr std::int64_t opening_balance = 1000;

std::string account(std::size_t i) { return "account-" + std::to_string(100 + i); }

// What transaction i does, drawn from the seed: move `amount` between two accounts, insert a
// fresh record, delete a record loaded for it, or audit every account. Every outcome commutes
// with every other, so any serializable order ends in the same state.
struct program {
  enum class kind : std::uint8_t { transfer, insert, remove, audit } what;
  std::size_t from = 0, to = 0;
  std::int64_t amount = 0;
};

std::vector<program> programs(std::uint64_t seed, std::size_t count) {
  std::mt19937_64 random(seed);
  std::vector<program> out;
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t pick = random() % 10;
    program p{.what = pick < 6 ? program::kind::transfer
                      : pick < 8 ? program::kind::insert
                      : pick < 9 ? program::kind::remove
                                 : program::kind::audit};
    p.from = random() % accounts;
    p.to = (p.from + 1 + random() % (accounts - 1)) % accounts;
    p.amount = static_cast<std::int64_t>(random() % 50);
    out.push_back(p);
  }
  return out;
}

struct outcome {
  std::size_t attempts = 0;
  std::size_t audits_wrong = 0;
};

// One attempt of program p as transaction i. A status that is no abort ends it.
template <execution_mode M>
task<status> attempt(database& db, table_handle t, const program& p, std::size_t i, isolation level,
                     outcome& out) {
  transaction tx = db.begin(level);
  ++out.attempts;
  std::string value;
  status s = status::ok;
  switch (p.what) {
    case program::kind::transfer: {
      std::int64_t balances[2] = {0, 0};
      const std::size_t sides[2] = {p.from, p.to};
      for (int side = 0; side < 2 && s == status::ok; ++side) {
        s = co_await tx.get<M>(t, account(sides[side]), value);
        if (s == status::ok) balances[side] = std::stoll(value);
      }
      if (s == status::ok) s = co_await tx.update<M>(t, account(p.from), std::to_string(balances[0] - p.amount));
      if (s == status::ok) s = co_await tx.update<M>(t, account(p.to), std::to_string(balances[1] + p.amount));
      break;
    }
    case program::kind::insert:
      s = co_await tx.insert<M>(t, "fresh-" + std::to_string(100000 + i), std::to_string(i));
      break;
    case program::kind::remove:
      s = co_await tx.remove<M>(t, "loaded-" + std::to_string(100000 + i));
      break;
    case program::kind::audit: {
      std::int64_t sum = 0;
      for (std::size_t a = 0; a < accounts && s == status::ok; ++a) {
        s = co_await tx.get<M>(t, account(a), value);
        if (s == status::ok) sum += std::stoll(value);
      }
      if (s == status::ok && sum != opening_balance * static_cast<std::int64_t>(accounts)) ++out.audits_wrong;
      break;
    }
  }
  if (s == status::ok) s = co_await commit<M>(tx);
  co_return s;
}

// Program p until it commits.
template <execution_mode M>
task<status> until_committed(database& db, table_handle t, const program& p, std::size_t i, isolation level,
                             outcome& out) {
  for (;;) {
    const status s = co_await attempt<M>(db, t, p, i, level, out);
    if (!is_abort(s)) co_return s;
  }
}

// The accounts, and a record for every remove program of `work` to delete.
std::unique_ptr<database> opened_accounts(table_handle& t, const std::vector<program>& work = {}) {
  std::unique_ptr<database> db = in_memory_database("accounts", t);
  transaction tx = db->begin();
  for (std::size_t a = 0; a < accounts; ++a) EXPECT_EQ(tx.insert(t, account(a), std::to_string(opening_balance)), status::ok);
  for (std::size_t i = 0; i < work.size(); ++i) {
    if (work[i].what == program::kind::remove) {
      EXPECT_EQ(tx.insert(t, "loaded-" + std::to_string(100000 + i), "x"), status::ok);
    }
  }
  EXPECT_EQ(tx.commit(), status::ok);
  return db;
}

std::map<std::string, std::string> contents(database& db, table_handle t) {
  std::map<std::string, std::string> out;
  transaction tx = db.begin();
  EXPECT_EQ(tx.scan(t, "", SIZE_MAX, [&](std::string_view key, std::string_view value) {
    out.emplace(std::string(key), std::string(value));
  }), status::ok);
  EXPECT_EQ(tx.commit(), status::ok);
  return out;
}

struct run_result {
  std::map<std::string, std::string> state;
  outcome counts;
  std::size_t committed = 0;
};

template <execution_mode M>
run_result run_programs(const std::vector<program>& work, batch_options options, isolation level) {
  table_handle t;
  std::unique_ptr<database> db = opened_accounts(t, work);
  run_result result;
  const status s = run_transactions(
      options, work.size(),
      [&](std::size_t i) { return until_committed<M>(*db, t, work[i], i, level, result.counts); },
      [&](std::size_t, status done) {
        EXPECT_EQ(done, status::ok);
        ++result.committed;
      });
  EXPECT_EQ(s, status::ok);
  result.state = contents(*db, t);
  return result;
}

TEST(TransactionScheduler, InterleavedBatchesCommitWhatThePlainEngineCommits) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const std::vector<program> work = programs(seed, 300);
    const run_result plain = run_programs<sequential>(work, {.size = 1}, isolation::snapshot);
    ASSERT_EQ(plain.committed, work.size());
    ASSERT_EQ(plain.counts.attempts, work.size()) << "one at a time nothing conflicts";
    std::size_t retried_somewhere = 0;
    for (std::size_t size : {1, 2, 3, 8, 16}) {
      for (batch_policy policy : {batch_policy::strict, batch_policy::refill}) {
        for (isolation level : {isolation::snapshot, isolation::serializable}) {
          const run_result mixed = run_programs<interleaved>(work, {.size = size, .policy = policy}, level);
          const std::string where = "seed " + std::to_string(seed) + ", batch " + std::to_string(size) +
                                    (policy == batch_policy::strict ? " strict" : " refill") +
                                    (level == isolation::snapshot ? ", snapshot" : ", serializable");
          EXPECT_EQ(mixed.committed, work.size()) << where;
          EXPECT_EQ(mixed.state, plain.state) << where;
          EXPECT_EQ(mixed.counts.audits_wrong, 0u) << where << ": an audit saw money appear or vanish";
          if (size == 1) {
            EXPECT_EQ(mixed.counts.attempts, work.size()) << where;
          }
          retried_somewhere += mixed.counts.attempts - work.size();
        }
      }
    }
    EXPECT_GT(retried_somewhere, 0u) << "the batches never overlapped two writers of one account";
  }
}

TEST(TransactionScheduler, SequentialTasksNeverSuspend) {
  table_handle t;
  std::unique_ptr<database> db = opened_accounts(t);
  outcome counts;
  const program p{.what = program::kind::transfer, .from = 1, .to = 2, .amount = 7};
  task<status> one = until_committed<sequential>(*db, t, p, 0, isolation::snapshot, counts);
  one.resume();
  ASSERT_TRUE(one.done());
  EXPECT_EQ(one.take_result(), status::ok);
  const std::map<std::string, std::string> state = contents(*db, t);
  EXPECT_EQ(state.at(account(1)), "993");
  EXPECT_EQ(state.at(account(2)), "1007");
}

TEST(TransactionScheduler, RejectsBatchesItCannotRun) {
  bool launched = false;
  auto launch = [&](std::size_t) -> task<status> {
    launched = true;
    co_return status::ok;
  };
  auto deliver = [](std::size_t, status) {};
  EXPECT_EQ(run_transactions({.size = 0}, 3, launch, deliver), status::invalid_argument);
  EXPECT_EQ(run_transactions({.size = max_batch_size + 1}, 3, launch, deliver), status::invalid_argument);
  EXPECT_EQ(run_transactions({.size = 4, .policy = static_cast<batch_policy>(9)}, 3, launch, deliver),
            status::invalid_argument);
  EXPECT_FALSE(launched);
  EXPECT_EQ(run_transactions({.size = max_batch_size}, 0, launch, deliver), status::ok);
  EXPECT_FALSE(launched) << "no transactions, nothing launched";
}

// A reader suspended inside a get (its epoch pins held) while the batch's other slots commit
// thousands of updates of the same record: it reads its snapshot, and once it is gone the
// collector reclaims the chain the updates built.
TEST(TransactionScheduler, ARefilledBatchReclaimsAroundALongSuspendedReader) {
  table_handle t;
  std::unique_ptr<database> db = in_memory_database("t", t);
  {
    transaction tx = db->begin();
    ASSERT_EQ(tx.insert(t, "hot", "before"), status::ok);
    ASSERT_EQ(tx.commit(), status::ok);
  }
  constexpr std::size_t updates = 6000;
  std::size_t updates_done = 0;
  std::string first, held_value;
  status held_status = status::invalid_argument;
  auto reader = [&]() -> task<status> {
    transaction tx = db->begin(isolation::snapshot, access::read_only);
    if (const status s = co_await tx.get<interleaved>(t, "hot", first); s != status::ok) co_return s;
    coro<status> held = tx.get<interleaved>(t, "hot", held_value);  // suspended at its first fetch
    EXPECT_FALSE(held.done());
    while (updates_done < updates / 2) co_await yield_point<interleaved>();
    held_status = co_await std::move(held);
    co_return co_await commit<interleaved>(tx);
  };
  auto writer = [&](std::size_t i) -> task<status> {
    for (;;) {
      transaction tx = db->begin();
      status s = co_await tx.update<interleaved>(t, "hot", "update " + std::to_string(i));
      if (s == status::ok) s = co_await commit<interleaved>(tx);
      if (!is_abort(s)) {
        ++updates_done;
        co_return s;
      }
    }
  };
  std::vector<status> results(updates + 1, status::invalid_argument);
  ASSERT_EQ(run_transactions(
                {.size = 4, .policy = batch_policy::refill}, updates + 1,
                [&](std::size_t i) { return i == 0 ? reader() : writer(i); },
                [&](std::size_t i, status s) { results[i] = s; }),
            status::ok);
  for (std::size_t i = 0; i <= updates; ++i) ASSERT_EQ(results[i], status::ok) << i;
  EXPECT_EQ(first, "before");
  EXPECT_EQ(held_status, status::ok);
  EXPECT_EQ(held_value, "before") << "the suspended read kept its snapshot";
  db->collect_garbage();
  transaction last = db->begin();
  ASSERT_EQ(last.update(t, "hot", "after"), status::ok);
  ASSERT_EQ(last.commit(), status::ok);
  EXPECT_LE(db->live_versions(), 2) << "the chain the reader held is reclaimed once it is gone";
}

// A durable database in sync mode: the commits of a batch wait for the log suspended, so one
// fdatasync covers several of them. A commit that blocked until its own sync would take one
// fdatasync per commit. How many share depends on how long a sync takes against a
// transaction's work (ThreadSanitizer slows the transactions, not the disk: 155 syncs for 256
// commits were seen), so the bound only asks that at least one commit in eight shared.
TEST(TransactionScheduler, InterleavedCommitsShareTheLogsSyncs) {
  temp_directory directory;
  std::unique_ptr<database> db;
  std::string message;
  ASSERT_EQ(database::open({.directory = directory.path() / "db", .log_mode = commit_mode::sync}, db, message),
            status::ok)
      << message;
  table_handle t;
  ASSERT_EQ(db->create_table("t", t), status::ok);
  const log_stats before = db->log_statistics();
  constexpr std::size_t count = 256;
  auto insert = [&](std::size_t i) -> task<status> {
    transaction tx = db->begin();
    status s = co_await tx.insert<interleaved>(t, "key-" + std::to_string(i), "value");
    if (s == status::ok) s = co_await commit<interleaved>(tx);
    co_return s;
  };
  std::size_t committed = 0;
  ASSERT_EQ(run_transactions({.size = 16, .policy = batch_policy::refill}, count, insert,
                             [&](std::size_t, status s) { committed += s == status::ok ? 1 : 0; }),
            status::ok);
  EXPECT_EQ(committed, count);
  const log_stats after = db->log_statistics();
  EXPECT_LE(after.fsyncs - before.fsyncs, count - count / 8) << "each commit waited for a sync of its own";
  EXPECT_EQ(contents(*db, t).size(), count);
}

}  // namespace
}  // namespace braid::txn::testing
