// braid-test: concurrent
// Bank transfers on several threads: every read-only snapshot sees the same total, every read
// returns a committed balance, and the final balances account for every committed transfer;
// under snapshot isolation and under the Serial Safety Net, plain and interleaved operations.
#include <gtest/gtest.h>

#include <atomic>
#include <charconv>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "braid/txn/database.hpp"
#include "txn/txn_test_support.hpp"

namespace {

using braid::txn::isolation;
using braid::txn::status;

constexpr int accounts = 12;
constexpr long initial = 1000;

std::string account(int index) { return "acct" + std::to_string(index); }

bool parse(const std::string& text, long& out) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size();
}

template <class Operation>
status run(Operation operation) {
  while (!operation.done()) operation.resume();
  return operation.take_result();
}

void bank(isolation level) {
  braid::txn::table_handle t;
  const std::unique_ptr<braid::txn::database> db = braid::txn::testing::in_memory_database("bank", t);
  {
    auto tx = db->begin();
    for (int i = 0; i < accounts; ++i) ASSERT_EQ(tx.insert(t, account(i), std::to_string(initial)), status::ok);
    ASSERT_EQ(tx.commit(), status::ok);
  }
  std::atomic<bool> stop{false};
  std::atomic<long> bad_reads{0};
  std::atomic<long> bad_sums{0};
  std::atomic<long> snapshots{0};
  std::atomic<long> committed{0};
  auto transfers = [&](unsigned seed, bool interleaved) {
    std::mt19937 random(seed);
    std::string from_value;
    std::string to_value;
    for (int done = 0; done < 1500;) {
      const int from = static_cast<int>(random() % accounts);
      const int to = static_cast<int>((from + 1 + random() % (accounts - 1)) % accounts);
      const long amount = static_cast<long>(random() % 50);
      auto tx = db->begin(level);
      long a = 0;
      long b = 0;
      const status r1 = interleaved ? run(tx.get<braid::interleaved>(t, account(from), from_value)) : tx.get(t, account(from), from_value);
      const status r2 = tx.get(t, account(to), to_value);
      if (r1 != status::ok || r2 != status::ok || !parse(from_value, a) || !parse(to_value, b)) {
        bad_reads.fetch_add(1);
        continue;
      }
      if (tx.update(t, account(from), std::to_string(a - amount)) != status::ok) continue;
      const status w = interleaved ? run(tx.update<braid::interleaved>(t, account(to), std::to_string(b + amount)))
                                   : tx.update(t, account(to), std::to_string(b + amount));
      if (w != status::ok) continue;
      if (tx.commit() == status::ok) {
        ++done;
        committed.fetch_add(1);
      }
    }
  };
  std::atomic<bool> auditing{false};
  // Audits while the transfers run, and after they stop until one audit has committed: on a
  // loaded machine the transfers may all finish before this thread first runs. Bounded, so an
  // audit that can never commit fails the test instead of hanging it.
  auto audits = [&] {
    auditing.store(true);
    std::string value;
    for (int after_stop = 0; after_stop < 100;) {
      if (stop.load()) {
        if (snapshots.load() > 0) break;
        ++after_stop;
      }
      auto tx = db->begin(level, braid::txn::access::read_only);
      long sum = 0;
      bool complete = true;
      for (int i = 0; i < accounts && complete; ++i) {
        long balance = 0;
        const status s = tx.get(t, account(i), value);
        if (braid::txn::is_abort(s)) complete = false;
        else if (s != status::ok || !parse(value, balance)) bad_reads.fetch_add(1);
        sum += balance;
      }
      long scanned = 0;
      EXPECT_EQ(tx.scan(t, "", accounts, [&](std::string_view, std::string_view v) {
        long balance = 0;
        std::from_chars(v.data(), v.data() + v.size(), balance);
        scanned += balance;
      }), status::ok);
      if (tx.commit() != status::ok || !complete) continue;
      snapshots.fetch_add(1);
      if (sum != accounts * initial || scanned != sum) bad_sums.fetch_add(1);
    }
  };
  std::thread auditor(audits);
  while (!auditing.load()) std::this_thread::yield();
  std::thread first(transfers, 1u, false);
  std::thread second(transfers, 2u, true);
  first.join();
  second.join();
  stop.store(true);
  auditor.join();
  EXPECT_EQ(bad_reads.load(), 0);
  EXPECT_EQ(bad_sums.load(), 0);
  EXPECT_GT(snapshots.load(), 0);
  EXPECT_EQ(committed.load(), 3000);
  auto tx = db->begin(isolation::snapshot, braid::txn::access::read_only);
  long sum = 0;
  std::string value;
  for (int i = 0; i < accounts; ++i) {
    long balance = 0;
    ASSERT_EQ(tx.get(t, account(i), value), status::ok);
    ASSERT_TRUE(parse(value, balance));
    sum += balance;
  }
  EXPECT_EQ(sum, accounts * initial);
}

TEST(txn_bank, snapshot_isolation_keeps_the_total) { bank(isolation::snapshot); }
TEST(txn_bank, serializable_keeps_the_total) { bank(isolation::serializable); }

// Write skew under concurrency: each transaction moves a unit out of one of two accounts only
// if their sum stays non-negative. Serializable executions keep the constraint.
TEST(txn_bank, serializable_prevents_write_skew_under_threads) {
  braid::txn::table_handle t;
  const std::unique_ptr<braid::txn::database> db = braid::txn::testing::in_memory_database("pair", t);
  for (int round = 0; round < 200; ++round) {
    {
      auto tx = db->begin();
      ASSERT_EQ(tx.upsert(t, "x", "1"), status::ok);
      ASSERT_EQ(tx.upsert(t, "y", "0"), status::ok);
      ASSERT_EQ(tx.commit(), status::ok);
    }
    auto withdraw = [&](const char* key) {
      std::string x;
      std::string y;
      auto tx = db->begin(isolation::serializable);
      if (tx.get(t, "x", x) != status::ok || tx.get(t, "y", y) != status::ok) return;
      if (std::stol(x) + std::stol(y) < 1) return;
      const std::string current = key[0] == 'x' ? x : y;
      if (tx.update(t, key, std::to_string(std::stol(current) - 1)) != status::ok) return;
      (void)tx.commit();
    };
    std::thread a(withdraw, "x");
    std::thread b(withdraw, "y");
    a.join();
    b.join();
    auto tx = db->begin();
    std::string x;
    std::string y;
    ASSERT_EQ(tx.get(t, "x", x), status::ok);
    ASSERT_EQ(tx.get(t, "y", y), status::ok);
    ASSERT_GE(std::stol(x) + std::stol(y), 0) << "round " << round;
  }
}

}  // namespace
