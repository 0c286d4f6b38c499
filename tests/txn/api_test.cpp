// The database and transaction API: tables, point operations, limits and misuse.
#include <gtest/gtest.h>

#include <string>

#include "braid/txn/database.hpp"
#include "txn/txn_test_support.hpp"

namespace {

using braid::txn::status;

using api = braid::txn::testing::one_table_database;

TEST_F(api, point_operations_in_one_transaction) {
  auto tx = db->begin();
  std::string value;
  EXPECT_EQ(tx.get(t, "a", value), status::not_found);
  EXPECT_EQ(tx.insert(t, "a", "1"), status::ok);
  EXPECT_EQ(tx.insert(t, "a", "2"), status::already_exists);
  EXPECT_EQ(tx.get(t, "a", value), status::ok);
  EXPECT_EQ(value, "1");
  EXPECT_EQ(tx.update(t, "a", "3"), status::ok);
  EXPECT_EQ(tx.update(t, "b", "3"), status::not_found);
  EXPECT_EQ(tx.upsert(t, "b", "4"), status::ok);
  EXPECT_EQ(tx.remove(t, "a"), status::ok);
  EXPECT_EQ(tx.get(t, "a", value), status::not_found);
  EXPECT_EQ(tx.remove(t, "a"), status::not_found);
  EXPECT_EQ(tx.insert(t, "a", "5"), status::ok);
  EXPECT_EQ(tx.commit(), status::ok);
  auto reader = db->begin(braid::txn::isolation::snapshot, braid::txn::access::read_only);
  EXPECT_EQ(reader.get(t, "a", value), status::ok);
  EXPECT_EQ(value, "5");
  EXPECT_EQ(reader.get(t, "b", value), status::ok);
  EXPECT_EQ(value, "4");
  EXPECT_EQ(reader.insert(t, "c", "1"), status::read_only_violation);
  EXPECT_EQ(reader.commit(), status::ok);
}

TEST_F(api, tombstone_can_be_reinserted_and_destruction_aborts) {
  {
    auto tx = db->begin();
    ASSERT_EQ(tx.insert(t, "k", "v"), status::ok);
    ASSERT_EQ(tx.commit(), status::ok);
  }
  {
    auto tx = db->begin();
    ASSERT_EQ(tx.remove(t, "k"), status::ok);
    ASSERT_EQ(tx.commit(), status::ok);
  }
  {
    auto tx = db->begin();
    ASSERT_EQ(tx.insert(t, "k", "w"), status::ok);
  }  // destroyed open: aborted
  std::string value;
  auto tx = db->begin();
  EXPECT_EQ(tx.get(t, "k", value), status::not_found);
  EXPECT_EQ(tx.insert(t, "k", "x"), status::ok);
  EXPECT_EQ(tx.commit(), status::ok);
}

}  // namespace

namespace {

// Many transactions' interleaved operations in flight on one thread, resumed round robin (a
// scheduler's ring): every suspended get keeps its epoch pinned and returns what the plain
// get returns, while other transactions write between its steps.
TEST_F(api, interleaved_operations_of_many_transactions) {
  constexpr int keys = 2000;
  {
    auto tx = db->begin();
    for (int k = 0; k < keys; ++k) ASSERT_EQ(tx.insert(t, "key" + std::to_string(k), "v" + std::to_string(k)), status::ok);
    ASSERT_EQ(tx.commit(), status::ok);
  }
  constexpr int ring = 16;
  std::vector<braid::txn::transaction> readers;
  for (int r = 0; r < ring; ++r) readers.push_back(db->begin());
  std::vector<std::string> values(ring);
  std::vector<std::string> wanted(ring);
  std::vector<braid::coro<status>> flights(ring);
  int issued = 0;
  int checked = 0;
  auto start = [&](int r) {
    const int k = (issued++ * 7919) % keys;
    wanted[r] = "v" + std::to_string(k);
    flights[r] = readers[r].get<braid::interleaved>(t, "key" + std::to_string(k), values[r]);
  };
  for (int r = 0; r < ring; ++r) start(r);
  int writes = 0;
  while (checked < 5000) {
    for (int r = 0; r < ring; ++r) {
      if (!flights[r].done()) {
        flights[r].resume();
        continue;
      }
      ASSERT_EQ(flights[r].take_result(), status::ok);
      ASSERT_EQ(values[r], wanted[r]);  // the readers' snapshot predates every write below
      ++checked;
      auto writer = db->begin();
      ASSERT_EQ(writer.update(t, "key" + std::to_string(writes++ % keys), "changed"), status::ok);
      ASSERT_EQ(writer.commit(), status::ok);
      start(r);
    }
  }
  for (auto& flight : flights) flight.reset();
  for (auto& reader : readers) EXPECT_EQ(reader.commit(), status::ok);
}

}  // namespace
