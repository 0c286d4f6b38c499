// The relation pairs every partitioned-join test runs: duplicates on both sides, no matches,
// all matches, every tuple in one partition (skew), empty inputs, the extreme keys 0 and
// 2^64 - 1, sizes that are multiples of nothing, and a power-law skew.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "join/reference_join.hpp"

namespace braid::join::testing {

struct join_shape {
  std::string name;
  std::vector<tuple> build;
  std::vector<tuple> probe;
};

inline std::vector<join_shape> join_shapes(std::uint64_t seed) {
  constexpr std::uint64_t max_key = std::numeric_limits<std::uint64_t>::max();
  std::vector<join_shape> shapes;
  shapes.push_back({"duplicates", random_relation(1501, 0, 300, seed), random_relation(2003, 0, 400, seed + 1)});
  shapes.push_back({"no-matches", random_relation(777, 0, 1000, seed), random_relation(901, 1u << 20, 1000, seed + 1)});
  // All matches: one key on both sides.
  shapes.push_back({"all-match", random_relation(61, 42, 1, seed), random_relation(67, 42, 1, seed + 1)});
  // Every key a multiple of 2^20: all tuples in partition 0 at any radix bits up to 20.
  auto skewed_build = random_relation(1203, 0, 64, seed);
  auto skewed_probe = random_relation(1301, 0, 80, seed + 1);
  for (tuple& t : skewed_build) t.key <<= 20;
  for (tuple& t : skewed_probe) t.key <<= 20;
  shapes.push_back({"one-partition", std::move(skewed_build), std::move(skewed_probe)});
  shapes.push_back({"zipf", random_relation(2001, 0, 5000, seed, 1.0), random_relation(1999, 0, 5000, seed + 1, 1.0)});
  shapes.push_back({"primary-key", primary_key_relation(1027, 5, seed), random_relation(3001, 0, 1100, seed + 1)});
  shapes.push_back({"empty-build", {}, random_relation(100, 0, 10, seed)});
  shapes.push_back({"empty-probe", random_relation(100, 0, 10, seed), {}});
  shapes.push_back({"both-empty", {}, {}});
  shapes.push_back({"single", {{7, seed}}, {{7, seed + 1}}});
  // The extreme keys among others, duplicated on both sides.
  auto extreme_build = random_relation(509, 0, 100, seed);
  auto extreme_probe = random_relation(613, 0, 100, seed + 1);
  for (std::size_t i = 0; i < extreme_build.size(); i += 5) extreme_build[i].key = i % 2 == 0 ? 0 : max_key;
  for (std::size_t i = 0; i < extreme_probe.size(); i += 7) extreme_probe[i].key = i % 2 == 0 ? max_key : 0;
  shapes.push_back({"extreme-keys", std::move(extreme_build), std::move(extreme_probe)});
  return shapes;
}

}  // namespace braid::join::testing
