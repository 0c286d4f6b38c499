// Checkpoint files: round trips against a reference over many seeds, the newest one wins and
// older ones are removed, a leftover temporary file is ignored, every kind of damage (a bit
// flip anywhere, a cut anywhere, another version) is reported naming the file, argument checks.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "braid/txn/checkpoint.hpp"
#include "braid/txn/detail/checkpoint_format.hpp"
#include "txn/txn_test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace braid::txn;
using namespace braid::txn::testing;

struct contents {
  std::map<std::uint32_t, std::string> tables;
  std::vector<std::tuple<std::uint32_t, std::uint64_t, std::string, std::string>> rows;
  bool operator==(const contents&) const = default;
};

contents random_contents(std::uint64_t seed) {
  std::mt19937_64 random(seed);
  contents c;
  const std::size_t tables = random() % 5;
  for (std::size_t index = 0; index < tables; ++index) c.tables[static_cast<std::uint32_t>(random())] = random_bytes(random, 20);
  for (const auto& [id, name] : c.tables) {
    const std::size_t rows = random() % 60;
    for (std::size_t row = 0; row < rows; ++row) c.rows.emplace_back(id, random(), random_bytes(random, 30), random_bytes(random, 300));
  }
  return c;
}

status write_checkpoint(const fs::path& directory, std::uint64_t ts, const contents& c) {
  std::unique_ptr<checkpoint_writer> writer;
  if (status s = checkpoint_writer::begin(directory, ts, writer); s != status::ok) return s;
  for (const auto& [id, name] : c.tables) EXPECT_EQ(writer->add_table(id, name), status::ok);
  for (const auto& [id, oid, key, value] : c.rows) EXPECT_EQ(writer->add_row(id, oid, key, value), status::ok);
  return writer->commit();
}

status load(const fs::path& directory, contents& out, std::uint64_t& ts, std::string& message) {
  out = contents{};
  checkpoint_visitor visit;
  visit.table = [&](std::uint32_t id, std::string_view name) { out.tables[id] = std::string(name); };
  visit.row = [&](std::uint32_t id, std::uint64_t oid, std::string_view key, std::string_view value) {
    out.rows.emplace_back(id, oid, std::string(key), std::string(value));
  };
  return load_checkpoint(directory, visit, ts, message);
}

TEST(Checkpoint, NoneIsTimestampZero) {
  temp_directory directory;
  contents loaded;
  std::uint64_t ts = 99;
  std::string message;
  EXPECT_EQ(load(directory.path(), loaded, ts, message), status::ok);
  EXPECT_EQ(ts, 0u);
  EXPECT_EQ(loaded, contents{});
}

TEST(Checkpoint, RoundTripManySeedsAndOnlyTheNewestStays) {
  temp_directory directory;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const contents c = random_contents(seed);
    ASSERT_EQ(write_checkpoint(directory.path(), seed * 10, c), status::ok);
    contents loaded;
    std::uint64_t ts = 0;
    std::string message;
    ASSERT_EQ(load(directory.path(), loaded, ts, message), status::ok) << message;
    EXPECT_EQ(ts, seed * 10);
    EXPECT_EQ(loaded, c) << seed;
    EXPECT_EQ(files_with_prefix(directory.path(), "checkpoint-").size(), 1u);
  }
}

TEST(Checkpoint, LargeCheckpointCrossesTheWriteBuffer) {
  temp_directory directory;
  contents c;
  c.tables[1] = "big";
  for (std::uint64_t row = 0; row < 5000; ++row) c.rows.emplace_back(1, row, "key" + std::to_string(row), std::string(700, static_cast<char>(row)));
  ASSERT_EQ(write_checkpoint(directory.path(), 5, c), status::ok);
  contents loaded;
  std::uint64_t ts = 0;
  std::string message;
  ASSERT_EQ(load(directory.path(), loaded, ts, message), status::ok) << message;
  EXPECT_EQ(loaded, c);
}

TEST(Checkpoint, LeftoverTemporaryFileIsIgnoredAndAbandonedWriterLeavesNothing) {
  temp_directory directory;
  const contents c = random_contents(3);
  ASSERT_EQ(write_checkpoint(directory.path(), 10, c), status::ok);
  // A crash between writing the temporary file and the rename: garbage under the .tmp name.
  write_bytes(directory.path() / (detail::checkpoint_file_name(20) + ".tmp"), "half a checkpoint");
  {
    std::unique_ptr<checkpoint_writer> writer;
    ASSERT_EQ(checkpoint_writer::begin(directory.path(), 30, writer), status::ok);
    ASSERT_EQ(writer->add_table(1, "t"), status::ok);
    // Destroyed without commit.
  }
  EXPECT_FALSE(fs::exists(directory.path() / (detail::checkpoint_file_name(30) + ".tmp")));
  contents loaded;
  std::uint64_t ts = 0;
  std::string message;
  ASSERT_EQ(load(directory.path(), loaded, ts, message), status::ok) << message;
  EXPECT_EQ(ts, 10u);
  EXPECT_EQ(loaded, c);
  // The next commit removes the older leftover.
  ASSERT_EQ(write_checkpoint(directory.path(), 40, c), status::ok);
  EXPECT_EQ(files_with_prefix(directory.path(), "checkpoint-"),
            std::vector<fs::path>{directory.path() / detail::checkpoint_file_name(40)});
}

