// The input shapes the join tests run every algorithm over, and the comparison with the oracle
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
