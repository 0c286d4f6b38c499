// Arguments the engine refuses: keys and values over the limits, the empty key, tables and
// indexes it does not know, and transactions that are over.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "braid/txn/database.hpp"
#include "txn/txn_test_support.hpp"

namespace {

using braid::txn::status;

using bad_input = braid::txn::testing::one_table_database;

TEST_F(bad_input, keys_and_values_over_the_limits) {
  auto tx = db->begin();
  std::string value;
  const std::string longest_key(braid::txn::max_key_bytes, 'k');
  const std::string too_long_key(braid::txn::max_key_bytes + 1, 'k');
  const std::string largest_value(braid::txn::max_value_bytes, 'v');
  const std::string too_large_value(braid::txn::max_value_bytes + 1, 'v');
  EXPECT_EQ(tx.insert(t, "", "v"), status::invalid_argument);
  EXPECT_EQ(tx.get(t, "", value), status::invalid_argument);
  EXPECT_EQ(tx.insert(t, too_long_key, "v"), status::invalid_argument);
  EXPECT_EQ(tx.get(t, too_long_key, value), status::invalid_argument);
  EXPECT_EQ(tx.upsert(t, "k", too_large_value), status::invalid_argument);
  EXPECT_EQ(tx.insert(t, longest_key, largest_value), status::ok);
  EXPECT_EQ(tx.get(t, longest_key, value), status::ok);
  EXPECT_EQ(value, largest_value);
  EXPECT_EQ(tx.commit(), status::ok);
}

TEST_F(bad_input, unknown_tables_and_names) {
  braid::txn::table_handle missing;
  EXPECT_EQ(db->find_table("nope", missing), status::unknown_table);
  EXPECT_EQ(db->create_table("t", missing), status::table_exists);
  EXPECT_EQ(db->create_table("", missing), status::invalid_argument);
  auto tx = db->begin();
  std::string value;
  EXPECT_EQ(tx.get(missing, "k", value), status::unknown_table);
  EXPECT_EQ(tx.insert(missing, "k", "v"), status::unknown_table);
  // A handle of another database.
  std::unique_ptr<braid::txn::database> other;
  std::string message;
  ASSERT_EQ(braid::txn::database::open({}, other, message), status::ok);
  braid::txn::table_handle foreign;
  ASSERT_EQ(other->create_table("t", foreign), status::ok);
  EXPECT_EQ(tx.get(foreign, "k", value), status::unknown_table);
  braid::txn::index_handle index;
  EXPECT_EQ(db->create_index(foreign, "i", [](std::string_view v) { return std::string(v); }, index), status::unknown_table);
  EXPECT_EQ(db->create_index(t, "i", nullptr, index), status::invalid_argument);
  EXPECT_EQ(tx.index_get(index, "k", value), status::unknown_table);
  EXPECT_EQ(tx.commit(), status::ok);
}

TEST_F(bad_input, use_after_the_end) {
  std::string value;
  auto tx = db->begin();
  ASSERT_EQ(tx.insert(t, "k", "v"), status::ok);
  ASSERT_EQ(tx.commit(), status::ok);
  EXPECT_FALSE(tx.is_open());
  EXPECT_EQ(tx.get(t, "k", value), status::invalid_argument);
  EXPECT_EQ(tx.insert(t, "j", "v"), status::invalid_argument);
  EXPECT_EQ(tx.commit(), status::invalid_argument);
  EXPECT_EQ(tx.abort(), status::invalid_argument);

  auto aborted = db->begin();
  ASSERT_EQ(aborted.abort(), status::abort_user);
  EXPECT_EQ(aborted.get(t, "k", value), status::abort_user);
  EXPECT_EQ(aborted.commit(), status::abort_user);

  braid::txn::transaction empty;
  EXPECT_EQ(empty.get(t, "k", value), status::invalid_argument);
  EXPECT_EQ(empty.commit(), status::invalid_argument);

  // A conflict rolls back; the transaction reports the reason from then on.
  auto first = db->begin();
  auto second = db->begin();
  ASSERT_EQ(first.update(t, "k", "1"), status::ok);
  ASSERT_EQ(second.update(t, "k", "2"), status::abort_write_conflict);
  EXPECT_EQ(second.get(t, "k", value), status::abort_write_conflict);
  EXPECT_EQ(second.commit(), status::abort_write_conflict);
  ASSERT_EQ(first.commit(), status::ok);
}

TEST_F(bad_input, durable_options_out_of_range_are_refused_before_the_directory_is_touched) {
  braid::txn::testing::temp_directory directory;
  const std::filesystem::path path = directory.path() / "db";
  auto refused = [&](braid::txn::database_options options) {
    options.directory = path;
    std::unique_ptr<braid::txn::database> durable;
    std::string message;
    EXPECT_EQ(braid::txn::database::open(options, durable, message), status::invalid_argument);
    EXPECT_FALSE(message.empty());
    EXPECT_EQ(durable, nullptr);
    EXPECT_FALSE(std::filesystem::exists(path));
  };
  braid::txn::database_options options;
  options.log_segment_bytes = 0;
  refused(options);
  options = {};
  options.async_interval = std::chrono::milliseconds(0);
  refused(options);
  options = {};
  options.checkpoint_interval = std::chrono::milliseconds(-1);
  refused(options);
  options = {};
  options.log_mode = static_cast<braid::txn::commit_mode>(7);
  refused(options);
}

TEST_F(bad_input, a_file_is_not_a_database) {
  braid::txn::testing::temp_directory directory;
  const std::filesystem::path file = directory.path() / "plain-file";
  braid::txn::testing::write_bytes(file, "not a database");
  braid::txn::database_options options;
  options.directory = file;
  std::unique_ptr<braid::txn::database> durable;
  std::string message;
  EXPECT_EQ(braid::txn::database::open(options, durable, message), status::not_a_database);
  EXPECT_NE(message.find(file.string()), std::string::npos);
  EXPECT_EQ(durable, nullptr);
  EXPECT_EQ(braid::txn::testing::read_bytes(file), "not a database");
}

TEST_F(bad_input, a_directory_is_open_in_one_database_at_a_time) {
  braid::txn::testing::temp_directory directory;
  braid::txn::database_options options;
  options.directory = directory.path() / "db";
  std::unique_ptr<braid::txn::database> first, second;
  std::string message;
  ASSERT_EQ(braid::txn::database::open(options, first, message), status::ok) << message;
  braid::txn::table_handle table;
  ASSERT_EQ(first->create_table("t", table), status::ok);
  EXPECT_EQ(braid::txn::database::open(options, second, message), status::in_use);
  EXPECT_NE(message.find(options.directory.string()), std::string::npos) << message;
  EXPECT_EQ(second, nullptr);
  first.reset();
  ASSERT_EQ(braid::txn::database::open(options, second, message), status::ok) << message;
  EXPECT_EQ(second->find_table("t", table), status::ok);
}

TEST_F(bad_input, an_in_memory_database_has_no_checkpoints) {
  std::string message;
  EXPECT_EQ(db->checkpoint(message), status::invalid_argument);
  EXPECT_FALSE(message.empty());
  EXPECT_FALSE(db->is_durable());
  EXPECT_EQ(db->log_statistics().commits, 0u);
}

}  // namespace
