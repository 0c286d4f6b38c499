// log: braid's redo log — the log manager that makes commits durable, and replay_log, which
// reads the log back at recovery.
//
//   std::unique_ptr<braid::txn::log_manager> log;
//   replay_log(dir, checkpoint_ts, apply, report);       // first: recovery (cuts a torn tail)
//   log_manager::open({.directory = dir, .mode = commit_mode::sync}, log);   // then: appends
//   std::uint64_t ticket = log->append_commit(commit_ts, records);
//   if (log->wait_durable(ticket) != status::ok) ...     // io_error: the log is unusable
//
// Order at open: replay_log, then log_manager::open. open also checks every segment (reading
// the whole log once more) and cuts a torn tail itself, so it is safe without a replay, but a
// corrupt log makes it fail; each open starts a new segment, numbered after the last one.
//
// Writing (log_manager): append_commit encodes one commit block (log_format.hpp) with the
// checksums computed outside any lock, then copies it into a central buffer under a short
// mutex and gets a ticket (the log position just past the block). One flusher thread swaps the
// buffer out, writes it to the current segment with one write per segment, fdatasyncs and then
// publishes the durable position. Committers keep appending while it writes and syncs, so the
// next fdatasync covers everything appended meanwhile: that is the group commit.
//   sync   wait_durable blocks until an fdatasync covering the ticket has returned (it yields
//          the processor a few dozen times before it sleeps on a condition variable).
//   async  the flusher writes and fdatasyncs whenever async_interval has passed with something
//          appended (or 4 MiB is waiting); wait_durable returns at once.
//   none   nothing is written, not even a segment: append_commit counts commits and bytes and
//          drops them (CoroBase's null log device). flush and wait_durable return ok.
// A block goes into the next segment when it would take the current one past segment_bytes
// (a single larger block gets a segment of its own). truncate_through removes the oldest
// closed segments while every block in them has commit_ts <= the checkpoint's (a prefix only,
// so segment numbers stay consecutive and a missing segment is detectable); never the one
// being written. A write or fdatasync failure makes the log unusable for good: from then on
// wait_durable (for a block not already durable) and flush return io_error, and nothing more
// is written (append_commit still returns a ticket, which never becomes durable).
//
// Reading (replay_log): every segment in number order, each read whole into memory and checked
// as log_format.hpp describes; records are delivered in log order, filtered by each block's
// commit_ts (blocks may be slightly out of commit_ts order: concurrent committers append in
// the order they reach the buffer, and the engine orders conflicting ones). A torn tail ends
// the replay and is cut off the file (truncate + fdatasync; a segment torn inside its header
// is removed), so the next open appends after the last good block. A corrupt block returns
// corrupt; records of earlier blocks have been delivered by then, so the caller must discard
// what it built.
//
// Complexity: append_commit O(block bytes) (two CRC passes and a copy); replay and open O(log
// bytes). Memory: the central buffer holds what the flusher has not taken yet; replay holds
// one segment.
// Limits: a block's payload is at most 4 GiB - 1 bytes; tickets count bytes since open.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "braid/txn/detail/file_io.hpp"
#include "braid/txn/log_buffer.hpp"
#include "braid/txn/options.hpp"
#include "braid/txn/status.hpp"

namespace braid::txn {

struct log_options {
  std::filesystem::path directory;                 // the database directory (log files inside)
  commit_mode mode = commit_mode::sync;
  std::chrono::milliseconds async_interval{10};    // async: durable within this bound
  std::size_t segment_bytes = 64u << 20;           // a new segment file after this many bytes
};

struct log_stats {
  std::uint64_t commits, bytes, fsyncs;  // bytes: commit blocks as encoded; fsyncs: of segment files
};

class log_manager {
 public:
  // Opens (creating if needed) the log in options.directory. Returns ok, invalid_argument
  // (empty directory path, zero segment_bytes or async_interval), io_error, corrupt or
  // format_mismatch; message (second form) says why.
  static status open(const log_options& options, std::unique_ptr<log_manager>& out);
  static status open(const log_options& options, std::unique_ptr<log_manager>& out, std::string& message);
  ~log_manager();  // flushes what was appended (not in none)
  log_manager(const log_manager&) = delete;
  log_manager& operator=(const log_manager&) = delete;

