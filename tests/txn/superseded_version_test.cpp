// A version its own writer replaced: a reader that loaded it before the replacement passes over
// it (the writer committed after the reader's snapshot, so the reader sees the version below).
// Before the fix the superseded version kept its in-flight stamp after the writer was gone,
// and the reader waited in transaction::see for a stamp that nothing would ever change.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "braid/core/mode.hpp"
#include "braid/txn/database.hpp"
#include "txn/txn_test_support.hpp"

namespace {

using braid::txn::isolation;
using braid::txn::status;

using superseded_version = braid::txn::testing::one_table_database;

void reader_passes_over_a_version_its_writer_replaced(braid::txn::database& db, braid::txn::table_handle t,
                                                      isolation level) {
  {
    auto load = db.begin();
    ASSERT_EQ(load.upsert(t, "k", "v0"), status::ok);
    ASSERT_EQ(load.commit(), status::ok);
  }
  // The resumptions a get of "k" takes: its index nodes, the indirection entry, the version.
  std::string value;
  int steps = 0;
  {
    auto probe = db.begin(level);
    auto get = probe.get<braid::interleaved>(t, "k", value);
    while (!get.done()) {
      get.resume();
      ++steps;
    }
    ASSERT_EQ(get.take_result(), status::ok);
    ASSERT_EQ(probe.commit(), status::ok);
  }
  auto writer = db.begin(level);
  ASSERT_EQ(writer.update(t, "k", "v1"), status::ok);
  auto reader = db.begin(level);
  auto get = reader.get<braid::interleaved>(t, "k", value);
  for (int step = 0; step + 1 < steps; ++step) get.resume();  // it has loaded v1, the writer's version
  ASSERT_FALSE(get.done());
  ASSERT_EQ(writer.update(t, "k", "v2"), status::ok);  // replaces v1
  ASSERT_EQ(writer.commit(), status::ok);
  std::atomic<bool> finished{false};
  std::thread watchdog([&finished] {
    for (int waited = 0; waited < 100 && !finished.load(); ++waited) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!finished.load()) {
      std::fputs("the reader still waits for the superseded version's stamp after 5 s\n", stderr);
      std::_Exit(1);
    }
  });
  for (int step = 0; step < 100 && !get.done(); ++step) get.resume();  // then the version below
  finished.store(get.done());
  watchdog.join();
  ASSERT_TRUE(finished.load());
  EXPECT_EQ(get.take_result(), status::ok);
  EXPECT_EQ(value, "v0");
  EXPECT_EQ(reader.commit(), status::ok);
  auto after = db.begin(level);
  EXPECT_EQ(after.get(t, "k", value), status::ok);
  EXPECT_EQ(value, "v2");
  EXPECT_EQ(after.commit(), status::ok);
}

TEST_F(superseded_version, snapshot_reader_passes_over_it) {
  reader_passes_over_a_version_its_writer_replaced(*db, t, isolation::snapshot);
}

TEST_F(superseded_version, serializable_reader_passes_over_it) {
  reader_passes_over_a_version_its_writer_replaced(*db, t, isolation::serializable);
}

}  // namespace
