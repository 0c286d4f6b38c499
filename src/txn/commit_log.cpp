#include "braid/txn/detail/commit_log.hpp"

#include "braid/txn/log.hpp"
#include "braid/txn/log_buffer.hpp"

namespace braid::txn::detail {

std::uint64_t append_commit_record(log_manager* log, std::uint64_t commit_ts, std::span<const write_entry> writes,
                                   std::string_view write_keys) {
  if (log == nullptr) return 0;
  thread_local log_buffer records;
  records.clear();
  for (const write_entry& write : writes) {
    const std::string_view key = write_keys.substr(write.key_offset, write.key_size);
    const bool existed = write.overwritten != nullptr && !write.overwritten->tombstone;
    const log_op op = write.created->tombstone ? log_op::remove : existed ? log_op::update : log_op::insert;
    records.append(op, write.target->id, write.oid, key, write.created->tombstone ? std::string_view{} : write.created->value());
  }
  return log->append_commit(commit_ts, records);
}

status await_commit_record(log_manager* log, std::uint64_t ticket) {
  if (log == nullptr || ticket == 0) return status::ok;
  return log->wait_durable(ticket) == status::ok ? status::ok : status::io_error;
}

bool commit_record_durable(const log_manager* log, std::uint64_t ticket) noexcept {
  if (log == nullptr || ticket == 0 || log->mode() != commit_mode::sync) return true;
  return log->durable_ticket() >= ticket;
}

}  // namespace braid::txn::detail
