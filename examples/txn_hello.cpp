// A durable transactional key-value store: a table, a secondary index, two transactions that
// conflict, a scan in both directions, and a reopen that finds what was committed.
// Usage: example_txn_hello [directory]   (default: a new directory under the temporary one)
#include <braid/txn/database.hpp>

#include <cstdio>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
  using braid::txn::status;
  braid::txn::database_options options;  // an empty directory would be in memory
  options.directory = argc > 1 ? argv[1] : std::filesystem::temp_directory_path() / "braid-txn-hello";
  if (argc == 1) std::filesystem::remove_all(options.directory);
  std::unique_ptr<braid::txn::database> db;
  std::string message;
  if (braid::txn::database::open(options, db, message) != status::ok) return std::fprintf(stderr, "%s\n", message.c_str()), 2;
  braid::txn::table_handle users;
  if (db->find_table("users", users) != status::ok) db->create_table("users", users);  // logged, durable

  braid::txn::transaction setup = db->begin();
  setup.upsert(users, "alice", "paris");
  setup.upsert(users, "bob", "oslo");
  setup.upsert(users, "carol", "rome");
  if (setup.commit() != status::ok) return 1;  // sync mode: on disk when commit returns

  // First updater wins: the second writer of "bob" is rolled back.
  braid::txn::transaction first = db->begin();
  braid::txn::transaction second = db->begin();
  first.update(users, "bob", "lima");
  const status conflict = second.update(users, "bob", "kyiv");
  std::printf("second writer: %s\nfirst commits: %s\n", braid::txn::describe(conflict), braid::txn::describe(first.commit()));

  db.reset();  // close; reopening recovers from the log (and the newest checkpoint, if any)
  if (braid::txn::database::open(options, db, message) != status::ok) return 1;
  db->find_table("users", users);
  braid::txn::index_handle by_city;  // secondary indexes are declared at every open
  db->create_index(users, "by_city", [](std::string_view city) { return std::string(city); }, by_city);

  braid::txn::transaction reader = db->begin(braid::txn::isolation::snapshot, braid::txn::access::read_only);
  std::string bob, rome;
  reader.get(users, "bob", bob);
  std::printf("bob lives in %s\n", bob.c_str());
  const status by_index = reader.index_get(by_city, "rome", rome);
  auto print = [](std::string_view key, std::string_view city) {
    std::printf("  %.*s: %.*s\n", int(key.size()), key.data(), int(city.size()), city.data());
  };
  reader.scan(users, "b", 10, print);
  reader.reverse_scan(users, "", 2, print);
  reader.commit();
  return conflict == status::abort_write_conflict && bob == "lima" && by_index == status::ok && rome == "rome" ? 0 : 1;
}
