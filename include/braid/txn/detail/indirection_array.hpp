// indirection_array: a table's map from object id (OID) to the newest version of the record.
//
// OIDs are handed out densely from 1. Entries live in chunks of 2^18 (2 MiB: one transparent
// huge page, because a read's entry is a DRAM miss, and on 4 KiB pages also a TLB miss, which
// costs nearly three times as much on a virtual machine) that are mapped on first use and
// never move, so an entry's address is stable and the array grows without copying; a chunk
// directory of fixed size bounds a table to max_oid records. Even an empty table's first
// chunk takes 2 MiB. An entry is an atomic version pointer, changed only by compare-and-swap
// (install a new version, unlink an aborted one). entry(oid) is O(1): two dependent loads.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>

#include "braid/core/huge_buffer.hpp"
#include "braid/txn/detail/version.hpp"

namespace braid::txn::detail {

class indirection_array {
 public:
  static constexpr std::size_t chunk_bits = 18;
  static constexpr std::size_t chunk_entries = std::size_t{1} << chunk_bits;
  static constexpr std::size_t max_chunks = 1024;
  static constexpr std::uint64_t max_oid = chunk_entries * max_chunks - 1;
  static constexpr std::uint64_t no_oid = 0;

  indirection_array() : chunks_(new std::atomic<chunk*>[max_chunks]()), buffers_(new huge_buffer[max_chunks]) {}
  indirection_array(const indirection_array&) = delete;
  indirection_array& operator=(const indirection_array&) = delete;

  // A fresh OID with a null entry, or no_oid when the table is full.
  [[nodiscard]] std::uint64_t allocate() {
    const std::uint64_t oid = next_.fetch_add(1, std::memory_order_relaxed);
    if (oid > max_oid) return no_oid;
    ensure_chunk(oid);
    return oid;
  }
  // Makes `oid` usable (recovery installs rows with the OIDs they had); later allocations
  // come after it. False if it is out of range.
  bool reserve(std::uint64_t oid) {
    if (oid == no_oid || oid > max_oid) return false;
    std::uint64_t next = next_.load(std::memory_order_relaxed);
    while (next <= oid && !next_.compare_exchange_weak(next, oid + 1, std::memory_order_relaxed)) {
    }
    ensure_chunk(oid);
    return true;
  }

  // Precondition: oid was allocated or reserved.
  [[nodiscard]] std::atomic<version*>& entry(std::uint64_t oid) const noexcept {
    return chunks_[oid >> chunk_bits].load(std::memory_order_acquire)->entries[oid & (chunk_entries - 1)];
  }
  // One past the highest OID handed out so far.
  [[nodiscard]] std::uint64_t end() const noexcept {
    const std::uint64_t next = next_.load(std::memory_order_acquire);
    return next > max_oid + 1 ? max_oid + 1 : next;
  }
  [[nodiscard]] bool contains(std::uint64_t oid) const noexcept {
    return oid != no_oid && oid <= max_oid && chunks_[oid >> chunk_bits].load(std::memory_order_acquire) != nullptr;
  }

 private:
  struct chunk {
    std::atomic<version*> entries[chunk_entries] = {};
  };
  static_assert(sizeof(chunk) == huge_buffer::huge_page_bytes && std::is_trivially_destructible_v<chunk>);

  // The winner of the race for a chunk's slot keeps its mapping in buffers_ (indexed like the
  // slot, written only by the winner); a loser's mapping is released when `fresh` goes.
  void ensure_chunk(std::uint64_t oid) {
    const std::size_t index = oid >> chunk_bits;
    std::atomic<chunk*>& slot = chunks_[index];
    if (slot.load(std::memory_order_acquire) != nullptr) return;
    huge_buffer fresh(sizeof(chunk), page_size::huge_2m, /*prefault=*/false);  // constructing touches it
    auto* created = new (fresh.data()) chunk();
    chunk* expected = nullptr;
    if (slot.compare_exchange_strong(expected, created, std::memory_order_acq_rel)) buffers_[index] = std::move(fresh);
  }

  std::unique_ptr<std::atomic<chunk*>[]> chunks_;
  std::unique_ptr<huge_buffer[]> buffers_;
  std::atomic<std::uint64_t> next_{1};
};

}  // namespace braid::txn::detail
