// Differential checking shared by the index tests: every technique of a structure's
// multi_find, at every group size and both prefetch hints, must return exactly the expected
// results (computed from the plain lookup and from a standard container by the caller).
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "braid/core/all.hpp"
#include "braid/index/detail/multi_find.hpp"
#include "braid/index/technique.hpp"

namespace braid::testing {

inline constexpr std::array<std::size_t, 6> differential_groups = {1, 2, 3, 7, 16, 64};
inline constexpr std::array<technique, 6> all_techniques = {technique::naive, technique::gp, technique::amac,
                                                            technique::coro, technique::fiber, technique::adaptive};
// The nested coroutine and the generated IMLP techniques, checked on the structures that have
// them (a lookup_nested, a kernel).
inline constexpr std::array<technique, 4> optional_techniques = {technique::coro_nested, technique::imlp_dynamic,
                                                                 technique::imlp_static, technique::imlp_hybrid};

// Batch lengths that cover the empty input, inputs shorter than a group, exact multiples of
// the group sizes and ragged last groups.
inline constexpr std::array<std::size_t, 9> batch_lengths = {0, 1, 2, 5, 16, 63, 64, 65, 300};

// Both prefetch hints in optimized builds; one under sanitizers, where each fiber costs a few
// system calls (the fake-stack bookkeeping) and the hint changes no logic.
#if defined(BRAID_SANITIZED)
inline constexpr int hints_checked = 1;
#else
inline constexpr int hints_checked = 2;
#endif

// Runs every technique x group x hint on `keys`; `poison` prefills the output so that a
// technique that forgets to write a result (an absent key, the last partial group, the
// drain) is caught.
template <class Structure, class Key, class Result>
void expect_all_techniques_agree(const Structure& structure, const std::vector<Key>& keys,
                                 const std::vector<Result>& expected, const Result& poison,
                                 const std::string& context) {
  ASSERT_EQ(keys.size(), expected.size());
  std::vector<technique> techniques(all_techniques.begin(), all_techniques.end());
  for (technique how : optional_techniques) {
    if (detail::implements<Structure, Key, Result, prefetch_hint::t0>(how)) techniques.push_back(how);
  }
  for (technique how : techniques) {
    for (std::size_t group : differential_groups) {
      for (int hint = 0; hint < hints_checked; ++hint) {
        std::vector<Result> out(keys.size(), poison);
        if (hint == 0) {
          structure.template multi_find<prefetch_hint::t0>(std::span<const Key>(keys), std::span<Result>(out), how,
                                                           group);
        } else {
          structure.template multi_find<prefetch_hint::nta>(std::span<const Key>(keys), std::span<Result>(out), how,
                                                            group);
        }
        for (std::size_t i = 0; i < keys.size(); ++i) {
          if (out[i] != expected[i]) {
            ADD_FAILURE() << context << ": technique " << to_string(how) << ", group " << group << ", hint "
                          << (hint == 0 ? "t0" : "nta") << ": result " << i << " of " << keys.size()
                          << " differs from the plain lookup";
            return;
          }
        }
      }
    }
  }
}

// multi_find refuses an output shorter than the input and a group of 0, for every technique.
template <class Structure>
void expect_bad_batches_rejected(const Structure& structure) {
  using key = typename Structure::key_type;
  using result = typename Structure::result_type;
  std::vector<key> keys(4);
  for (technique how : all_techniques) {
    std::vector<result> short_out(3);
    EXPECT_THROW(structure.multi_find(std::span<const key>(keys), std::span<result>(short_out), how, 4),
                 std::invalid_argument)
        << to_string(how);
    std::vector<result> out(4);
    EXPECT_THROW(structure.multi_find(std::span<const key>(keys), std::span<result>(out), how, 0),
                 std::invalid_argument)
        << to_string(how);
  }
}

// The coroutine's sequential instantiation is the plain algorithm: it must finish without
// suspending and agree with find(); its interleaved instantiation, run to completion one at a
// time, must agree too.
template <class Structure, class Key>
void expect_coroutine_modes_agree(const Structure& structure, const std::vector<Key>& keys,
                                  const std::string& context) {
  for (std::size_t i = 0; i < keys.size(); ++i) {
    auto plain = structure.find(keys[i]);
    auto sequential_lookup = structure.template lookup<sequential>(keys[i]);
    ASSERT_TRUE(sequential_lookup.done()) << context << ": the sequential coroutine suspended";
    ASSERT_EQ(sequential_lookup.take_result(), plain) << context << ": key " << i;
    auto interleaved_lookup = structure.template lookup<interleaved>(keys[i]);
    while (!interleaved_lookup.done()) interleaved_lookup.resume();
    ASSERT_EQ(interleaved_lookup.take_result(), plain) << context << ": key " << i;
  }
}

// One batch of a differential test: every technique, group and hint against `expected` (with
// `poison` prefilled), and the coroutine's execution modes; failures name the batch.
template <class Structure, class Key, class Result>
void expect_batch_agrees(const Structure& structure, const std::vector<Key>& keys, const std::vector<Result>& expected,
                         const Result& poison, const std::string& context, double hit_share) {
  const std::string batch =
      context + ", batch of " + std::to_string(keys.size()) + " keys, hit share " + std::to_string(hit_share);
  expect_all_techniques_agree(structure, keys, expected, poison, batch);
  expect_coroutine_modes_agree(structure, keys, batch);
}

// The batches of a hash table's differential test: for every batch length and a hit share of
// 0, 0.5 and 1, keys from draw_key(hit, keys drawn so far), where `hit` draws true at the hit
// share; each key's expected result is the oracle's (a map from key to value), checked first
// against the plain lookup, then the whole batch with expect_batch_agrees.
template <class Table, class Oracle, class DrawKey>
void expect_hash_batches_agree(const Table& table, const Oracle& oracle, DrawKey draw_key,
                               const typename Table::result_type& poison, const std::string& context) {
  using key = typename Table::key_type;
  using result = typename Table::result_type;
  for (std::size_t length : batch_lengths) {
    for (double hit_share : {0.0, 0.5, 1.0}) {
      std::bernoulli_distribution hit(hit_share);
      std::vector<key> keys;
      std::vector<result> expected;
      while (keys.size() < length) {
        keys.push_back(draw_key(hit, keys));
        const auto found = oracle.find(keys.back());
        expected.push_back(found == oracle.end() ? result{} : result{found->second});
        ASSERT_EQ(table.find(keys.back()), expected.back()) << context << ": plain lookup of " << keys.back();
      }
      expect_batch_agrees(table, keys, expected, poison, context, hit_share);
    }
  }
}

// Seeds for one test: many by default, fewer under sanitizers (which run ~10x slower).
inline std::vector<std::uint64_t> differential_seeds() {
#if defined(BRAID_SANITIZED)
  constexpr std::uint64_t count = 4;
#else
  constexpr std::uint64_t count = 24;
#endif
  std::vector<std::uint64_t> seeds;
  for (std::uint64_t seed = 1; seed <= count; ++seed) seeds.push_back(seed * 0x9E3779B97F4A7C15ull);
  return seeds;
}

}  // namespace braid::testing
