// Test support for the ordered indexes (binary search tree, skip list, CSB+-tree, B+-tree):
// the differential checks of multi_find and multi_scan against std::map for every technique
// and group size, and the key mixes the tests draw (hits, misses, repeats), all deterministic for a seed;
// the checks of the indexes built by inserts: a bulk build equals one-by-one inserts, and
// erased nodes are reused.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "braid/core/prefetch.hpp"
#include "braid/core/scheduler.hpp"
#include "braid/index/technique.hpp"

namespace braid::testing {

inline const std::vector<std::size_t> ordered_group_sizes = {1, 2, 3, 7, 16, 64};

// One group size per batch of a long random interleaving, cycling through all of them (the
// dedicated differential tests run every size on every input; a batch runs one, to stay fast
// under the sanitizers).
inline std::vector<std::size_t> rotating_group(std::size_t batch) {
  return {ordered_group_sizes[batch % ordered_group_sizes.size()]};
}

using oracle_map = std::map<std::uint64_t, std::uint64_t>;

inline std::string seed_label(std::uint64_t seed) { return "seed " + std::to_string(seed); }

// A value derived from the key, so a wrong pairing of key and value is visible.
inline std::uint64_t value_for(std::uint64_t key) { return key * 0x9E3779B97F4A7C15ull + 7; }

// Values for building from `keys` in insertion order: value_for(key) + position, so that a
// repeated key's values differ; `oracle` records each key with its first value, which the
// build must keep.
inline std::vector<std::uint64_t> insertion_values(const std::vector<std::uint64_t>& keys, oracle_map& oracle) {
  std::vector<std::uint64_t> values(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    values[i] = value_for(keys[i]) + i;
    oracle.emplace(keys[i], values[i]);
  }
  return values;
}

// `count` keys drawn from [0, key_range): repeats are likely when the range is small.
inline std::vector<std::uint64_t> random_keys(std::size_t count, std::uint64_t key_range, std::mt19937_64& random) {
  std::uniform_int_distribution<std::uint64_t> draw(0, key_range - 1);
  std::vector<std::uint64_t> keys(count);
  for (auto& key : keys) key = draw(random);
  return keys;
}

// Lookup keys: present keys, absent keys (from the same range), the same key several times in
// a row, and the extremes of the key type.
inline std::vector<std::uint64_t> lookup_mix(const oracle_map& oracle, std::size_t count, std::uint64_t key_range,
                                             std::mt19937_64& random) {
  std::vector<std::uint64_t> present;
  for (const auto& entry : oracle) present.push_back(entry.first);
  std::uniform_int_distribution<std::uint64_t> any(0, key_range - 1);
  std::vector<std::uint64_t> keys;
  keys.reserve(count + 8);
  while (keys.size() < count) {
    const std::uint64_t choice = random() % 4;
    if (choice < 2 && !present.empty()) {
      keys.push_back(present[random() % present.size()]);
    } else if (choice == 2) {
      keys.push_back(any(random));
    } else if (!keys.empty()) {
      keys.push_back(keys.back());  // repeated lookup
    }
  }
  keys.push_back(0);
  keys.push_back(~std::uint64_t{0});
  if (!present.empty()) {
    keys.push_back(present.front());
    keys.push_back(present.back());
  }
  return keys;
}

inline std::vector<std::optional<std::uint64_t>> expected_lookups(const oracle_map& oracle,
                                                                  std::span<const std::uint64_t> keys) {
  std::vector<std::optional<std::uint64_t>> expected(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (auto found = oracle.find(keys[i]); found != oracle.end()) expected[i] = found->second;
  }
  return expected;
}

// `operations` random inserts (`insert_share` percent) and erases of keys below `key_range`,
// applied to `index` and `oracle` alike; each write must report what the oracle's did.
template <class Index>
void apply_random_writes(Index& index, oracle_map& oracle, int operations, unsigned insert_share,
                         std::uint64_t key_range, std::mt19937_64& random) {
  for (int op = 0; op < operations; ++op) {
    const std::uint64_t key = random() % key_range;
    if (random() % 100 < insert_share) {
      const std::uint64_t value = random();
      ASSERT_EQ(index.insert(key, value), oracle.emplace(key, value).second) << "insert " << key;
    } else {
      ASSERT_EQ(index.erase(key), oracle.erase(key) == 1) << "erase " << key;
    }
  }
}

// Checks index.multi_find(keys, ..., how, group) against the oracle for every technique in
// `techniques` and every group size in `groups`; on a mismatch, names technique, group, position and key.
template <class Index>
void expect_multi_find_agrees(const Index& index, const oracle_map& oracle, std::span<const std::uint64_t> keys,
                              const std::vector<technique>& techniques, const std::string& where,
                              const std::vector<std::size_t>& groups = ordered_group_sizes) {
  const auto expected = expected_lookups(oracle, keys);
  for (technique how : techniques) {
    for (std::size_t group : groups) {
      std::vector<std::optional<std::uint64_t>> got(keys.size(), std::optional<std::uint64_t>{12345});
      index.multi_find(keys, std::span(got), how, group);
      for (std::size_t i = 0; i < keys.size(); ++i) {
        if (got[i] != expected[i]) {
          FAIL() << where << ": technique " << to_string(how) << " group " << group << " position " << i << " key "
                 << keys[i] << ": got " << (got[i] ? std::to_string(*got[i]) : "absent") << ", std::map says "
                 << (expected[i] ? std::to_string(*expected[i]) : "absent");
        }
      }
    }
  }
}

// Lookups of `keys` (a mix of hits, misses and repeats) must agree with the oracle for every
// technique and group, also for the first `few` keys (fewer than a group), and through
// lookup<sequential>.
template <class Index>
void expect_lookups_agree(const Index& index, const oracle_map& oracle, std::span<const std::uint64_t> keys,
                          std::size_t few, const std::vector<technique>& techniques) {
  expect_multi_find_agrees(index, oracle, keys, techniques, "lookups");
  expect_multi_find_agrees(index, oracle, keys.first(few), techniques, "first " + std::to_string(few) + " keys");
  const auto sequential_results =
      run(sequential_scheduler{}, keys, [&](std::uint64_t key) { return index.template lookup<sequential>(key); });
  ASSERT_EQ(sequential_results, expected_lookups(oracle, keys));
}

// For seeds 1..12 and 1, 2, 5, 100 and 1,500 random keys (dense ranges for even seeds, the
// whole 64-bit range for odd ones): the index build(keys, oracle, seed) returns must hold what
// the oracle holds and keep its invariants; its lookups of a mix of hits, misses and repeats
// must agree (expect_lookups_agree, `few` = 3); then also(index, keys) checks what is its own.
template <class Build, class Also>
void expect_random_lookups_agree(const std::vector<technique>& techniques, Build build, Also also) {
  for (std::uint64_t seed = 1; seed <= 12 && !::testing::Test::HasFatalFailure(); ++seed) {
    std::mt19937_64 random(seed);
    for (std::size_t count : {1, 2, 5, 100, 1500}) {
      SCOPED_TRACE(seed_label(seed) + " count " + std::to_string(count));
      const std::uint64_t key_range = seed % 2 == 0 ? count * 3 : ~std::uint64_t{0};
      oracle_map oracle;
      const auto index = build(random_keys(count, key_range, random), oracle, seed);
      ASSERT_EQ(index.size(), oracle.size());
      index.check_invariants();
      const auto keys = lookup_mix(oracle, 300, key_range, random);
      ASSERT_NO_FATAL_FAILURE(expect_lookups_agree(index, oracle, keys, 3, techniques));
      also(index, keys);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// For seeds 1..20: 1 to `max_count` random keys (below `small_range` for every third seed, so
// that keys repeat; else below 1,000,000), the index build(keys, oracle, seed) builds from them
// at once and the one make_empty(seed) becomes by inserting (key, insertion value) one by one;
// then compare(bulk, inserted, oracle) checks that they are the same.
template <class Build, class MakeEmpty, class Compare>
void expect_bulk_build_equals_inserts(std::size_t max_count, std::uint64_t small_range, Build build, MakeEmpty make_empty,
                                      Compare compare) {
  for (std::uint64_t seed = 1; seed <= 20 && !::testing::Test::HasFatalFailure(); ++seed) {
    SCOPED_TRACE(seed_label(seed));
    std::mt19937_64 random(seed);
    const auto keys = random_keys(1 + random() % max_count, seed % 3 == 0 ? small_range : 1'000'000, random);
    oracle_map oracle;
    const auto bulk = build(keys, oracle, seed);
    auto inserted = make_empty(seed);
    for (std::size_t i = 0; i < keys.size(); ++i) inserted.insert(keys[i], value_for(keys[i]) + i);
    compare(bulk, inserted, oracle);
  }
}

// Inserts the keys 0..999 in a scattered order, sets `filled_bytes` to memory_bytes() then, and
// `rounds` times erases and re-inserts every even key, each write required to succeed: the churn
// after which a test of node reuse compares memory_bytes() with `filled_bytes`.
template <class Index>
void churn_even_keys(Index& index, int rounds, std::size_t& filled_bytes) {
  for (std::uint64_t key = 0; key < 1000; ++key) index.insert(key * 7919 % 1000, key);
  filled_bytes = index.memory_bytes();
  for (int round = 0; round < rounds; ++round) {
    for (std::uint64_t key = 0; key < 1000; key += 2) ASSERT_TRUE(index.erase(key));
    for (std::uint64_t key = 0; key < 1000; key += 2) ASSERT_TRUE(index.insert(key, key));
  }
}

using entries = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

// The entries std::map visits from lower_bound(start), at most `limit` of them.
inline entries expected_scan(const oracle_map& oracle, std::uint64_t start, std::size_t limit) {
  entries visited;
  for (auto it = oracle.lower_bound(start); it != oracle.end() && visited.size() < limit; ++it) visited.push_back(*it);
  return visited;
}

// Building from keys {1, 2, 3} and two values throws std::invalid_argument, and so does
// multi_find of `index` (built from those keys) with a short output or group 0, under every
// technique of `techniques`.
template <class Index, class Techniques>
void expect_bad_arguments_rejected(const Index& index, const Techniques& techniques) {
  const std::vector<std::uint64_t> keys = {1, 2, 3};
  const std::vector<std::uint64_t> too_few_values = {1, 2};
  EXPECT_THROW(Index(keys, too_few_values), std::invalid_argument);
  std::vector<std::optional<std::uint64_t>> short_output(2);
  std::vector<std::optional<std::uint64_t>> output(3);
  for (technique how : techniques) {
    EXPECT_THROW(index.multi_find(keys, std::span(short_output), how, 4), std::invalid_argument) << to_string(how);
    EXPECT_THROW(index.multi_find(keys, std::span(output), how, 0), std::invalid_argument) << to_string(how);
  }
}

// Runs `requests` with every technique of `techniques` and every group size; checks each
// request's entries and its count of visited entries.
template <class Index, class Techniques>
void expect_multi_scan_agrees(const Index& index, const oracle_map& oracle,
                              const std::vector<typename Index::scan_request>& requests, const Techniques& techniques,
                              const std::string& where, const std::vector<std::size_t>& groups = ordered_group_sizes) {
  std::vector<entries> expected(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) expected[i] = expected_scan(oracle, requests[i].start, requests[i].limit);
  for (technique how : techniques) {
    for (std::size_t group : groups) {
      std::vector<entries> got(requests.size());
      std::vector<std::size_t> visited(requests.size(), 999);
      index.multi_scan(std::span<const typename Index::scan_request>(requests), std::span(visited), how, group,
                       [&](std::size_t request, std::uint64_t key, std::uint64_t value) {
                         got.at(request).emplace_back(key, value);
                       });
      for (std::size_t i = 0; i < requests.size(); ++i) {
        ASSERT_EQ(got[i], expected[i]) << where << ": " << to_string(how) << " group " << group << " request " << i
                                       << " start " << requests[i].start << " limit " << requests[i].limit;
        ASSERT_EQ(visited[i], expected[i].size()) << where << ": " << to_string(how) << " group " << group;
      }
    }
  }
}

}  // namespace braid::testing
