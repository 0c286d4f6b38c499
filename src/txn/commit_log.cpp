// The engine's one call into the log. The log (log.hpp: log_buffer, log_manager) is built
// separately; until it is part of the build every database is in memory and `log` is null.
#include "braid/txn/detail/commit_log.hpp"

#if __has_include("braid/txn/log.hpp")
#include "braid/txn/log.hpp"
#include "braid/txn/log_buffer.hpp"
#endif

namespace braid::txn::detail {

status make_durable([[maybe_unused]] log_manager* log, [[maybe_unused]] std::uint64_t commit_ts,
                    [[maybe_unused]] std::span<const write_entry> writes, [[maybe_unused]] std::string_view write_keys) {
#if __has_include("braid/txn/log.hpp")
  if (log == nullptr) return status::ok;
  thread_local log_buffer records;
  records.clear();
  for (const write_entry& write : writes) {
    const std::string_view key = write_keys.substr(write.key_offset, write.key_size);
    const bool existed = write.overwritten != nullptr && !write.overwritten->tombstone;
    const log_op op = write.created->tombstone ? log_op::remove : existed ? log_op::update : log_op::insert;
    records.append(op, write.target->id, write.oid, key, write.created->tombstone ? std::string_view{} : write.created->value());
  }
  const std::uint64_t ticket = log->append_commit(commit_ts, records);
  return log->wait_durable(ticket) == status::ok ? status::ok : status::abort_log_failure;
#else
  return status::ok;
#endif
}

}  // namespace braid::txn::detail
