// database: braid's multi-version transactional key-value store (the engine of CoroBase and
// ERMIA: tables of records addressed by OID through an indirection array, newest-first
// version chains, snapshot isolation, the Serial Safety Net for serializability).
//
//   std::unique_ptr<braid::txn::database> db;
//   std::string message;
//   braid::txn::database::open({}, db, message);           // empty directory: in memory
//   braid::txn::database::open({.directory = "shop.db"}, db, message);   // durable
//   braid::txn::table_handle users;
//   db->create_table("users", users);
//   braid::txn::transaction tx = db->begin();
//   tx.insert(users, "alice", "{\"age\": 30}");
//   tx.commit();
//
// Tables map variable-length keys (1..max_key_bytes) to values (0..max_value_bytes); a table
// has a primary index (Masstree, key -> OID) and up to max_indexes_per_table secondary
// indexes, declared with a key extractor (BerkeleyDB's `associate`): create_index builds the
// index from the table's contents and every later write maintains it. Declare indexes again
// at every open. Secondary keys are unique: an application that needs duplicates appends the
// primary key to the secondary key. Index entries are never deleted: an update that changes
// a record's secondary key, or an aborted write, leaves a stale entry that readers filter
// out (they compare the visible value's secondary key with the searched one); memory of
// stale entries is not reclaimed (known limit). Writing a secondary key that another live
// record has repoints the entry to the newer writer.
//
// Durability (a directory in the options): the directory holds MANIFEST (manifest.hpp), the
// log segments (log.hpp) and the newest checkpoint (checkpoint.hpp). open creates an empty or
// absent directory as a new database; otherwise it recovers: loads the newest checkpoint,
// replays the log after it (rebuilding indirection arrays and indexes), sets the clock past
// the newest commit, and opens the log for appends. A torn record at the log's tail (a crash
// while writing) ends the replay there: open succeeds and `message` says where it was cut.
// Anything else wrong is an error status with `message` naming the file: not_a_database,
// format_mismatch, corrupt (a bad checkpoint, or a bad record before the tail), io_error.
// A directory is open in one database object at a time (an exclusive flock on MANIFEST,
// held until the database is destroyed): a second open, in this process or another, is
// in_use. After abort_log_failure the log is unusable: the transaction is not visible in
// this session, but its record may have reached the disk before the failure, so a reopen
// may find it committed (as after an I/O error at commit in other engines: the outcome is
// unknown to the application; nothing acknowledged is lost).
// Creating a table is logged and durable when create_table returns (in sync and async mode);
// secondary indexes are not stored: declare them again after every open (they are rebuilt
// from the table). checkpoint() writes a consistent snapshot while transactions keep running
// (a read-only snapshot transaction) and then deletes the log segments it covers.
//
// Recovery hooks (used only while opening, before any transaction runs): create_table_with_id,
// install_committed and set_clock; visit_snapshot for checkpoints (safe while transactions run).
//
// Thread safety: every member may be called from any thread; transactions run concurrently.
// Known limits: tables and indexes are never dropped; recovery holds the whole database in
// memory (it is a main-memory engine) and reads each log segment whole.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <memory>
#include <string>
#include <string_view>

#include "braid/txn/detail/engine.hpp"
#include "braid/txn/log.hpp"
#include "braid/txn/options.hpp"
#include "braid/txn/status.hpp"
#include "braid/txn/transaction.hpp"

namespace braid::txn {

class database {
 public:
  // ok (message: empty, or where a torn log tail was cut), invalid_argument (bad options),
  // in_use, not_a_database, format_mismatch, corrupt, io_error; message says why.
  static status open(const database_options& options, std::unique_ptr<database>& out, std::string& message);
  database(const database&) = delete;
  database& operator=(const database&) = delete;
  // Stops the background checkpointer and flushes the log. Precondition: no transaction of
  // this database is open.
  ~database();

  status create_table(std::string_view name, table_handle& out);
  status find_table(std::string_view name, table_handle& out) const;
  status create_index(table_handle table, std::string_view name, key_extractor extract, index_handle& out);
  status find_index(table_handle table, std::string_view name, index_handle& out) const;

  [[nodiscard]] transaction begin() { return begin(engine_->options.default_isolation, access::read_write); }
  [[nodiscard]] transaction begin(isolation level, access mode = access::read_write) {
    return transaction(*engine_, level, mode);
  }

  // ---- durability ----
  // Writes a checkpoint of every table at a snapshot taken now, then truncates the log behind
  // it. invalid_argument for an in-memory database; io_error with message naming the file.
  status checkpoint(std::string& message);
  // Log counters since open (all zero in memory).
  [[nodiscard]] log_stats log_statistics() const noexcept;
  // Why the background checkpointer last failed (empty if it never did).
  [[nodiscard]] std::string checkpoint_failure() const;
  [[nodiscard]] bool is_durable() const noexcept { return log_ != nullptr; }

  // ---- recovery hooks ----
  status create_table_with_id(std::uint32_t id, std::string_view name, table_handle& out);
  // Installs a committed version (a value, or a tombstone) as the record's only version,
  // bypassing transactions (older versions are dropped: no snapshot can be open during
  // recovery); raises the clock to commit_ts.
  status install_committed(std::uint32_t table_id, std::uint64_t oid, std::string_view key, std::string_view value,
                           bool tombstone, std::uint64_t commit_ts);
  void set_clock(std::uint64_t timestamp) noexcept;
  // Calls table(id, name) for every table, then row(table id, oid, key, value) for every record
  // visible at a snapshot taken now (a read-only transaction); snapshot_ts is its timestamp.
  status visit_snapshot(const std::function<void(std::uint32_t, std::string_view)>& table,
                        const std::function<void(std::uint32_t, std::uint64_t, std::string_view, std::string_view)>& row,
                        std::uint64_t& snapshot_ts);

  // ---- introspection ----
  [[nodiscard]] std::uint64_t clock() const noexcept { return engine_->clock.load(std::memory_order_acquire); }
  // Versions allocated and not yet unlinked (garbage retired but not yet freed excluded).
  [[nodiscard]] std::int64_t live_versions() const noexcept {
    return engine_->live_versions.load(std::memory_order_relaxed);
  }
  // Bytes of version memory not yet freed (retired versions included until reclaimed).
  [[nodiscard]] std::uint64_t version_bytes() const { return engine_->versions.statistics().allocated_bytes; }
  // Recomputes the garbage collector's horizon and reclaims what this thread retired.
  void collect_garbage();

 private:
  explicit database(const database_options& options) : engine_(std::make_unique<detail::engine>(options)) {}
  status add_table(std::uint32_t id, std::string_view name, table_handle& out);
  status lock_directory(std::string& message);
  status recover(std::string& message);
  status log_table_creation(const detail::table& created);
  void checkpointer_loop();

  detail::unique_fd directory_lock_;  // durable: MANIFEST, flocked (released last)
  std::unique_ptr<detail::engine> engine_;
  std::unique_ptr<log_manager> log_;  // null in memory
  std::mutex checkpoint_mutex_;       // one checkpoint at a time
  // The background checkpointer (checkpoint_interval > 0).
  mutable std::mutex checkpointer_mutex_;
  std::condition_variable checkpointer_wakeup_;
  bool stopping_ = false;
  std::string checkpoint_failure_;
  std::thread checkpointer_;
};

}  // namespace braid::txn
