// commit_log: the one place where a committing transaction reaches the log. The engine calls
// append_commit_record after it has taken its commit timestamp and passed certification; it
// returns the record's ticket (0: no log, nothing to wait for). The transaction makes its
// versions visible only after await_commit_record returned ok; otherwise it aborts with
// status::abort_log_failure. Readers that need the outcome of a transaction whose record is
// in the log wait with await_commit_record too (the disk decides it, not the owner's thread).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "braid/txn/detail/engine.hpp"
#include "braid/txn/status.hpp"

namespace braid::txn::detail {

std::uint64_t append_commit_record(log_manager* log, std::uint64_t commit_ts, std::span<const write_entry> writes,
                                   std::string_view write_keys);
// ok once the ticket's record is durable (at once for ticket 0 or a log that does not sync);
// io_error if the log failed first.
status await_commit_record(log_manager* log, std::uint64_t ticket);
// Whether await_commit_record would return without waiting.
bool commit_record_durable(const log_manager* log, std::uint64_t ticket) noexcept;

}  // namespace braid::txn::detail
