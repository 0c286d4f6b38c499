// table: one table's storage — its primary index (key -> OID), the same keys in reverse order
// (for reverse scans), its indirection array (OID -> newest version) and its secondary
// indexes (secondary key -> OID).
//
// Every access goes index -> OID -> indirection entry -> version chain. Index entries are
// never removed: a removed record keeps its OID, its index entry and a tombstone version (a
// later insert of the key reuses the OID); an insert that aborted leaves its key mapped to an
// OID whose chain is empty. Secondary indexes are added at any time (at most
// max_indexes_per_table) and never dropped; each is published with a release store of the
// count so that writers see a complete index object.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "braid/index/masstree.hpp"
#include "braid/txn/detail/indirection_array.hpp"
#include "braid/txn/options.hpp"

namespace braid::txn {

// Computes a record's secondary key from its value (BerkeleyDB's `associate` callback). It
// must be a pure function of the value.
using key_extractor = std::function<std::string(std::string_view value)>;

namespace detail {

struct secondary_index {
  secondary_index(std::string index_name, key_extractor extractor)
      : name(std::move(index_name)), extract(std::move(extractor)) {}
  std::string name;
  key_extractor extract;
  masstree<std::uint64_t> entries;  // secondary key -> OID
};

struct table {
  table(const void* owning_engine, std::uint32_t table_id, std::string table_name)
      : owner(owning_engine), id(table_id), name(std::move(table_name)) {}
  const void* owner;  // the engine the table belongs to (handles of another database are refused)
  std::uint32_t id;
  std::string name;
  masstree<std::uint64_t> primary;   // key -> OID
  masstree<std::uint64_t> reversed;  // encode_reverse_key(key) -> OID
  indirection_array oids;
  std::array<std::unique_ptr<secondary_index>, max_indexes_per_table> indexes;
  std::atomic<std::size_t> index_count{0};
};

}  // namespace detail
}  // namespace braid::txn
