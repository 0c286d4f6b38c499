// The database directory's manifest: created when absent or empty, accepted when whole, and
// every refusal (not a directory, foreign files, another version, a damaged manifest) named.
#include <gtest/gtest.h>

#include <string>

#include "braid/txn/detail/on_disk.hpp"
#include "braid/txn/manifest.hpp"
#include "txn/txn_test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace braid::txn;
using namespace braid::txn::testing;

TEST(Manifest, CreatedWhenAbsentOrEmptyThenAccepted) {
  temp_directory base;
  std::string message;
  const fs::path absent = base.path() / "a" / "b";
  ASSERT_EQ(open_database_directory(absent, message), status::ok) << message;
  EXPECT_TRUE(fs::exists(absent / "MANIFEST"));
  EXPECT_EQ(fs::file_size(absent / "MANIFEST"), detail::file_header_bytes);
  EXPECT_EQ(open_database_directory(absent, message), status::ok) << message;
  write_bytes(absent / "other-file", "x");  // files beside the manifest are the database's own
  EXPECT_EQ(open_database_directory(absent, message), status::ok) << message;

  const fs::path empty = base.path() / "empty";
  fs::create_directory(empty);
  ASSERT_EQ(open_database_directory(empty, message), status::ok) << message;
  EXPECT_TRUE(fs::exists(empty / "MANIFEST"));

  // Only a leftover temporary manifest (a crash while creating): still empty.
  const fs::path interrupted = base.path() / "interrupted";
  fs::create_directory(interrupted);
  write_bytes(interrupted / "MANIFEST.tmp", "partial");
  ASSERT_EQ(open_database_directory(interrupted, message), status::ok) << message;
  EXPECT_FALSE(fs::exists(interrupted / "MANIFEST.tmp"));
  EXPECT_EQ(open_database_directory(interrupted, message), status::ok) << message;
}

TEST(Manifest, RefusalsNameThePath) {
  temp_directory base;
  std::string message;
  EXPECT_EQ(open_database_directory("", message), status::invalid_argument);

  const fs::path foreign = base.path() / "foreign";
  fs::create_directory(foreign);
  write_bytes(foreign / "notes.txt", "hello");
  EXPECT_EQ(open_database_directory(foreign, message), status::not_a_database);
  EXPECT_NE(message.find(foreign.string()), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(foreign / "MANIFEST"));

  const fs::path file = base.path() / "plain-file";
  write_bytes(file, "x");
  EXPECT_EQ(open_database_directory(file, message), status::not_a_database);
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;

  const fs::path db = base.path() / "db";
  ASSERT_EQ(open_database_directory(db, message), status::ok);
  const std::string good = read_bytes(db / "MANIFEST");

  const auto other = detail::encode_file_header({{'B', 'R', 'A', 'I', 'D', 'D', 'B', '\0'}, database_format_version + 1, 0});
  write_bytes(db / "MANIFEST", std::string(reinterpret_cast<const char*>(other.data()), other.size()));
  EXPECT_EQ(open_database_directory(db, message), status::format_mismatch);
  EXPECT_NE(message.find((db / "MANIFEST").string()), std::string::npos) << message;

  write_bytes(db / "MANIFEST", "something else entirely, 32 byt");
  EXPECT_EQ(open_database_directory(db, message), status::not_a_database);
  EXPECT_NE(message.find((db / "MANIFEST").string()), std::string::npos) << message;

  write_bytes(db / "MANIFEST", good.substr(0, 20));
  EXPECT_EQ(open_database_directory(db, message), status::not_a_database);

  write_bytes(db / "MANIFEST", good);
  flip_bit(db / "MANIFEST", 29, 3);  // the checksum
  EXPECT_EQ(open_database_directory(db, message), status::corrupt);
  EXPECT_NE(message.find((db / "MANIFEST").string()), std::string::npos) << message;

  write_bytes(db / "MANIFEST", good);
  EXPECT_EQ(open_database_directory(db, message), status::ok) << message;
}

}  // namespace
