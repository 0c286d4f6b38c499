// log_buffer: the redo records of one transaction, serialized while it runs (CoroBase's
// transaction-local log buffer). At commit the log manager copies bytes() into the log as one
// commit block; an abort discards them with clear().
//
//   braid::txn::log_buffer records;
//   records.append(braid::txn::log_op::update, table_id, oid, "alice", "42");
//   log.append_commit(commit_ts, records);
//   records.clear();                                  // reuse: the capacity stays
//
// Record layout (little-endian, no padding; the same bytes go into the log):
//    0  op          u8   (log_op)
//    1  table_id    u32
//    5  oid         u64
//   13  key_size    u32
//   17  value_size  u32
//   21  key bytes, then value bytes
// Conventions: create_table has key = the table's name, empty value, oid 0, table_id = the new
// table's id; remove has an empty value (the record becomes a tombstone).
//
// Complexity: append O(key + value) amortized (one copy); everything else O(1).
// Limits: key and value are each at most 4 GiB - 1 bytes (append throws std::length_error
// beyond; the engine's own key/value limits are far lower). Not thread-safe: one transaction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "braid/txn/detail/on_disk.hpp"

namespace braid::txn {

enum class log_op : std::uint8_t { insert = 1, update = 2, remove = 3, create_table = 4 };

inline constexpr bool is_valid_log_op(std::uint8_t op) noexcept {
  return op >= static_cast<std::uint8_t>(log_op::insert) && op <= static_cast<std::uint8_t>(log_op::create_table);
}

inline constexpr std::size_t log_record_header_bytes = 21;

class log_buffer {
 public:
  void append(log_op op, std::uint32_t table_id, std::uint64_t oid, std::string_view key, std::string_view value) {
    constexpr std::size_t max_field = std::numeric_limits<std::uint32_t>::max();
    if (key.size() > max_field || value.size() > max_field) {
      throw std::length_error("braid::txn::log_buffer::append: key or value of 4 GiB or more");
    }
    const std::size_t start = bytes_.size();
    bytes_.resize(start + log_record_header_bytes + key.size() + value.size());
    std::byte* out = bytes_.data() + start;
    out[0] = static_cast<std::byte>(op);
    detail::store_u32(out + 1, table_id);
    detail::store_u64(out + 5, oid);
    detail::store_u32(out + 13, static_cast<std::uint32_t>(key.size()));
    detail::store_u32(out + 17, static_cast<std::uint32_t>(value.size()));
    out += log_record_header_bytes;
    if (!key.empty()) std::memcpy(out, key.data(), key.size());
    if (!value.empty()) std::memcpy(out + key.size(), value.data(), value.size());
    ++record_count_;
  }
  void clear() noexcept {
    bytes_.clear();
    record_count_ = 0;
  }
  [[nodiscard]] bool empty() const noexcept { return record_count_ == 0; }
  [[nodiscard]] std::size_t record_count() const noexcept { return record_count_; }
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return {bytes_.data(), bytes_.size()}; }

 private:
  std::vector<std::byte> bytes_;
  std::size_t record_count_ = 0;
};

}  // namespace braid::txn
