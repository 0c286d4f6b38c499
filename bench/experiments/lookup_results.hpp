// What every experiment that stores values and checks lookups agrees on: the value stored
// under a key, and the checksum of a pass's results.
//
// A pass answers one result per lookup into a buffer; checksum_of folds each result with its
// position, so a technique that returns other results, or the right results in another order,
// gives another checksum and fails the run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace braid::bench {

// The value every experiment stores under `key`, in its structure and in the peers: a
// function of the key alone, so any structure built from the same keys answers the same
// values, and a read that races with an update (which stores value_of(key) again) still
// returns it.
[[nodiscard]] constexpr std::uint64_t value_of(std::uint64_t key) noexcept {
  return (key * 0x9E3779B97F4A7C15ull) ^ 0x5DEECE66Dull;
}

// One result's mix, before its position is folded in: a present result (a value, a position,
// a code) by its number, an absent one by a constant no present result gives in practice.
template <class Result>
[[nodiscard]] constexpr std::uint64_t mix_of(const Result& result) noexcept {
  return result ? static_cast<std::uint64_t>(*result) * 0x9E3779B97F4A7C15ull + 1 : 0x5BD1E995ull;
}

// The share of the result at `position` in a checksum: its mix times an odd weight of the
// position, so two results swapped change the sum.
template <class Result>
[[nodiscard]] constexpr std::uint64_t checksum_share(std::size_t position, const Result& result) noexcept {
  return mix_of(result) * (2 * position + 1);
}

// An order-sensitive checksum of a pass's results: equal checksums mean equal results in
// equal order (up to a 64-bit collision).
template <class Result>
[[nodiscard]] std::uint64_t checksum_of(std::span<const Result> results) noexcept {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < results.size(); ++i) sum += checksum_share(i, results[i]);
  return sum;
}

template <class Result>
[[nodiscard]] std::uint64_t checksum_of(const std::vector<Result>& results) noexcept {
  return checksum_of(std::span<const Result>(results));
}

}  // namespace braid::bench
