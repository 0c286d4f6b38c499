// The classical radix join against the multimap oracle over many seeds and shapes: duplicates on
// both sides, no matches, all matches, skew (every tuple in one partition), empty inputs,
// extreme keys, sizes that are multiples of nothing; bits 1..14, one and two passes,
// write-combine buffers on and off, 1 and 2 threads; materialized rows compared after sorting.
// braid-test: concurrent
// braid-test: workload
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "braid/join/radix_join.hpp"
#include "join/join_test_cases.hpp"
#include "join/reference_join.hpp"

namespace braid::join {
namespace {

using testing::join_case;

void expect_same_as_oracle(const join_case& shape, const join_output& expected, const radix_join_options& options) {
  SCOPED_TRACE(::testing::Message() << shape.name << " bits " << options.bits << " passes " << options.passes << " wc "
                                  << options.write_combine << " threads " << options.threads);
  radix_join_options materialized = options;
  materialized.materialize = true;
  join_output got = radix_join(shape.build, shape.probe, materialized);
  EXPECT_EQ(got.result(), expected.result());
  std::sort(got.rows().begin(), got.rows().end());
  EXPECT_EQ(got.rows(), expected.rows());
  const join_output counted = radix_join(shape.build, shape.probe, options);
  EXPECT_EQ(counted.result(), expected.result());
  EXPECT_TRUE(counted.rows().empty());
}

TEST(RadixJoin, MatchesTheOracleOnEveryShape) {
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    for (const join_case& shape : testing::partitioned_join_cases(seed)) {
      const join_output expected = testing::reference_join(shape.build, shape.probe);
      for (unsigned bits : {1u, 4u, 10u, 14u}) {
        for (unsigned passes : {1u, 2u}) {
          if (passes == 2 && bits < 2) continue;
          for (bool write_combine : {false, true}) {
            for (unsigned threads : {1u, 2u}) {
              expect_same_as_oracle(shape, expected, {.bits = bits, .passes = passes, .write_combine = write_combine,
                                            .threads = threads});
            }
          }
        }
      }
    }
  }
}

TEST(RadixJoin, ManySeedsAtTenBits) {
  for (std::uint64_t seed = 10; seed < 40; ++seed) {
    const auto build = testing::random_relation(700 + seed * 13, 0, 500, seed);
    const auto probe = testing::random_relation(900 + seed * 7, 0, 700, seed + 1000);
    const join_output expected = testing::reference_join(build, probe, false);
    EXPECT_EQ(radix_join(build, probe, {.bits = 10, .threads = static_cast<unsigned>(1 + seed % 2)}).result(), expected.result());
  }
}

TEST(RadixJoin, JoinerReusesItsBuffersAcrossRuns) {
  radix_joiner joiner({.bits = 6, .passes = 2, .write_combine = true, .threads = 2});
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const auto build = testing::random_relation(3000 / seed, 0, 800, seed);
    const auto probe = testing::random_relation(500 * seed, 0, 800, seed + 50);
    EXPECT_EQ(joiner.run(build, probe).result(), testing::reference_join(build, probe, false).result());
    EXPECT_GE(joiner.last_phases().partition_ns, 0.0);
    EXPECT_GE(joiner.last_phases().build_probe_ns, 0.0);
  }
}

TEST(RadixJoin, RefusesBadArguments) {
  EXPECT_THROW(radix_joiner({.bits = 0}), std::invalid_argument);
  EXPECT_THROW(radix_joiner({.bits = 21}), std::invalid_argument);
  EXPECT_THROW(radix_joiner({.bits = 8, .passes = 3}), std::invalid_argument);
  EXPECT_THROW(radix_joiner({.bits = 1, .passes = 2}), std::invalid_argument);
  EXPECT_THROW(radix_joiner({.bits = 8, .threads = 0}), std::invalid_argument);
}

}  // namespace
}  // namespace braid::join
