// Pipelined commit (precommit / finish_commit): the phases a transaction goes through, and
// that a thread with precommitted transactions never waits for itself — its next
// transactions read and overwrite what it precommitted, under both isolation levels, in a
// durable database whose log syncs.
// braid-test: concurrent
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "braid/txn/database.hpp"
#include "txn/txn_test_support.hpp"

namespace {

using braid::txn::isolation;
using braid::txn::status;
using braid::txn::transaction;

struct durable_database {
  explicit durable_database(braid::txn::commit_mode mode = braid::txn::commit_mode::sync) {
    braid::txn::database_options options;
    options.directory = directory.path() / "db";
    options.log_mode = mode;
    std::string message;
    EXPECT_EQ(braid::txn::database::open(options, db, message), status::ok) << message;
    EXPECT_EQ(db->create_table("t", t), status::ok);
  }
  braid::txn::testing::temp_directory directory;
  std::unique_ptr<braid::txn::database> db;
  braid::txn::table_handle t;
};

std::string read(braid::txn::database& db, braid::txn::table_handle t, const std::string& key, isolation level) {
  transaction tx = db.begin(level);
  std::string value;
  const status s = tx.get(t, key, value);
  EXPECT_EQ(tx.commit(), status::ok);
  return s == status::ok ? value : braid::txn::describe(s);
}

TEST(txn_pipelined_commit, phases_and_misuse) {
  durable_database d;
  transaction tx = d.db->begin();
  ASSERT_EQ(tx.insert(d.t, "a", "1"), status::ok);
  ASSERT_EQ(tx.precommit(), status::ok);
  EXPECT_FALSE(tx.is_open());
  EXPECT_TRUE(tx.is_precommitted());
  std::string value;
  EXPECT_EQ(tx.get(d.t, "a", value), status::invalid_argument);
  EXPECT_EQ(tx.precommit(), status::invalid_argument);
  EXPECT_EQ(tx.commit(), status::invalid_argument);
  EXPECT_EQ(tx.finish_commit(), status::ok);
  EXPECT_TRUE(tx.is_durable());
  EXPECT_EQ(tx.finish_commit(), status::invalid_argument);
  EXPECT_EQ(read(*d.db, d.t, "a", isolation::snapshot), "1");

  transaction reader = d.db->begin(isolation::snapshot, braid::txn::access::read_only);
  EXPECT_EQ(reader.get(d.t, "a", value), status::ok);
  ASSERT_EQ(reader.precommit(), status::ok);  // read-only: nothing to wait for
  EXPECT_TRUE(reader.is_durable());
  EXPECT_EQ(reader.finish_commit(), status::ok);

  transaction conflicted = d.db->begin();
  transaction winner = d.db->begin();
  ASSERT_EQ(winner.update(d.t, "a", "2"), status::ok);
  EXPECT_EQ(conflicted.update(d.t, "a", "3"), status::abort_write_conflict);
  EXPECT_EQ(conflicted.precommit(), status::abort_write_conflict);
  EXPECT_EQ(conflicted.finish_commit(), status::abort_write_conflict);
  ASSERT_EQ(winner.precommit(), status::ok);
  {
    transaction moved = std::move(winner);  // destroyed while precommitted: finishes its commit
  }
  EXPECT_EQ(read(*d.db, d.t, "a", isolation::snapshot), "2");
}

TEST(txn_pipelined_commit, in_memory_precommit_is_the_whole_commit) {
  braid::txn::table_handle t;
  const auto db = braid::txn::testing::in_memory_database("t", t);
  transaction tx = db->begin();
  ASSERT_EQ(tx.insert(t, "k", "v"), status::ok);
  ASSERT_EQ(tx.precommit(), status::ok);
  EXPECT_TRUE(tx.is_durable());
  EXPECT_EQ(read(*db, t, "k", isolation::snapshot), "v");  // visible before finish_commit
  EXPECT_EQ(tx.finish_commit(), status::ok);
}

// One thread: a window of precommitted transactions, each overwriting keys the earlier ones
// wrote and read; a reader in the same thread sees every precommitted write once it is on disk.
class same_thread : public ::testing::TestWithParam<isolation> {};

TEST_P(same_thread, later_transactions_wait_for_the_disk_not_for_this_thread) {
  durable_database d;
  constexpr int keys = 8;
  constexpr int transactions = 96;
  {
    transaction setup = d.db->begin();
    for (int key = 0; key < keys; ++key) ASSERT_EQ(setup.insert(d.t, std::to_string(key), "0"), status::ok);
    ASSERT_EQ(setup.commit(), status::ok);
  }
  std::vector<transaction> window;
  std::vector<int> expected(keys, 0);
  for (int round = 1; round <= transactions; ++round) {
    transaction tx = d.db->begin(GetParam());
    const std::string key = std::to_string(round % keys);
    std::string value;
    ASSERT_EQ(tx.get(d.t, key, value), status::ok);  // the previous round's write to it: precommitted
    ASSERT_EQ(value, std::to_string(expected[round % keys]));
    ASSERT_EQ(tx.update(d.t, key, std::to_string(round)), status::ok);
    ASSERT_EQ(tx.precommit(), status::ok) << round;
    expected[round % keys] = round;
    window.push_back(std::move(tx));
    if (window.size() == 16) {
      for (transaction& pending : window) ASSERT_EQ(pending.finish_commit(), status::ok);
      window.clear();
    }
  }
  for (int key = 0; key < keys; ++key) {
    EXPECT_EQ(read(*d.db, d.t, std::to_string(key), GetParam()), std::to_string(expected[key]));
  }
  for (transaction& pending : window) EXPECT_EQ(pending.finish_commit(), status::ok);
  EXPECT_LT(d.db->log_statistics().fsyncs, static_cast<std::uint64_t>(transactions));  // group commit
}

INSTANTIATE_TEST_SUITE_P(levels, same_thread, ::testing::Values(isolation::snapshot, isolation::serializable),
                         [](const auto& info) { return info.param == isolation::snapshot ? "snapshot" : "serializable"; });

// Two threads, each with a window of precommitted transfers: the total never changes, in
// every snapshot and after the end.
TEST(txn_pipelined_commit, concurrent_windows_keep_the_total) {
  durable_database d;
  constexpr int accounts = 16;
  {
    transaction setup = d.db->begin();
    for (int account = 0; account < accounts; ++account) ASSERT_EQ(setup.insert(d.t, std::to_string(account), "100"), status::ok);
    ASSERT_EQ(setup.commit(), status::ok);
  }
  std::atomic<int> committed{0};
  auto worker = [&](unsigned seed) {
    std::vector<transaction> window;
    std::uint64_t state = seed;
    for (int round = 0; round < 150; ++round) {
      state = state * 6364136223846793005u + 1442695040888963407u;
      const int from = static_cast<int>(state >> 33) % accounts;
      const int to = (from + 1 + static_cast<int>(state >> 50) % (accounts - 1)) % accounts;
      transaction tx = d.db->begin(round % 2 == 0 ? isolation::snapshot : isolation::serializable);
      std::string a, b;
      if (tx.get(d.t, std::to_string(from), a) != status::ok || tx.get(d.t, std::to_string(to), b) != status::ok) continue;
      if (tx.update(d.t, std::to_string(from), std::to_string(std::stoi(a) - 1)) != status::ok) continue;
      if (tx.update(d.t, std::to_string(to), std::to_string(std::stoi(b) + 1)) != status::ok) continue;
      if (tx.precommit() != status::ok) continue;
      window.push_back(std::move(tx));
      if (window.size() == 8) {
        for (transaction& pending : window) committed += pending.finish_commit() == status::ok;
        window.clear();
      }
    }
    for (transaction& pending : window) committed += pending.finish_commit() == status::ok;
  };
  std::thread first(worker, 1);
  std::thread second(worker, 2);
  first.join();
  second.join();
  transaction audit = d.db->begin(isolation::snapshot, braid::txn::access::read_only);
  int total = 0;
  ASSERT_EQ(audit.scan(d.t, "", accounts, [&](std::string_view, std::string_view value) { total += std::stoi(std::string(value)); }),
            status::ok);
  EXPECT_EQ(total, accounts * 100);
  EXPECT_GT(committed.load(), 0);
}

}  // namespace
