// The workload of txn-ycsb (txn_ycsb.cpp), shared with its tests: YCSB-style transactions of
// point reads, writes, read-modify-writes and scans, and the checksum a correct run computes.
//
// Records: record i has key ycsb_fnv_hash64(i) (YCSB's hashed insert order, a 63-bit number)
// and value value_of(key) (lookup_results.hpp). The engine stores the key as key_bytes - 8
// bytes of a common prefix and then its 8 big-endian bytes (so byte order is key order), and
// the value as its 8 little-endian bytes padded to value_bytes.
//
// Transactions: a stream of `transactions` x `operations_per_transaction` operations, each a
// record drawn from the distribution and given a kind by the mix:
//   read-only      every operation reads (the transaction is begun read-only);
//   single-update  the last operation of each transaction updates, the others read (with one
//                  operation per transaction: every transaction is a single update);
//   ycsb-a         each operation updates with probability 1/2 (YCSB-A's 50:50);
//   ycsb-b         each operation updates with probability 1/20 (YCSB-B's 95:5);
//   update-only    every operation is a blind write (CoroBase Fig. 8);
//   rmw            every operation reads its record and writes it (CoroBase Fig. 8);
//   2rmw-8r        the first two operations read-modify-write, the others read (CoroBase's
//                  mixed workload; with ten operations: 2 RMW + 8 reads);
//   scan           every operation scans 1..longest_scan records (uniform) from its record
//                  on, in key order (YCSB-E's scans; read-only).
// A write stores value_of(key) again: real work for the engine (a new version, a log record)
// that leaves what a later read returns unchanged, so the checksum does not depend on how
// threads and repetitions order the transactions.
//
// Checksum: every committed transaction adds, per record it read (a point read, the read of a
// read-modify-write, every record a scan visits), mix_of(the value it returned, or nothing
// when the key was absent) and, per write that found its record, update_share. A transaction
// that aborts is retried until it commits and only its committed attempt counts, so a correct
// pass always sums to the expected shares (expected_share) however many attempts aborted.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "braid/core/radix_sort.hpp"
#include "lookup_results.hpp"
#include "options.hpp"
#include "workload_files.hpp"
#include "workloads.hpp"

namespace braid::bench::txn_ycsb {

enum class transaction_mix {
  read_only,
  single_update,
  ycsb_a,
  ycsb_b,
  update_only,
  read_modify_write,
  two_rmw_eight_reads,
  scan
};

inline constexpr transaction_mix all_mixes[] = {
    transaction_mix::read_only,         transaction_mix::single_update,       transaction_mix::ycsb_a,
    transaction_mix::ycsb_b,            transaction_mix::update_only,         transaction_mix::read_modify_write,
    transaction_mix::two_rmw_eight_reads, transaction_mix::scan};

inline const char* to_string(transaction_mix mix) noexcept {
  switch (mix) {
    case transaction_mix::read_only: return "read-only";
    case transaction_mix::single_update: return "single-update";
    case transaction_mix::ycsb_a: return "ycsb-a";
    case transaction_mix::ycsb_b: return "ycsb-b";
    case transaction_mix::update_only: return "update-only";
    case transaction_mix::read_modify_write: return "rmw";
    case transaction_mix::two_rmw_eight_reads: return "2rmw-8r";
    case transaction_mix::scan: return "scan";
  }
  return "?";
}

// Throws usage_error naming --set mix for anything else.
inline transaction_mix parse_mix(std::string_view text) {
  for (transaction_mix mix : all_mixes) {
    if (text == to_string(mix)) return mix;
  }
  throw usage_error("--set mix=" + std::string(text) +
                    ": not read-only, single-update, ycsb-a, ycsb-b, update-only, rmw, 2rmw-8r or scan");
}

enum class operation_kind : std::uint8_t { read, update, read_modify_write, scan };

struct operation {
  std::uint64_t key = 0;          // a record's key (for a scan: where it starts)
  std::uint32_t scan_length = 0;  // scans: records to visit
  operation_kind kind = operation_kind::read;
};

inline constexpr std::uint64_t update_share = 0xC2B2AE3D27D4EB4Full;

[[nodiscard]] inline bool writes(const operation& op) noexcept {
  return op.kind == operation_kind::update || op.kind == operation_kind::read_modify_write;
}
[[nodiscard]] inline std::uint64_t record_key(std::uint64_t record) noexcept { return ycsb_fnv_hash64(record); }

// A read's share of the checksum: the value it returned (nullopt: the key was absent).
[[nodiscard]] inline std::uint64_t read_share(std::optional<std::uint64_t> value) noexcept { return mix_of(value); }

inline constexpr std::size_t number_bytes = sizeof(std::uint64_t);
inline constexpr std::size_t most_key_bytes = 256;
inline constexpr std::size_t most_value_bytes = 4096;

// The engine's bytes of a key: (key_bytes - 8) bytes of a common prefix, then the key's 8
// big-endian bytes, so byte order is key order and longer keys add Masstree layers, as a
// common prefix such as YCSB's "user" does.
class encoded_key {
 public:
  encoded_key(std::uint64_t key, std::size_t key_bytes) noexcept : size_(key_bytes) {
    __builtin_memset(bytes_, 'k', key_bytes - number_bytes);
    const std::uint64_t big_endian = __builtin_bswap64(key);
    __builtin_memcpy(bytes_ + key_bytes - number_bytes, &big_endian, number_bytes);
  }
  [[nodiscard]] std::string_view view() const noexcept { return {bytes_, size_}; }

