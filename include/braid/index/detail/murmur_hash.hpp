// MurmurHash3's finalizers (Austin Appleby, public domain): avalanche mixers that turn a key
// into a well-distributed hash with a few multiplications and shifts. The linear-probing
// table uses fmix64 as Cimple and Menon et al. do; the chained table uses it too, on the
// widened key.
#pragma once

#include <cstdint>

namespace braid::detail {

constexpr std::uint32_t murmur3_fmix32(std::uint32_t h) noexcept {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

constexpr std::uint64_t murmur3_fmix64(std::uint64_t k) noexcept {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}

}  // namespace braid::detail
