// The oracle of the join tests: std::unordered_multimap built from R, probed by S, and random
// relations with the shapes the tests need (duplicates on both sides, no matches, skew).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <unordered_map>
#include <vector>

#include "braid/join/relation.hpp"

namespace braid::join::testing {

inline join_output reference_join(std::span<const tuple> build, std::span<const tuple> probe,
                                  bool materialize = true) {
  std::unordered_multimap<std::uint64_t, std::uint64_t> table;
  for (const tuple& r : build) table.emplace(r.key, r.payload);
  join_output out(materialize);
  for (const tuple& s : probe) {
    auto [first, last] = table.equal_range(s.key);
    for (auto it = first; it != last; ++it) out.emit(s.key, it->second, s.payload);
  }
  if (materialize) std::sort(out.rows().begin(), out.rows().end());
  return out;
}

// `count` tuples with keys drawn from [key_base, key_base + key_range) (uniform, or, with
// skew > 0, a power law favouring small keys), payloads random.
inline std::vector<tuple> random_relation(std::size_t count, std::uint64_t key_base, std::uint64_t key_range,
                                          std::uint64_t seed, double skew = 0.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<tuple> out(count);
  for (tuple& t : out) {
    std::uint64_t offset = rng() % key_range;
    if (skew > 0) {
      offset = static_cast<std::uint64_t>(static_cast<double>(key_range) * std::pow(unit(rng), 1.0 + skew * 4));
      offset = std::min(offset, key_range - 1);
    }
    t = {key_base + offset, rng()};
  }
  return out;
}

// A primary-key relation: keys key_base .. key_base + count - 1, shuffled.
inline std::vector<tuple> primary_key_relation(std::size_t count, std::uint64_t key_base, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<tuple> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = {key_base + i, rng()};
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

}  // namespace braid::join::testing