 private:
  char bytes_[most_key_bytes];
  std::size_t size_;
};

// The engine's bytes of a value: the number's 8 little-endian bytes, then filler up to
// value_bytes.
class encoded_value {
 public:
  encoded_value(std::uint64_t value, std::size_t value_bytes) : bytes_(value_bytes, static_cast<char>(value & 0x7f)) {
    __builtin_memcpy(bytes_.data(), &value, number_bytes);
  }
  [[nodiscard]] std::string_view view() const noexcept { return bytes_; }

 private:
  std::string bytes_;
};

// The number a value's bytes hold; nullopt unless they are value_bytes long.
[[nodiscard]] inline std::optional<std::uint64_t> decode_value(std::string_view bytes, std::size_t value_bytes) noexcept {
  if (bytes.size() != value_bytes) return std::nullopt;
  std::uint64_t value = 0;
  __builtin_memcpy(&value, bytes.data(), number_bytes);
  return value;
}

struct workload_shape {
  std::size_t records = 0;
  std::size_t transactions = 0;
  std::size_t operations_per_transaction = 10;
  transaction_mix mix = transaction_mix::read_only;
  key_distribution distribution;
  std::uint64_t seed = 42;
  std::size_t key_bytes = 8;           // 8..most_key_bytes
  std::size_t value_bytes = 8;         // 8..most_value_bytes
  std::size_t longest_scan = 100;      // scans visit 1..longest_scan records (YCSB-E's default)
};

struct transaction_stream {
  workload_shape shape;
  std::vector<operation> operations;  // transaction t: [t * per, (t + 1) * per)
  std::size_t updates = 0;            // operations that write
  // From workload files: the fill's keys, record i's key at [i] (empty: record_key(i)), and
  // the run's lines after the last whole transaction, which no pass runs.
  std::vector<std::uint64_t> file_keys;
  std::size_t lines_left_over = 0;

  [[nodiscard]] bool from_files() const noexcept { return !file_keys.empty(); }
  [[nodiscard]] std::uint64_t key_of_record(std::size_t record) const noexcept {
    return from_files() ? file_keys[record] : record_key(record);
  }
  [[nodiscard]] std::size_t per_transaction() const noexcept { return shape.operations_per_transaction; }
  [[nodiscard]] std::size_t transactions() const noexcept { return shape.transactions; }
  [[nodiscard]] bool read_only() const noexcept { return updates == 0; }
  // What the rows call the workload: the mix, or "workload-file".
  [[nodiscard]] std::string mix_name() const { return from_files() ? "workload-file" : to_string(shape.mix); }
};

// What operation `position` of its transaction does under `mix`.
inline operation_kind kind_of(transaction_mix mix, std::size_t position, std::size_t per, random_source& coin) {
  switch (mix) {
    case transaction_mix::read_only: return operation_kind::read;
    case transaction_mix::single_update: return position == per - 1 ? operation_kind::update : operation_kind::read;
    case transaction_mix::ycsb_a: return coin.below(2) == 0 ? operation_kind::update : operation_kind::read;
    case transaction_mix::ycsb_b: return coin.below(20) == 0 ? operation_kind::update : operation_kind::read;
    case transaction_mix::update_only: return operation_kind::update;
    case transaction_mix::read_modify_write: return operation_kind::read_modify_write;
    case transaction_mix::two_rmw_eight_reads: return position < 2 ? operation_kind::read_modify_write : operation_kind::read;
    case transaction_mix::scan: return operation_kind::scan;
  }
  return operation_kind::read;
}

// The stream of `shape`, deterministic for its seed.
inline transaction_stream make_stream(const workload_shape& shape) {
  if (shape.records == 0 || shape.transactions == 0 || shape.operations_per_transaction == 0) {
    throw std::invalid_argument("txn-ycsb: records, transactions and operations per transaction must be positive");
  }
  if (shape.key_bytes < number_bytes || shape.key_bytes > most_key_bytes || shape.value_bytes < number_bytes ||
      shape.value_bytes > most_value_bytes || shape.longest_scan == 0) {
    throw std::invalid_argument("txn-ycsb: key and value sizes out of range, or scans of no records");
  }
  transaction_stream stream{.shape = shape, .operations = {}, .updates = 0};
  const std::size_t per = shape.operations_per_transaction;
  const std::size_t count = shape.transactions * per;
  const std::vector<std::uint64_t> records = draw_indices(count, shape.records, shape.distribution, shape.seed + 1);
  random_source coin(shape.seed + 2);
  stream.operations.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    operation& op = stream.operations[i];
    op.key = record_key(records[i]);
    op.kind = kind_of(shape.mix, i % per, per, coin);
    if (op.kind == operation_kind::scan) op.scan_length = static_cast<std::uint32_t>(1 + coin.below(shape.longest_scan));
    stream.updates += writes(op) ? 1 : 0;
  }
  return stream;
}

