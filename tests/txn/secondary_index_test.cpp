// Secondary indexes: built from the table's contents when declared, maintained by writes,
// stale entries (updated secondary keys, aborted writes) filtered by the readers, against a
// reference map; scans through the index.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "braid/txn/database.hpp"
#include "txn/txn_test_support.hpp"

namespace {

using braid::txn::status;

// Values are "<email>|<payload>"; the secondary key is the email.
std::string email_of(std::string_view value) { return std::string(value.substr(0, value.find('|'))); }

TEST(txn_secondary_index, matches_a_reference_with_stale_entries) {
  braid::txn::table_handle users;
  const std::unique_ptr<braid::txn::database> db = braid::txn::testing::in_memory_database("users", users);
  std::map<std::string, std::string> reference;  // primary key -> value
  std::mt19937 random(7);
  auto random_value = [&](int id) {
    return "user" + std::to_string(random() % 40) + "@x|" + std::to_string(id);
  };
  // Rows before the index exists.
  {
    auto tx = db->begin();
    for (int id = 0; id < 10; ++id) {
      const std::string value = "user" + std::to_string(id) + "@x|" + std::to_string(id);
      ASSERT_EQ(tx.insert(users, "id" + std::to_string(id), value), status::ok);
      reference["id" + std::to_string(id)] = value;
    }
    ASSERT_EQ(tx.commit(), status::ok);
  }
  braid::txn::index_handle by_email;
  ASSERT_EQ(db->create_index(users, "by_email", email_of, by_email), status::ok);
  braid::txn::index_handle found;
  ASSERT_EQ(db->find_index(users, "by_email", found), status::ok);
  EXPECT_EQ(found.index, by_email.index);

  for (int round = 0; round < 2000; ++round) {
    auto tx = db->begin();
    const std::string key = "id" + std::to_string(random() % 20);
    // Unique secondary keys: give the row an email no other row has right now.
    std::string value = random_value(round);
    bool taken = false;
    for (const auto& [k, v] : reference) taken |= k != key && email_of(v) == email_of(value);
    if (taken) continue;
    const bool remove = random() % 5 == 0;
    const status s = remove ? tx.remove(users, key) : tx.upsert(users, key, value);
    if (s == status::not_found) continue;
    ASSERT_EQ(s, status::ok);
    if (random() % 4 == 0) {
      ASSERT_EQ(tx.abort(), status::abort_user);  // leaves a stale entry behind
      continue;
    }
    ASSERT_EQ(tx.commit(), status::ok);
    if (remove) reference.erase(key);
    else reference[key] = value;
  }
  auto tx = db->begin(braid::txn::isolation::snapshot, braid::txn::access::read_only);
  std::map<std::string, std::string> by_email_reference;
  for (const auto& [k, v] : reference) by_email_reference[email_of(v)] = v;
  std::string value;
  for (int user = 0; user < 40; ++user) {
    const std::string email = "user" + std::to_string(user) + "@x";
    const auto expected = by_email_reference.find(email);
    const status s = tx.index_get(by_email, email, value);
    if (expected == by_email_reference.end()) {
      EXPECT_EQ(s, status::not_found) << email;
    } else {
      ASSERT_EQ(s, status::ok) << email;
      EXPECT_EQ(value, expected->second);
    }
  }
  std::vector<std::pair<std::string, std::string>> scanned;
  ASSERT_EQ(tx.index_scan(by_email, "user1", 15, [&](std::string_view k, std::string_view v) { scanned.emplace_back(k, v); }),
            status::ok);
  std::vector<std::pair<std::string, std::string>> expected;
  for (auto it = by_email_reference.lower_bound("user1"); it != by_email_reference.end() && expected.size() < 15; ++it) {
    expected.emplace_back(it->first, it->second);
  }
  EXPECT_EQ(scanned, expected);
}

TEST(txn_secondary_index, own_writes_and_old_snapshots) {
  braid::txn::table_handle users;
  const std::unique_ptr<braid::txn::database> db = braid::txn::testing::in_memory_database("users", users);
  braid::txn::index_handle by_email;
  ASSERT_EQ(db->create_index(users, "by_email", email_of, by_email), status::ok);
  {
    auto tx = db->begin();
    ASSERT_EQ(tx.insert(users, "1", "a@x|one"), status::ok);
    ASSERT_EQ(tx.commit(), status::ok);
  }
  auto old = db->begin();
  auto writer = db->begin();
  ASSERT_EQ(writer.update(users, "1", "b@x|one"), status::ok);
  std::string value;
  EXPECT_EQ(writer.index_get(by_email, "b@x", value), status::ok);
  EXPECT_EQ(writer.index_get(by_email, "a@x", value), status::not_found);  // stale for the writer
  ASSERT_EQ(writer.commit(), status::ok);
  EXPECT_EQ(old.index_get(by_email, "a@x", value), status::ok);  // the old snapshot's key
  EXPECT_EQ(value, "a@x|one");
  EXPECT_EQ(old.index_get(by_email, "b@x", value), status::not_found);
  // Keys the extractor returns must be valid keys.
  auto tx = db->begin();
  EXPECT_EQ(tx.insert(users, "2", "|no email"), status::invalid_argument);
}

}  // namespace
