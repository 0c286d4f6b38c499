// The workload of txn-ycsb (txn_ycsb.cpp), shared with its tests: YCSB-style transactions of
// point reads and updates over 8-byte keys and 8-byte values, and the checksum a correct run
// computes.
//
// Records: record i has key ycsb_fnv_hash64(i) (YCSB's hashed insert order, a 63-bit number)
// and value value_of(key) (lookup_results.hpp). The engine stores the key as its 8 big-endian
// bytes (so byte order is key order) and the value as its 8 little-endian bytes.
//
// Transactions: a stream of `transactions` x `operations_per_transaction` operations, each a
// record drawn from the distribution and marked read or update by the mix:
//   read-only      every operation reads (the transaction is begun read-only);
//   single-update  the last operation of each transaction updates, the others read (with one
//                  operation per transaction: every transaction is a single update);
//   ycsb-a         each operation updates with probability 1/2 (YCSB-A's 50:50);
//   ycsb-b         each operation updates with probability 1/20 (YCSB-B's 95:5).
// An update writes value_of(key) again: real work for the engine (a new version, a log
// record) that leaves what a later read returns unchanged, so the checksum does not depend on
// how threads and repetitions order the transactions.
//
// Checksum: every committed transaction adds, per read, mix_of(the value it returned, or
// nothing when the key was absent) and, per update that found its record, update_share. A
// transaction that aborts is retried until it commits and only its committed attempt counts,
// so a correct pass always sums to expected_checksum(stream) however many attempts aborted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "lookup_results.hpp"
#include "options.hpp"
#include "workloads.hpp"

namespace braid::bench::txn_ycsb {

enum class transaction_mix { read_only, single_update, ycsb_a, ycsb_b };

inline const char* to_string(transaction_mix mix) noexcept {
  switch (mix) {
    case transaction_mix::read_only: return "read-only";
    case transaction_mix::single_update: return "single-update";
    case transaction_mix::ycsb_a: return "ycsb-a";
    case transaction_mix::ycsb_b: return "ycsb-b";
  }
  return "?";
}

// Throws usage_error naming --set mix for anything else.
inline transaction_mix parse_mix(std::string_view text) {
  for (transaction_mix mix : {transaction_mix::read_only, transaction_mix::single_update, transaction_mix::ycsb_a,
                              transaction_mix::ycsb_b}) {
    if (text == to_string(mix)) return mix;
  }
  throw usage_error("--set mix=" + std::string(text) + ": not read-only, single-update, ycsb-a or ycsb-b");
}

inline constexpr std::uint64_t update_bit = std::uint64_t{1} << 63;
inline constexpr std::uint64_t update_share = 0xC2B2AE3D27D4EB4Full;

[[nodiscard]] inline bool is_update(std::uint64_t operation) noexcept { return (operation & update_bit) != 0; }
[[nodiscard]] inline std::uint64_t key_of(std::uint64_t operation) noexcept { return operation & ~update_bit; }
[[nodiscard]] inline std::uint64_t record_key(std::uint64_t record) noexcept { return ycsb_fnv_hash64(record); }

// A read's share of the checksum: the value it returned (nullopt: the key was absent).
[[nodiscard]] inline std::uint64_t read_share(std::optional<std::uint64_t> value) noexcept { return mix_of(value); }

// The engine's bytes of a key and of a value.
struct encoded_key {
  explicit encoded_key(std::uint64_t key) noexcept : big_endian(__builtin_bswap64(key)) {}
  [[nodiscard]] std::string_view view() const noexcept {
    return {reinterpret_cast<const char*>(&big_endian), sizeof big_endian};
  }
  std::uint64_t big_endian;
};
struct encoded_value {
  explicit encoded_value(std::uint64_t value) noexcept : little_endian(value) {}
  [[nodiscard]] std::string_view view() const noexcept {
    return {reinterpret_cast<const char*>(&little_endian), sizeof little_endian};
  }
  std::uint64_t little_endian;
};
// The number a value's bytes hold; nullopt unless they are 8 bytes.
[[nodiscard]] inline std::optional<std::uint64_t> decode_value(std::string_view bytes) noexcept {
  if (bytes.size() != sizeof(std::uint64_t)) return std::nullopt;
  std::uint64_t value = 0;
  __builtin_memcpy(&value, bytes.data(), sizeof value);
  return value;
}

struct workload_shape {
  std::size_t records = 0;
  std::size_t transactions = 0;
  std::size_t operations_per_transaction = 10;
  transaction_mix mix = transaction_mix::read_only;
  key_distribution distribution;
  std::uint64_t seed = 42;
};

struct transaction_stream {
  workload_shape shape;
  std::vector<std::uint64_t> operations;  // transaction t: [t * per, (t + 1) * per); key | update_bit
  std::size_t updates = 0;

  [[nodiscard]] std::size_t per_transaction() const noexcept { return shape.operations_per_transaction; }
  [[nodiscard]] std::size_t transactions() const noexcept { return shape.transactions; }
  [[nodiscard]] bool read_only() const noexcept { return shape.mix == transaction_mix::read_only; }
};

// The stream of `shape`, deterministic for its seed.
inline transaction_stream make_stream(const workload_shape& shape) {
  if (shape.records == 0 || shape.transactions == 0 || shape.operations_per_transaction == 0) {
    throw std::invalid_argument("txn-ycsb: records, transactions and operations per transaction must be positive");
  }
  transaction_stream stream{.shape = shape, .operations = {}, .updates = 0};
  const std::size_t count = shape.transactions * shape.operations_per_transaction;
  const std::vector<std::uint64_t> records = draw_indices(count, shape.records, shape.distribution, shape.seed + 1);
  random_source coin(shape.seed + 2);
  stream.operations.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    bool update = false;
    switch (shape.mix) {
      case transaction_mix::read_only: break;
      case transaction_mix::single_update: update = i % shape.operations_per_transaction == shape.operations_per_transaction - 1; break;
      case transaction_mix::ycsb_a: update = coin.below(2) == 0; break;
      case transaction_mix::ycsb_b: update = coin.below(20) == 0; break;
    }
    stream.operations[i] = record_key(records[i]) | (update ? update_bit : 0);
    stream.updates += update ? 1 : 0;
  }
  return stream;
}

// The checksum of a pass in which every transaction committed once and every read returned
// value_of(its key).
[[nodiscard]] inline std::uint64_t expected_checksum(const transaction_stream& stream) noexcept {
  std::uint64_t sum = 0;
  for (std::uint64_t operation : stream.operations) {
    sum += is_update(operation) ? update_share : read_share(value_of(key_of(operation)));
  }
  return sum;
}

}  // namespace braid::bench::txn_ycsb
