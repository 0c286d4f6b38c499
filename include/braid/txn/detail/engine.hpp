// engine: the state every transaction of one database shares — the timestamp counter, the
// transaction slots and their per-slot scratch (write and read sets, reused so that a
// transaction allocates nothing once its slot has warmed up), the memory of versions, the
// garbage collector's horizon, and the tables.
//
// Timestamps: `clock` is the last commit timestamp handed out. A transaction begins at
// b = clock and commits at c = ++clock (fetch-and-add), so every version committed before a
// transaction began has a timestamp <= b and every later one > b.
//
// Garbage collection: `horizon` is a timestamp no open transaction's snapshot is older than
// (recomputed every horizon_refresh_interval commits per thread from the slots). Below the
// newest version committed at or before the horizon nothing is visible to anyone: a writer
// that installs a version cuts the chain there and retires the rest; retired versions are
// freed by epoch-based reclamation once no operation can still hold them.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <shared_mutex>
#include <string>
#include <vector>

#include "braid/index/detail/epoch_domain.hpp"
#include "braid/txn/detail/table.hpp"
#include "braid/txn/detail/transaction_slots.hpp"
#include "braid/txn/detail/version.hpp"
#include "braid/txn/options.hpp"

namespace braid::txn {
class log_manager;  // the log (log.hpp); null for an in-memory database
}

namespace braid::txn::detail {

// One write of a transaction: the version it created (its newest one for the record) and the
// committed version it replaced (null if the record had none).
struct write_entry {
  table* target;
  std::uint64_t oid;
  version* created;
  version* overwritten;
  std::uint32_t key_offset;  // the key's bytes in transaction_context::write_keys
  std::uint32_t key_size;
};

// A slot's scratch, owned by whichever transaction holds the slot.
struct transaction_context {
  std::vector<write_entry> writes;
  std::string write_keys;
  std::vector<version*> reads;  // SSN: versions read and registered in
  std::uint64_t pstamp = 0;
  std::uint64_t sstamp = no_successor;
  std::vector<std::string> secondary_keys;
  std::string encoded_key;
  std::string scan_cursor;
  std::string scan_keys;
  std::vector<std::uint32_t> scan_key_ends;
  std::vector<std::uint64_t> scan_oids;
  std::string scan_key;
  std::string scan_extracted;
};

struct engine {
  static constexpr std::uint64_t horizon_refresh_interval = 32;

  explicit engine(const database_options& opened) : options(opened), contexts(new transaction_context[max_transactions]) {}

  database_options options;
  log_manager* log = nullptr;
  alignas(64) std::atomic<std::uint64_t> clock{0};
  alignas(64) std::atomic<std::uint64_t> horizon{0};
  alignas(64) std::atomic<std::int64_t> live_versions{0};
  transaction_slots slots;
  std::unique_ptr<transaction_context[]> contexts;
  braid::detail::epoch_domain versions;

  mutable std::shared_mutex catalog_mutex;
  std::vector<std::unique_ptr<table>> tables;  // by id; null where no table has that id

  [[nodiscard]] version* new_version(std::string_view value, bool tombstone, std::uint64_t stamp) {
    void* block = versions.allocate(version::bytes_for(value.size()));
    auto* created = new (block) version();
    created->stamp.store(stamp, std::memory_order_relaxed);
    created->next.store(nullptr, std::memory_order_relaxed);
    created->value_size = static_cast<std::uint32_t>(value.size());
    created->tombstone = tombstone;
    if (!value.empty()) std::memcpy(created->value_data(), value.data(), value.size());
    live_versions.fetch_add(1, std::memory_order_relaxed);
    return created;
  }
  // A version no other thread has seen.
  void discard(version* unpublished) noexcept {
    live_versions.fetch_sub(1, std::memory_order_relaxed);
    versions.deallocate(unpublished, unpublished->bytes());
  }
  // A version just unlinked: freed once no operation can hold it.
  void retire(version* unlinked) {
    live_versions.fetch_sub(1, std::memory_order_relaxed);
    versions.retire(unlinked, unlinked->bytes());
  }
  void refresh_horizon() noexcept {
    horizon.store(slots.oldest_snapshot(clock.load(std::memory_order_seq_cst)), std::memory_order_release);
  }
};

}  // namespace braid::txn::detail
