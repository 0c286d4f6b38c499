// status: what every operation of braid's transaction engine (txn/) returns. The engine
// reports outcomes as values, never as exceptions on the hot path: a read of an absent key,
// a write-write conflict and a failed fsync are all a `status`.
//
//   braid::txn::status s = tx.get(users, "alice", value);
//   if (s == braid::txn::status::not_found) { ... }
//   if (braid::txn::is_abort(s)) { ... the transaction is over; start it again ... }
//   std::puts(braid::txn::describe(s));
//
// Groups: `ok` and the two answers of a lookup (not_found, already_exists); the abort reasons
// (after one of these the transaction has been rolled back and only its destruction or
// commit — which returns the same reason — remains); argument errors (nothing happened);
// storage errors (the database refused to open, or the disk failed).
#pragma once

#include <cstdint>

namespace braid::txn {

enum class status : std::uint8_t {
  ok,
  not_found,       // the key has no version visible to the transaction
  already_exists,  // insert of a key that has a visible version

  // Aborts: the transaction was rolled back.
  abort_write_conflict,  // first-updater-wins: another transaction wrote the record after our snapshot
  abort_serialization,   // the SSN certifier found a possible dependency cycle
  abort_user,            // the application called abort()
  abort_log_failure,     // the commit record could not be made durable (the log is unusable)

  // Argument errors: nothing happened.
  invalid_argument,    // a key or value over the limits, an empty key, a transaction that is over
  unknown_table,       // no table or index of that name or handle
  table_exists,        // create_table of a name that is taken
  read_only_violation, // a write in a transaction begun read-only

  // Storage errors.
  not_a_database,      // the directory holds files, but not a braid database
  format_mismatch,     // a braid database of another format version
  corrupt,             // a checksum or structure check failed where data must be intact
  io_error,            // the operating system refused a read, write, fsync or rename
  in_use,              // the directory is open already (by this process or another)
};

// True for the statuses after which the transaction has been rolled back.
constexpr bool is_abort(status s) noexcept {
  return s == status::abort_write_conflict || s == status::abort_serialization || s == status::abort_user ||
         s == status::abort_log_failure;
}

// A short, stable, human-readable name ("ok", "not found", "aborted: write-write conflict", ...).
constexpr const char* describe(status s) noexcept {
  switch (s) {
    case status::ok: return "ok";
    case status::not_found: return "not found";
    case status::already_exists: return "already exists";
    case status::abort_write_conflict: return "aborted: write-write conflict";
    case status::abort_serialization: return "aborted: serialization failure (SSN)";
    case status::abort_user: return "aborted by the application";
    case status::abort_log_failure: return "aborted: the log could not be written";
    case status::invalid_argument: return "invalid argument";
    case status::unknown_table: return "unknown table or index";
    case status::table_exists: return "table exists";
    case status::read_only_violation: return "write in a read-only transaction";
    case status::not_a_database: return "not a braid database";
    case status::format_mismatch: return "braid database of another format version";
    case status::corrupt: return "corrupt data";
    case status::io_error: return "I/O error";
    case status::in_use: return "database directory in use";
  }
  return "unknown status";
}

}  // namespace braid::txn
