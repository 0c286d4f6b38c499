// A transactional key-value store in memory: a table, a secondary index, two transactions
// that conflict, and a scan in both directions.
#include <braid/txn/database.hpp>

#include <cstdio>
#include <string>

int main() {
  using braid::txn::status;
  std::unique_ptr<braid::txn::database> db;
  std::string message;
  if (braid::txn::database::open({}, db, message) != status::ok) return 1;  // no directory: in memory
  braid::txn::table_handle users;
  db->create_table("users", users);
  braid::txn::index_handle by_city;  // secondary key: the city (unique here; append the primary key if not)
  db->create_index(users, "by_city", [](std::string_view v) { return std::string(v); }, by_city);

  braid::txn::transaction setup = db->begin();
  setup.insert(users, "alice", "paris");
  setup.insert(users, "bob", "oslo");
  setup.insert(users, "carol", "rome");
  if (setup.commit() != status::ok) return 1;

  // First updater wins: the second writer of "bob" is rolled back.
  braid::txn::transaction first = db->begin();
  braid::txn::transaction second = db->begin();
  first.update(users, "bob", "lima");
  const status conflict = second.update(users, "bob", "kyiv");
  std::printf("second writer: %s\n", braid::txn::describe(conflict));
  std::printf("first commits: %s\n", braid::txn::describe(first.commit()));

  braid::txn::transaction reader = db->begin(braid::txn::isolation::snapshot, braid::txn::access::read_only);
  std::string value;
  reader.get(users, "bob", value);
  std::printf("bob lives in %s\n", value.c_str());
  const status by_index = reader.index_get(by_city, "oslo", value);  // a stale entry: filtered
  std::printf("who lives in oslo: %s\n", braid::txn::describe(by_index));
  auto print = [](std::string_view key, std::string_view city) {
    std::printf("  %.*s: %.*s\n", int(key.size()), key.data(), int(city.size()), city.data());
  };
  reader.scan(users, "b", 10, print);
  reader.reverse_scan(users, "", 2, print);
  reader.commit();
  return conflict == status::abort_write_conflict && value == "lima" && by_index == status::not_found ? 0 : 1;
}
