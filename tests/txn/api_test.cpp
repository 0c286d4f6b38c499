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

namespace {

// Counts how often an interleaved operation hands control back before it finishes.
template <class Operation>
int suspensions_until_done(Operation operation, status& result) {
  int count = 0;
  while (!operation.done()) {
    operation.resume();
    ++count;
  }
  result = operation.take_result();
  return count;
}

std::unique_ptr<braid::txn::database> database_suspending_at(braid::txn::suspension_points points,
                                                             braid::txn::table_handle& t) {
  std::unique_ptr<braid::txn::database> db;
  std::string message;
  EXPECT_EQ(braid::txn::database::open({.suspend_at = points}, db, message), status::ok) << message;
  EXPECT_EQ(db->create_table("t", t), status::ok);
  auto tx = db->begin();
  for (int k = 0; k < 3000; ++k) EXPECT_EQ(tx.insert(t, "key" + std::to_string(k), "v"), status::ok);
  EXPECT_EQ(tx.commit(), status::ok);
  auto update = db->begin();
  EXPECT_EQ(update.update(t, "key7", "newer"), status::ok);
  EXPECT_EQ(update.commit(), status::ok);
  return db;
}

// database_options::suspend_at decides where an interleaved operation suspends: each place
// turned off takes its suspensions away, all off runs an operation to its end at once, and
// the results stay those of the plain operations.
TEST(suspension_points, each_place_turned_off_removes_its_suspensions) {
  using braid::txn::suspension_points;
  using braid::interleaved;
  struct counts {
    int get = 0, update = 0, scan = 0;
  };
  auto count = [](suspension_points points) {
    braid::txn::table_handle t;
    auto db = database_suspending_at(points, t);
    counts seen;
    auto tx = db->begin();
    std::string value;
    status result = status::corrupt;
    seen.get = suspensions_until_done(tx.get<interleaved>(t, "key7", value), result);
    EXPECT_EQ(result, status::ok);
    EXPECT_EQ(value, "newer");
    seen.update = suspensions_until_done(tx.update<interleaved>(t, "key8", "mine"), result);
    EXPECT_EQ(result, status::ok);
    int visited = 0;
    seen.scan = suspensions_until_done(
        tx.scan<interleaved>(t, "key1", 5, [&](std::string_view, std::string_view) { ++visited; }), result);
    EXPECT_EQ(result, status::ok);
    EXPECT_EQ(visited, 5);
    EXPECT_EQ(tx.commit(), status::ok);
    return seen;
  };
  const counts all = count({});
  EXPECT_GE(all.get, 4) << "index nodes, the entry, a version";
  EXPECT_GE(all.update, 3) << "index nodes, the entry and the chain's head";
  EXPECT_EQ(all.scan, 10) << "an entry and a version per record";
  const counts none = count({.index_nodes = false, .indirection_entry = false, .version_headers = false,
                             .write_chain = false});
  EXPECT_EQ(none.get, 0);
  EXPECT_EQ(none.update, 0);
  EXPECT_EQ(none.scan, 0);
  const counts no_nodes = count({.index_nodes = false});
  EXPECT_EQ(no_nodes.get, 2) << "the entry and the one version it reads";
  EXPECT_EQ(no_nodes.update, 2) << "the entry and the chain's head";
  const counts no_entry = count({.indirection_entry = false});
  EXPECT_EQ(no_entry.get, all.get - 1);
  EXPECT_EQ(no_entry.scan, 5);
  const counts no_versions = count({.version_headers = false});
  EXPECT_EQ(no_versions.get, all.get - 1);
  EXPECT_EQ(no_versions.scan, 5);
  EXPECT_EQ(no_versions.update, all.update);
  const counts no_write_chain = count({.write_chain = false});
  EXPECT_EQ(no_write_chain.update, all.update - 2);
  EXPECT_EQ(no_write_chain.get, all.get);
}

}  // namespace
