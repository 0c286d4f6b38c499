// The input shapes the join tests run every algorithm over (join_cases, and the larger
// partitioned_join_cases), and the comparison with the oracle
// (reference_join.hpp): equal match count and checksum, and equal joined rows once sorted.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "braid/join/relation.hpp"
#include "join/reference_join.hpp"

namespace braid::join::testing {

struct join_case {
  std::string name;
  std::vector<tuple> build;
  std::vector<tuple> probe;
};

inline constexpr std::uint64_t max_key = std::numeric_limits<std::uint64_t>::max();

// Keys from `pool`, drawn at random: duplicates as often as the pool is small.
inline std::vector<tuple> relation_over(const std::vector<std::uint64_t>& pool, std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<tuple> out(count);
  for (tuple& t : out) t = {pool[rng() % pool.size()], rng()};
  return out;
}

// A primary-key R with the extreme keys 0 and 2^64-1 among its keys.
inline std::vector<tuple> primary_keys_with_extremes(std::size_t count, std::uint64_t seed) {
  std::vector<tuple> out = primary_key_relation(count, 1, seed);
  if (out.size() >= 2) {
    out[0].key = 0;
    out[1].key = max_key;
  }
  return out;
}

// The shapes of one seed. With `unique_build`, every R has unique keys (the index join's
// precondition); otherwise R repeats keys in most shapes. Sizes vary with the seed and are
// rarely multiples of a group.
inline std::vector<join_case> join_cases(std::uint64_t seed, bool unique_build) {
  std::mt19937_64 rng(seed);
  const std::size_t r_size = 40 + rng() % 180;
  const std::size_t s_size = 30 + rng() % 250;
  std::vector<join_case> cases;
  if (unique_build) {
    cases.push_back({"foreign keys", primary_key_relation(r_size, 0, seed), random_relation(s_size, 0, r_size, seed + 1)});
    cases.push_back({"some matches", primary_key_relation(r_size, 100, seed), random_relation(s_size, 0, 2 * r_size, seed + 1)});
    cases.push_back({"skewed probe", primary_key_relation(r_size, 0, seed), random_relation(s_size, 0, r_size, seed + 1, 1.5)});
  } else {
    cases.push_back({"duplicates both sides", random_relation(r_size, 0, 25, seed), random_relation(s_size, 0, 30, seed + 1)});
    cases.push_back({"skewed both sides", random_relation(r_size, 0, 200, seed, 1.5),
                     random_relation(s_size, 0, 200, seed + 1, 1.5)});
    cases.push_back({"one key everywhere", random_relation(r_size, 7, 1, seed), random_relation(s_size / 4 + 1, 7, 1, seed + 1)});
    cases.push_back({"wide key range", random_relation(r_size, 0, max_key, seed),
                     relation_over({0, 1, max_key}, s_size, seed + 1)});
  }
  const std::vector<tuple> pk = primary_keys_with_extremes(r_size, seed);
  std::vector<tuple> all_matches = pk;
  all_matches.resize(s_size);
  for (std::size_t i = pk.size(); i < all_matches.size(); ++i) all_matches[i] = {pk[i % pk.size()].key, rng()};
  for (tuple& t : all_matches) t.payload = rng();
  std::shuffle(all_matches.begin(), all_matches.end(), rng);
  cases.push_back({"all matches, extreme keys", pk, all_matches});
  cases.push_back({"no matches", unique_build ? primary_key_relation(r_size, 0, seed) : random_relation(r_size, 0, 1000, seed),
                   random_relation(s_size, 1'000'000, 1000, seed + 1)});
  const std::vector<std::uint64_t> extremes = {0, 1, max_key - 1, max_key};
  cases.push_back({"extreme keys only", unique_build ? relation_over(extremes, 0, seed) : relation_over(extremes, r_size, seed),
                   relation_over(extremes, s_size, seed + 1)});
  if (unique_build) {
    cases.back().build = {{0, rng()}, {1, rng()}, {max_key - 1, rng()}, {max_key, rng()}};
  }
  cases.push_back({"empty build", {}, random_relation(s_size, 0, 50, seed + 1)});
  cases.push_back({"empty probe", unique_build ? pk : random_relation(r_size, 0, 50, seed), {}});
  cases.push_back({"single tuples", {{max_key, 5}}, {{max_key, 6}}});
  return cases;
}

// The shapes the partitioned joins run over, larger than join_cases' (partitions of several
// fragments): duplicates on both sides, no matches, all matches, every tuple in partition 0 at
// any radix bits up to 20, power-law skew, primary keys, empty inputs, the extreme keys 0 and
// 2^64 - 1; sizes that are multiples of nothing.
inline std::vector<join_case> partitioned_join_cases(std::uint64_t seed) {
  std::vector<join_case> shapes;
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

// The group sizes every technique runs at: 1, small ones, and one larger than any input.
inline std::vector<std::size_t> test_groups(const join_case& c) {
  return {1, 2, 7, 16, std::max(c.build.size(), c.probe.size()) + 5};
}

// Same count and checksum as the oracle, and the same rows once sorted (when materialized).
inline void expect_same_join(const join_output& actual, const join_output& expected, const std::string& what) {
  EXPECT_EQ(actual.result().matches, expected.result().matches) << what;
  EXPECT_EQ(actual.result().checksum, expected.result().checksum) << what;
  if (actual.materializes()) {
    std::vector<joined_tuple> rows = actual.rows();
    std::sort(rows.begin(), rows.end());
    EXPECT_EQ(rows, expected.rows()) << what;
  }
}

}  // namespace braid::join::testing
