// crc32c: the CRC-32C (Castagnoli) checksum that guards every block, row and header braid's
// transaction engine writes to disk (log segments, checkpoints, the manifest).
//
//   std::uint32_t crc = braid::txn::detail::crc32c(bytes.data(), bytes.size());
//   crc = braid::txn::detail::crc32c_extend(crc, more.data(), more.size());  // same as one call
//
// Two implementations with identical results: the SSE4.2 `crc32` instruction (8 bytes per
// instruction), chosen at run time when the processor has it, and a portable slicing-by-8
// table (8 bytes per step, 8 KiB of tables built at compile time). crc32c_portable is exposed
// so that tests can compare the two.
//
// Complexity: O(n). Detects every burst error up to 32 bits and, for the block sizes used here,
// all 1-, 2- and 3-bit errors; a random corruption passes with probability 2^-32.
// Known values: crc32c("123456789") == 0xE3069283, crc32c of nothing == 0.
#pragma once

#include <cstddef>
#include <cstdint>

namespace braid::txn::detail {

// Continues a checksum: crc32c_extend(crc32c(a), b) == crc32c(a followed by b).
std::uint32_t crc32c_extend(std::uint32_t crc, const void* data, std::size_t size) noexcept;
std::uint32_t crc32c_portable_extend(std::uint32_t crc, const void* data, std::size_t size) noexcept;
// True when crc32c_extend uses the SSE4.2 instruction on this machine.
bool crc32c_hardware_available() noexcept;

inline std::uint32_t crc32c(const void* data, std::size_t size) noexcept { return crc32c_extend(0, data, size); }

}  // namespace braid::txn::detail
