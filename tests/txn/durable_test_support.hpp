// Helpers for the tests of durable databases (recovery, crash): opening a database directory,
// reading a table whole, the commit blocks of a log segment, and a byte-exact picture of a
// directory (to check that a refused open changed nothing).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "braid/txn/database.hpp"
#include "braid/txn/detail/log_format.hpp"
#include "txn/txn_test_support.hpp"

namespace braid::txn::testing {

inline database_options durable_options(const std::filesystem::path& directory, commit_mode mode,
                                        std::size_t segment_bytes = 64u << 20) {
  database_options options;
  options.directory = directory;
  options.log_mode = mode;
  options.async_interval = std::chrono::milliseconds(2);
  options.log_segment_bytes = segment_bytes;
  return options;
}

// Every visible row of a table, in one read-only snapshot.
inline std::map<std::string, std::string> table_rows(database& db, table_handle table) {
  std::map<std::string, std::string> rows;
  transaction reader = db.begin(isolation::snapshot, access::read_only);
  const status s = reader.scan(table, "", std::numeric_limits<std::size_t>::max(),
                               [&](std::string_view key, std::string_view value) { rows.emplace(key, value); });
  EXPECT_EQ(s, status::ok);
  EXPECT_EQ(reader.commit(), status::ok);
  return rows;
}

// The rows of every named table (a table the database does not have reads as absent).
using database_rows = std::map<std::string, std::map<std::string, std::string>>;
inline database_rows all_rows(database& db, const std::vector<std::string>& tables) {
  database_rows rows;
  for (const std::string& name : tables) {
    table_handle table;
    if (db.find_table(name, table) == status::ok) rows[name] = table_rows(db, table);
  }
  return rows;
}

inline std::vector<std::filesystem::path> log_segments(const std::filesystem::path& directory) {
  return files_with_prefix(directory, "log-");
}

// One intact commit block of a segment: where it is and the records it holds.
struct block_extent {
  std::uint64_t begin = 0, end = 0;  // byte offsets in the segment file
  std::uint64_t commit_ts = 0;
  std::vector<detail::decoded_record> records;  // views into the bytes scanned
};

// The intact blocks of a segment held in `bytes` (read as the log's last segment).
inline std::vector<block_extent> segment_blocks(const std::string& bytes) {
  std::vector<block_extent> blocks;
  const auto data = detail::as_bytes(bytes);
  const detail::segment_scan scan =
      detail::scan_segment(data, "segment", std::nullopt, true, [&](const detail::scanned_block& block) {
        block_extent extent;
        extent.begin = block.offset;
        extent.end = block.offset + detail::block_overhead_bytes + block.payload.size();
        extent.commit_ts = block.commit_ts;
        detail::for_each_record(block.payload, block.record_count,
                                [&](const detail::decoded_record& record) { extent.records.push_back(record); });
        blocks.push_back(std::move(extent));
      });
  EXPECT_EQ(scan.result, status::ok) << scan.message;
  return blocks;
}

// Every file of a directory with its bytes.
inline std::map<std::string, std::string> directory_bytes(const std::filesystem::path& directory) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    files[entry.path().filename().string()] = read_bytes(entry.path());
  }
  return files;
}

inline void copy_directory(const std::filesystem::path& from, const std::filesystem::path& to) {
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing);
}

inline void truncate_file(const std::filesystem::path& path, std::size_t length) {
  std::filesystem::resize_file(path, length);
}

}  // namespace braid::txn::testing
