// commit_log: the one place where a committing transaction reaches the log. The engine calls
// make_durable after it has taken its commit timestamp and passed certification, and makes
// its versions visible only after it returns ok; anything else aborts the transaction with
// status::abort_log_failure. With no log (an in-memory database) it returns ok at once.
// Readers that need the outcome of a transaction inside this call wait for it.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "braid/txn/detail/engine.hpp"
#include "braid/txn/status.hpp"

namespace braid::txn::detail {

status make_durable(log_manager* log, std::uint64_t commit_ts, std::span<const write_entry> writes,
                    std::string_view write_keys);

}  // namespace braid::txn::detail
