// Version garbage collection: memory stays bounded under a long run of updates with no old
// snapshot open, and an old snapshot keeps what it can see readable.
#include <gtest/gtest.h>

#include <string>

#include "braid/txn/database.hpp"
#include "txn/txn_test_support.hpp"

namespace {

using braid::txn::status;

struct garbage_collection : braid::txn::testing::one_table_database {
  void update(const std::string& value) {
    auto tx = db->begin();
    ASSERT_EQ(tx.upsert(t, "hot", value), status::ok);
    ASSERT_EQ(tx.commit(), status::ok);
  }
};

TEST_F(garbage_collection, updates_of_one_key_keep_memory_bounded) {
  std::int64_t most_versions = 0;
  std::uint64_t most_bytes = 0;
  for (int round = 0; round < 200'000; ++round) {
    update("value " + std::to_string(round));
    if (HasFatalFailure()) return;
    if (round >= 1000) {
      most_versions = std::max(most_versions, db->live_versions());
      most_bytes = std::max(most_bytes, db->version_bytes());
    }
  }
  // A chain is cut every horizon refresh: at most that many versions stay linked, and the
  // epoch reclaimer frees retired ones within a few collections.
  EXPECT_LE(most_versions, 2 * static_cast<std::int64_t>(braid::txn::detail::engine::horizon_refresh_interval));
  EXPECT_LE(most_bytes, std::uint64_t{1} << 20);
  std::string value;
  auto tx = db->begin();
  ASSERT_EQ(tx.get(t, "hot", value), status::ok);
  EXPECT_EQ(value, "value 199999");
}

TEST_F(garbage_collection, an_old_snapshot_stays_readable) {
  update("old");
  auto reader = db->begin(braid::txn::isolation::snapshot, braid::txn::access::read_only);
  std::string value;
  ASSERT_EQ(reader.get(t, "hot", value), status::ok);
  for (int round = 0; round < 20'000; ++round) update("new " + std::to_string(round));
  db->collect_garbage();
  ASSERT_EQ(reader.get(t, "hot", value), status::ok);
  EXPECT_EQ(value, "old");
  EXPECT_GT(db->live_versions(), 10'000);  // the reader holds the chain
  EXPECT_EQ(reader.commit(), status::ok);
  // Once it is gone, the next updates cut the chain.
  db->collect_garbage();
  update("after");
  EXPECT_LE(db->live_versions(), 2);
}

}  // namespace