TEST(Checkpoint, ArgumentsAreChecked) {
  temp_directory directory;
  std::unique_ptr<checkpoint_writer> writer;
  EXPECT_EQ(checkpoint_writer::begin(directory.path() / "absent", 1, writer), status::io_error);
  ASSERT_EQ(write_checkpoint(directory.path(), 50, contents{}), status::ok);
  EXPECT_EQ(checkpoint_writer::begin(directory.path(), 49, writer), status::invalid_argument);  // older than the newest
  ASSERT_EQ(checkpoint_writer::begin(directory.path(), 60, writer), status::ok);
  EXPECT_EQ(writer->add_row(1, 1, "k", "v"), status::invalid_argument);  // table not added
  EXPECT_EQ(writer->add_table(1, "t"), status::ok);
  EXPECT_EQ(writer->add_table(1, "again"), status::invalid_argument);
  EXPECT_EQ(writer->add_row(1, 1, "k", "v"), status::ok);
  EXPECT_EQ(writer->commit(), status::ok);
  EXPECT_EQ(writer->commit(), status::invalid_argument);
  EXPECT_EQ(writer->add_row(1, 2, "k", "v"), status::invalid_argument);
}

TEST(Checkpoint, EveryBitFlipAndEveryCutIsCorruptNamingTheFile) {
  temp_directory source;
  contents c;
  c.tables[4] = "users";
  c.tables[9] = "orders";
  c.rows = {{4, 1, "alice", "1"}, {9, 2, "o-1", std::string(40, 'x')}, {4, 3, "bob", ""}};
  ASSERT_EQ(write_checkpoint(source.path(), 77, c), status::ok);
  const std::string name = detail::checkpoint_file_name(77);
  const std::string whole = read_bytes(source.path() / name);
  std::mt19937_64 random(5);
  for (std::size_t offset = 0; offset < whole.size(); ++offset) {
    temp_directory copy;
    write_bytes(copy.path() / name, whole);
    flip_bit(copy.path() / name, offset, static_cast<int>(random() % 8));
    contents loaded;
    std::uint64_t ts = 0;
    std::string message;
    const status s = load(copy.path(), loaded, ts, message);
    // A flip in the version field reads as another format version; anything else is corrupt.
    EXPECT_TRUE(s == status::corrupt || (s == status::format_mismatch && offset >= 8 && offset < 12)) << offset;
    EXPECT_NE(message.find((copy.path() / name).string()), std::string::npos) << message;
    EXPECT_EQ(loaded, contents{}) << "a bad checkpoint delivers nothing";
  }
  for (std::size_t length = 0; length < whole.size(); ++length) {
    temp_directory copy;
    write_bytes(copy.path() / name, whole.substr(0, length));
    contents loaded;
    std::uint64_t ts = 0;
    std::string message;
    EXPECT_EQ(load(copy.path(), loaded, ts, message), status::corrupt) << length;
    EXPECT_NE(message.find(name), std::string::npos) << message;
  }
  // Bytes after the end entry.
  temp_directory copy;
  write_bytes(copy.path() / name, whole + "x");
  contents loaded;
  std::uint64_t ts = 0;
  std::string message;
  EXPECT_EQ(load(copy.path(), loaded, ts, message), status::corrupt);
}

TEST(Checkpoint, CorruptNewestIsReportedNotSkippedAndAnOlderOneIsNamed) {
  temp_directory directory;
  ASSERT_EQ(write_checkpoint(directory.path(), 10, random_contents(1)), status::ok);
  const std::string older = read_bytes(directory.path() / detail::checkpoint_file_name(10));
  ASSERT_EQ(write_checkpoint(directory.path(), 20, random_contents(2)), status::ok);
  write_bytes(directory.path() / detail::checkpoint_file_name(10), older);  // as if its removal had not happened
  flip_bit(directory.path() / detail::checkpoint_file_name(20), 40, 1);
  contents loaded;
  std::uint64_t ts = 0;
  std::string message;
  EXPECT_EQ(load(directory.path(), loaded, ts, message), status::corrupt);
  EXPECT_EQ(ts, 0u);
  EXPECT_NE(message.find(detail::checkpoint_file_name(20)), std::string::npos) << message;
  EXPECT_NE(message.find(detail::checkpoint_file_name(10)), std::string::npos) << message;
}

TEST(Checkpoint, FileNameAndHeaderTimestampMustAgree) {
  temp_directory directory;
  ASSERT_EQ(write_checkpoint(directory.path(), 10, random_contents(1)), status::ok);
  fs::rename(directory.path() / detail::checkpoint_file_name(10), directory.path() / detail::checkpoint_file_name(11));
  contents loaded;
  std::uint64_t ts = 0;
  std::string message;
  EXPECT_EQ(load(directory.path(), loaded, ts, message), status::corrupt);
}

}  // namespace
