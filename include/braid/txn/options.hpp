// options: the choices a database and a transaction are opened with, and the engine's size
// limits.
//
//   braid::txn::database_options options;            // empty directory: in memory
//   options.directory = "orders.db";                  // durable: log + checkpoints in it
//   options.log_mode = braid::txn::commit_mode::sync;
//   options.default_isolation = braid::txn::isolation::serializable;
//   auto tx = db->begin(braid::txn::isolation::snapshot, braid::txn::access::read_only);
//
// Limits (checked by every operation; over a limit is status::invalid_argument and nothing
// happens): a key is 1..max_key_bytes bytes (the empty key is invalid), a value is
// 0..max_value_bytes bytes, a table has at most max_indexes_per_table secondary indexes, and at
// most max_transactions transactions are open at once (begin waits for a free slot beyond).
#pragma once

#include <cstddef>
#include <cstdint>
#include <chrono>
#include <filesystem>

namespace braid::txn {

inline constexpr std::size_t max_key_bytes = 1024;
inline constexpr std::size_t max_value_bytes = 64 * 1024;
inline constexpr std::size_t max_indexes_per_table = 8;
inline constexpr std::size_t max_transactions = 256;

// snapshot: snapshot isolation (first-updater-wins). serializable: snapshot isolation plus the
// Serial Safety Net certifier, which aborts a transaction that could close a dependency cycle.
enum class isolation : std::uint8_t { snapshot, serializable };

// read_only: no writes (they return status::read_only_violation); under snapshot isolation
// such a transaction never takes a commit timestamp.
enum class access : std::uint8_t { read_write, read_only };

// When a commit is durable (databases with a directory; log.hpp has the details):
//   sync   commit() returns after the fdatasync covering its log record (group commit: one
//          fdatasync covers every transaction that appended meanwhile).
//   async  commit() returns at once; the record is on disk within async_interval.
//   none   nothing is written (CoroBase's null log device: commits and bytes are counted);
//          only checkpoints survive a reopen.
enum class commit_mode : std::uint8_t { sync, async, none };

// Where an operation run in an interleaved mode prefetches and suspends (CoroBase §4.2: the
// engine guesses where a dereference misses; these are its guesses). A place turned off is
// read in place, with neither prefetch nor suspension: for data that stays cached (a small
// table's index, a chain a read-modify-write has just read), where switching only costs.
// The sequential mode never suspends, whatever these say.
struct suspension_points {
  bool index_nodes = true;        // every index node a probe visits (inner, border, suffix)
  bool indirection_entry = true;  // the record's entry in its table's indirection array
  bool version_headers = true;    // each version a read passes on the record's chain
  bool write_chain = true;        // a write's entry and newest version before it installs
  bool operator==(const suspension_points&) const = default;
};

struct database_options {
  std::filesystem::path directory;  // empty: in memory, no durability (the log options are unused)
  isolation default_isolation = isolation::snapshot;
  commit_mode log_mode = commit_mode::sync;
  std::chrono::milliseconds async_interval{10};  // async: > 0
  std::size_t log_segment_bytes = 64u << 20;     // > 0: a new log segment file after this many bytes
  // > 0: a background thread writes a checkpoint this often (and truncates the log behind it);
  // 0: only database::checkpoint() writes one.
  std::chrono::milliseconds checkpoint_interval{0};
  suspension_points suspend_at;  // interleaved operations: where they suspend (default: everywhere)
};

}  // namespace braid::txn
