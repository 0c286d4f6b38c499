// checkpoint: a durable snapshot of the database — every table's catalog entry and every row
// visible at a checkpoint timestamp — so that recovery replays only the log after it.
//
//   std::unique_ptr<braid::txn::checkpoint_writer> writer;
//   checkpoint_writer::begin(dir, ts, writer);
//   writer->add_table(1, "users");  writer->add_row(1, oid, key, value);  ...
//   writer->commit();                          // now the newest checkpoint; older ones are gone
//   log->truncate_through(ts);
//
//   load_checkpoint(dir, {.table = ..., .row = ...}, checkpoint_ts, message);
//
// File: "checkpoint-<20-digit decimal ts>.braidckpt" in the database directory, written as
// "<that>.tmp", fdatasynced, renamed into place (atomic), the directory fsynced; then older
// checkpoints and older leftover temporary files are removed (and the directory fsynced again).
// A crash at any point leaves either the old or the new checkpoint as the newest complete one;
// a leftover .tmp file is never read. Layout (detail/checkpoint_format.hpp): file header
// (magic "BRAIDCKP", version, number = checkpoint_ts), then entries, each with its own CRC-32C,
// ending with an end entry that counts the entries before it; nothing may follow it.
//
// load_checkpoint reads the newest checkpoint twice, streaming: first it checks every checksum
// and the structure, then it calls the visitor, so a corrupt checkpoint delivers nothing. It
// returns corrupt (format_mismatch for another version) with a message naming the file, and
// does not fall back to an older checkpoint: the message says whether an older one is still
// present (commit removes them, so normally none is).
//
// Complexity: add_* O(key + value) amortized (a 1 MiB write buffer); commit O(1) plus three
// syncs; load O(file) with O(largest entry) memory.
// Limits: one writer at a time per directory; keys, values and names under 4 GiB; a checkpoint
// older than the newest present is refused (invalid_argument at begin). Not thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "braid/txn/detail/file_io.hpp"
#include "braid/txn/status.hpp"

namespace braid::txn {

class checkpoint_writer {
 public:
  // ok, invalid_argument (a newer checkpoint exists), io_error (e.g. no such directory).
  static status begin(const std::filesystem::path& directory, std::uint64_t checkpoint_ts,
                      std::unique_ptr<checkpoint_writer>& out);
  ~checkpoint_writer();  // without a successful commit: the temporary file is removed
  checkpoint_writer(const checkpoint_writer&) = delete;
  checkpoint_writer& operator=(const checkpoint_writer&) = delete;

  // invalid_argument: a table id given twice, a row of a table not added, or after commit /
  // a failure; io_error from the disk (the writer is then unusable).
  status add_table(std::uint32_t table_id, std::string_view name);
  status add_row(std::uint32_t table_id, std::uint64_t oid, std::string_view key, std::string_view value);
  status commit();  // durable and the newest checkpoint after this returns ok
  // Why the last call failed (names the file).
  [[nodiscard]] const std::string& message() const noexcept { return message_; }

 private:
  checkpoint_writer() = default;
  status add_entry(std::uint8_t kind, std::uint32_t table_id, std::uint64_t oid, std::string_view key,
                   std::string_view value);
  status write_buffer();
  status usable();
  void remove_older_files();

  enum class state : std::uint8_t { writing, committed, failed };
  std::filesystem::path directory_;
  std::filesystem::path temp_path_;
  std::filesystem::path final_path_;
  std::uint64_t checkpoint_ts_ = 0;
  detail::unique_fd file_;
  std::vector<std::byte> buffer_;
  std::uint64_t entries_ = 0;
  std::unordered_set<std::uint32_t> tables_;
  state state_ = state::writing;
  std::string message_;
};

struct checkpoint_visitor {
  std::function<void(std::uint32_t table_id, std::string_view name)> table;
  std::function<void(std::uint32_t table_id, std::uint64_t oid, std::string_view key, std::string_view value)> row;
};

// Loads the newest checkpoint (ok with checkpoint_ts = 0 and no calls when there is none);
// a checkpoint that fails its checksum is status::corrupt with a message naming the file.
status load_checkpoint(const std::filesystem::path& directory, const checkpoint_visitor& visit,
                       std::uint64_t& checkpoint_ts, std::string& message);

}  // namespace braid::txn