// The stream of a workload file pair (--workload FILL RUN): the fill's INSERT keys are the
// records, the run's READ, UPDATE and SCAN lines the operations, `shape.operations_per_transaction`
// consecutive lines a transaction (shape.transactions: how many whole ones the run holds).
// Throws usage_error for a fill line that is not an INSERT, a key inserted twice, a run line
// that inserts or deletes (the checksum needs a fixed set of records), or a run too short for
// one transaction.
inline transaction_stream stream_from_files(workload_shape shape, const std::vector<workload_operation>& fill,
                                            const std::vector<workload_operation>& run) {
  const std::size_t per = shape.operations_per_transaction;
  if (fill.empty()) throw usage_error("--workload: the fill file inserts no records");
  if (per == 0 || run.size() < per) {
    throw usage_error("--workload: the run file has " + std::to_string(run.size()) + " operations, fewer than one "
                      "transaction's " + std::to_string(per));
  }
  transaction_stream stream{.shape = shape, .operations = {}, .updates = 0, .file_keys = {}, .lines_left_over = 0};
  stream.file_keys.reserve(fill.size());
  for (const workload_operation& line : fill) {
    if (line.kind != workload_operation_kind::insert) {
      throw usage_error(std::string("--workload: the fill file has a ") + to_string(line.kind) +
                        " line; it may only INSERT");
    }
    stream.file_keys.push_back(line.key);
  }
  std::vector<std::uint64_t> sorted = stream.file_keys;
  radix_sort(std::span(sorted));
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    throw usage_error("--workload: the fill file inserts a key twice");
  }
  stream.shape.records = fill.size();
  stream.shape.transactions = run.size() / per;
  stream.lines_left_over = run.size() % per;
  stream.operations.reserve(stream.shape.transactions * per);
  for (std::size_t i = 0; i < stream.shape.transactions * per; ++i) {
    const workload_operation& line = run[i];
    operation op{.key = line.key, .scan_length = 0, .kind = operation_kind::read};
    switch (line.kind) {
      case workload_operation_kind::read: break;
      case workload_operation_kind::update: op.kind = operation_kind::update; break;
      case workload_operation_kind::scan:
        op.kind = operation_kind::scan;
        op.scan_length = line.scan_length;
        break;
      case workload_operation_kind::insert:
      case workload_operation_kind::erase:
        throw usage_error(std::string("--workload: the run file has a ") + to_string(line.kind) +
                          " line; txn-ycsb runs READ, UPDATE and SCAN over the filled records");
    }
    stream.updates += writes(op) ? 1 : 0;
    stream.operations.push_back(op);
  }
  return stream;
}

// The records' keys in key order, for the checksums.
inline std::vector<std::uint64_t> sorted_keys(const transaction_stream& stream) {
  std::vector<std::uint64_t> keys(stream.shape.records);
  for (std::size_t record = 0; record < keys.size(); ++record) keys[record] = stream.key_of_record(record);
  radix_sort(std::span(keys));
  return keys;
}

// An operation's share of the checksum when every read returns value_of(its key) and the
// records are `keys_in_order`: a read its value's share (nothing's for an absent key), a
// write that finds its record update_share, a read-modify-write both, a scan the shares of
// the records it visits (the scan_length records from its key on, fewer at the end).
[[nodiscard]] inline std::uint64_t expected_share(const operation& op, const std::vector<std::uint64_t>& keys_in_order) {
  const bool present = op.kind == operation_kind::scan ||
                       std::binary_search(keys_in_order.begin(), keys_in_order.end(), op.key);
  if (!present) return op.kind == operation_kind::update ? 0 : read_share(std::nullopt);
  switch (op.kind) {
    case operation_kind::read: return read_share(value_of(op.key));
    case operation_kind::update: return update_share;
    case operation_kind::read_modify_write: return read_share(value_of(op.key)) + update_share;
    case operation_kind::scan: {
      std::uint64_t sum = 0;
      auto at = std::lower_bound(keys_in_order.begin(), keys_in_order.end(), op.key);
      for (std::uint32_t n = 0; n < op.scan_length && at != keys_in_order.end(); ++n, ++at) {
        sum += read_share(value_of(*at));
      }
      return sum;
    }
  }
  return 0;
}

}  // namespace braid::bench::txn_ycsb
