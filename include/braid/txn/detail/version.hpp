// version: one version of a record, the element of a newest-first version chain.
//
// Layout: an 80-byte header followed by the value bytes inline, one 64-byte-aligned block per
// version (128 bytes for a value of up to 48 bytes: a read of a small value touches two
// adjacent lines). `stamp` says who the version belongs to, by a tag bit:
//   - tag clear: the version is committed and `stamp` is its commit timestamp;
//   - tag set:   the version is in flight, `stamp & ~tag` is the writer's transaction id
//                (its slot in the low bits, see transaction_slots.hpp);
//   - aborted_stamp: the writer aborted; the version is being (or has been) unlinked.
// The Serial Safety Net (SSN) stamps: `pstamp` is the highest commit timestamp of a committed
// reader of this version; `sstamp` is the successor stamp: no_successor, the id of an in-flight
// overwriter (tagged as above), or the committed overwriter's successor-low-watermark.
// `readers` has one bit per transaction slot: the transactions that read this version and
// have not finished (serializable transactions only register).
//
// Invariants: a version's value, size and tombstone flag never change after it is published
// (CAS onto an indirection entry). `next` changes only when the garbage collector cuts the
// chain below a version that every snapshot can see, or when its owner replaces it.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "braid/txn/options.hpp"

namespace braid::txn::detail {

inline constexpr std::uint64_t in_flight_tag = std::uint64_t{1} << 63;
inline constexpr std::uint64_t aborted_stamp = ~std::uint64_t{0};
inline constexpr std::uint64_t no_successor = in_flight_tag - 1;
inline constexpr std::size_t reader_words = max_transactions / 64;

constexpr bool is_in_flight(std::uint64_t stamp) noexcept { return (stamp & in_flight_tag) != 0; }

struct version {
  // What every read looks at comes first, in the block's first line.
  std::atomic<std::uint64_t> stamp;
  std::atomic<version*> next;
  std::uint32_t value_size = 0;
  std::uint32_t write_index = 0;  // the owner's write-set entry, while in flight
  bool tombstone = false;
  // The certifier's fields.
  std::atomic<std::uint64_t> pstamp{0};
  std::atomic<std::uint64_t> sstamp{no_successor};
  std::array<std::atomic<std::uint64_t>, reader_words> readers{};

  [[nodiscard]] char* value_data() noexcept { return reinterpret_cast<char*>(this + 1); }
  [[nodiscard]] std::string_view value() const noexcept {
    return {reinterpret_cast<const char*>(this + 1), value_size};
  }
  static constexpr std::size_t bytes_for(std::size_t value_size) noexcept { return sizeof(version) + value_size; }
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_for(value_size); }
};
static_assert(sizeof(version) == 80, "the header the layout note describes");

}  // namespace braid::txn::detail