  // Gives the transaction's records their place in the log as one commit block stamped with
  // commit_ts, and returns a ticket. Thread-safe; cheap (a copy into the central buffer).
  // In mode none the bytes are counted and dropped.
  std::uint64_t append_commit(std::uint64_t commit_ts, const log_buffer& records);
  // sync: blocks until the ticket's block is on disk (group commit); async / none: at once.
  status wait_durable(std::uint64_t ticket);
  status flush();  // everything appended so far is durable
  // After a checkpoint at checkpoint_ts: deletes segments whose every block has commit_ts <= it.
  status truncate_through(std::uint64_t checkpoint_ts);
  [[nodiscard]] log_stats stats() const noexcept;
  [[nodiscard]] commit_mode mode() const noexcept { return options_.mode; }
  [[nodiscard]] std::uint64_t max_commit_ts() const noexcept { return max_commit_ts_.load(std::memory_order_acquire); }
  // The ticket position up to which every block is durable (sync, async); what a caller that
  // does not want to block can poll instead of wait_durable.
  [[nodiscard]] std::uint64_t durable_ticket() const noexcept { return durable_.load(std::memory_order_acquire); }
  // The reason of the failure that made the log unusable (empty while it is usable).
  [[nodiscard]] std::string failure_message() const;

 private:
  struct block_end {
    std::size_t end;  // offset just past the block in the batch
    std::uint64_t commit_ts;
  };
  struct batch {
    std::vector<std::byte> bytes;
    std::vector<block_end> blocks;
  };
  struct closed_segment {
    std::uint64_t number;
    std::uint64_t max_commit_ts;
  };

  explicit log_manager(const log_options& options);
  status recover_segments(std::string& message);
  status start_segment(std::uint64_t number, std::string& message);
  void flusher_loop();
  status write_batch(const batch& pending, std::string& message);
  status write_run(std::span<const std::byte> bytes, std::string& message);
  status roll_over(std::string& message);
  void fail(std::string message);
  void publish_durable(std::uint64_t position);
  [[nodiscard]] std::filesystem::path segment_path(std::uint64_t number) const;

  log_options options_;

  // The central buffer: appended under buffer_mutex_; the flusher swaps it out.
  mutable std::mutex buffer_mutex_;
  std::condition_variable flusher_wakeup_;
  batch pending_;
  std::uint64_t appended_ = 0;       // ticket of the last appended block
  std::uint64_t flush_target_ = 0;   // flush() asks the flusher to sync through this at once
  bool stopping_ = false;

  // Durability, published by the flusher.
  std::atomic<std::uint64_t> durable_{0};
  std::atomic<bool> failed_{false};
  mutable std::mutex durable_mutex_;
  std::condition_variable durable_changed_;
  std::string failure_;  // guarded by durable_mutex_

  // Segments: the current one is written by the flusher only; closed_ is shared with truncate_through.
  std::mutex segments_mutex_;
  std::deque<closed_segment> closed_;
  detail::unique_fd current_file_;
  std::uint64_t current_number_ = 0;
  std::uint64_t current_bytes_ = 0;
  std::uint64_t current_blocks_ = 0;
  std::uint64_t current_max_ts_ = 0;

  std::atomic<std::uint64_t> commits_{0};
  std::atomic<std::uint64_t> bytes_{0};
  std::atomic<std::uint64_t> fsyncs_{0};
  std::atomic<std::uint64_t> max_commit_ts_{0};
  std::thread flusher_;
};

// Reading. One record as replay delivers it (views valid during the callback only).
struct log_record_view {
  std::uint64_t commit_ts;
  log_op op;
  std::uint32_t table_id;
  std::uint64_t oid;
  std::string_view key;
  std::string_view value;
};

// blocks and records count what was delivered (commit_ts > after_ts); max_commit_ts is over
// every intact block, delivered or not.
struct replay_report {
  std::uint64_t blocks = 0, records = 0, max_commit_ts = 0;
  bool torn_tail = false;
  std::string message;
};

// Calls visit for every record of every complete commit block with commit_ts > after_ts, in
// log order. A torn or checksum-failing block at the very end of the last segment ends the
// replay there (torn_tail = true, message says where; status ok) and the log is cut back to the
// last good block so that new appends follow it; a bad block anywhere else is status::corrupt
// with the message naming the file and byte offset. A directory without segments (or absent)
// is an empty log. Also io_error (message names the file), format_mismatch.
status replay_log(const std::filesystem::path& directory, std::uint64_t after_ts,
                  const std::function<void(const log_record_view&)>& visit, replay_report& report);

}  // namespace braid::txn
