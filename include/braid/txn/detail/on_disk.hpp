// on_disk: the byte-level conventions shared by every file of a braid database directory (log
// segments, checkpoints, the manifest): little-endian integers, and the 32-byte file header.
//
//   file header (32 bytes)
//     0  magic           8 bytes, names the kind of file ("BRAIDLOG", "BRAIDCKP", "BRAIDDB\0")
//     8  format_version  u32
//    12  reserved        u32, zero
//    16  number          u64, the segment number / the checkpoint timestamp / zero
//    24  reserved        u32, zero
//    28  crc             u32, CRC-32C of bytes 0..27
//
// Every integer on disk is little-endian, whatever the machine. Readers check the magic first
// (another kind of file), then the version (another format: its layout may differ), then the
// checksum. Complexity O(1); no allocation.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "braid/txn/detail/crc32c.hpp"

namespace braid::txn::detail {

inline void store_le(std::byte* out, std::uint64_t value, std::size_t bytes) noexcept {
  for (std::size_t index = 0; index < bytes; ++index) out[index] = static_cast<std::byte>(value >> (8 * index));
}
inline std::uint64_t load_le(const std::byte* in, std::size_t bytes) noexcept {
  std::uint64_t value = 0;
  for (std::size_t index = bytes; index > 0; --index) value = value << 8 | std::to_integer<std::uint64_t>(in[index - 1]);
  return value;
}
inline void store_u32(std::byte* out, std::uint32_t value) noexcept { store_le(out, value, 4); }
inline void store_u64(std::byte* out, std::uint64_t value) noexcept { store_le(out, value, 8); }
inline std::uint32_t load_u32(const std::byte* in) noexcept { return static_cast<std::uint32_t>(load_le(in, 4)); }
inline std::uint64_t load_u64(const std::byte* in) noexcept { return load_le(in, 8); }

inline constexpr std::size_t file_header_bytes = 32;
using file_magic = std::array<char, 8>;

struct file_header {
  file_magic magic{};
  std::uint32_t format_version = 0;
  std::uint64_t number = 0;
};

inline std::array<std::byte, file_header_bytes> encode_file_header(const file_header& header) noexcept {
  std::array<std::byte, file_header_bytes> bytes{};
  std::memcpy(bytes.data(), header.magic.data(), header.magic.size());
  store_u32(bytes.data() + 8, header.format_version);
  store_u64(bytes.data() + 16, header.number);
  store_u32(bytes.data() + 28, crc32c(bytes.data(), 28));
  return bytes;
}

enum class header_check { ok, too_short, wrong_magic, wrong_version, bad_checksum };

// Checks the first file_header_bytes of a file against the expected magic and version.
inline header_check decode_file_header(std::span<const std::byte> bytes, const file_magic& magic,
                                       std::uint32_t format_version, file_header& out) noexcept {
  if (bytes.size() < file_header_bytes) return header_check::too_short;
  std::memcpy(out.magic.data(), bytes.data(), out.magic.size());
  if (out.magic != magic) return header_check::wrong_magic;
  out.format_version = load_u32(bytes.data() + 8);
  if (out.format_version != format_version) return header_check::wrong_version;
  if (load_u32(bytes.data() + 28) != crc32c(bytes.data(), 28)) return header_check::bad_checksum;
  if (load_u32(bytes.data() + 12) != 0 || load_u32(bytes.data() + 24) != 0) return header_check::bad_checksum;
  out.number = load_u64(bytes.data() + 16);
  return header_check::ok;
}

inline std::span<const std::byte> as_bytes(std::string_view text) noexcept {
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}
inline std::string_view as_text(std::span<const std::byte> bytes) noexcept {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace braid::txn::detail
