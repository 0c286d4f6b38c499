#include "braid/txn/detail/crc32c.hpp"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace braid::txn::detail {

namespace {

constexpr std::uint32_t castagnoli_reflected = 0x82F63B78u;

using crc_tables = std::array<std::array<std::uint32_t, 256>, 8>;

constexpr crc_tables build_tables() {
  crc_tables tables{};
  for (std::uint32_t byte = 0; byte < 256; ++byte) {
    std::uint32_t crc = byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1u) ? (crc >> 1) ^ castagnoli_reflected : crc >> 1;
    tables[0][byte] = crc;
  }
  for (std::size_t slice = 1; slice < 8; ++slice) {
    for (std::size_t byte = 0; byte < 256; ++byte) {
      const std::uint32_t previous = tables[slice - 1][byte];
      tables[slice][byte] = (previous >> 8) ^ tables[0][previous & 0xFFu];
    }
  }
  return tables;
}

constexpr crc_tables tables = build_tables();

std::uint64_t load_le64(const unsigned char* bytes) noexcept {
  std::uint64_t value = 0;
  for (int index = 7; index >= 0; --index) value = value << 8 | bytes[index];
  return value;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) std::uint32_t crc32c_hardware(std::uint32_t crc, const unsigned char* bytes,
                                                                 std::size_t size) noexcept {
  std::uint64_t state = crc;
  while (size >= 8) {
    std::uint64_t word;
    std::memcpy(&word, bytes, 8);
    state = _mm_crc32_u64(state, word);
    bytes += 8;
    size -= 8;
  }
  auto narrow = static_cast<std::uint32_t>(state);
  while (size > 0) {
    narrow = _mm_crc32_u8(narrow, *bytes);
    ++bytes;
    --size;
  }
  return narrow;
}
#endif

}  // namespace

std::uint32_t crc32c_portable_extend(std::uint32_t crc, const void* data, std::size_t size) noexcept {
  const auto* bytes = static_cast<const unsigned char*>(data);
  crc = ~crc;
  while (size >= 8) {
    const std::uint64_t word = load_le64(bytes) ^ crc;
    crc = tables[7][word & 0xFFu] ^ tables[6][(word >> 8) & 0xFFu] ^ tables[5][(word >> 16) & 0xFFu] ^
          tables[4][(word >> 24) & 0xFFu] ^ tables[3][(word >> 32) & 0xFFu] ^ tables[2][(word >> 40) & 0xFFu] ^
          tables[1][(word >> 48) & 0xFFu] ^ tables[0][word >> 56];
    bytes += 8;
    size -= 8;
  }
  while (size > 0) {
    crc = (crc >> 8) ^ tables[0][(crc ^ *bytes) & 0xFFu];
    ++bytes;
    --size;
  }
  return ~crc;
}

bool crc32c_hardware_available() noexcept {
#if defined(__x86_64__)
  static const bool available = __builtin_cpu_supports("sse4.2") != 0;
  return available;
#else
  return false;
#endif
}

std::uint32_t crc32c_extend(std::uint32_t crc, const void* data, std::size_t size) noexcept {
#if defined(__x86_64__)
  if (crc32c_hardware_available()) return ~crc32c_hardware(~crc, static_cast<const unsigned char*>(data), size);
#endif
  return crc32c_portable_extend(crc, data, size);
}

}  // namespace braid::txn::detail
