// MurmurHash3's finalizers (Austin Appleby, public domain): avalanche mixers that turn a key
// into a well-distributed hash with a few multiplications and shifts. The linear-probing
// table uses fmix64 as Cimple and Menon et al. do; the chained table uses it too, on the
// widened key.
#pragma once

#include <cstdint>

namespace braid::detail {

// The finalizer of either width: xor-shift, multiply, xor-shift, multiply, xor-shift, with the
// width's shifts and multipliers.
template <class Word>
constexpr Word murmur3_fmix(Word h, const int (&shifts)[3], const Word (&multipliers)[2]) noexcept {
  h ^= h >> shifts[0];
  h *= multipliers[0];
  h ^= h >> shifts[1];
  h *= multipliers[1];
  h ^= h >> shifts[2];
  return h;
}

constexpr std::uint32_t murmur3_fmix32(std::uint32_t h) noexcept {
  return murmur3_fmix<std::uint32_t>(h, {16, 13, 16}, {0x85ebca6bu, 0xc2b2ae35u});
}

constexpr std::uint64_t murmur3_fmix64(std::uint64_t k) noexcept {
  return murmur3_fmix<std::uint64_t>(k, {33, 33, 33}, {0xff51afd7ed558ccdull, 0xc4ceb9fe1a85ec53ull});
}

}  // namespace braid::detail
