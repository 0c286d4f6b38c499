// The micro-partitioned radix join on the task runtime against the multimap oracle: every
// shape of join_shapes.hpp (duplicates, no matches, all matches, one partition, empty inputs,
// extreme keys) over several seeds, with 1 and 2 workers, fragment capacities 4 (many tasks),
// 128 and 256, write-combine buffers on and off, prefetch sizes 0, 512 and 1024 bytes, and
// morsels that do not divide the inputs; a joiner is reused across runs; bad arguments refused.
// braid-test: concurrent
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "braid/join/micro_radix_join.hpp"
#include "join/join_shapes.hpp"
#include "join/reference_join.hpp"

namespace braid::join {
namespace {

using testing::join_shape;

tasks::runtime_config config_of(unsigned workers) {
  tasks::runtime_config config;
  config.workers = workers;
  config.latency = tasks::memory_latency{100, 10};  // no latency probe in tests
  return config;
}

void expect_same_as_oracle(micro_radix_joiner& joiner, const join_shape& shape) {
  const micro_radix_join_options& options = joiner.options();
  SCOPED_TRACE(::testing::Message() << shape.name << " bits " << options.bits << " fragment " << options.fragment_tuples
                                  << " wc " << options.write_combine << " prefetch " << options.prefetch_bytes
                                  << " morsel " << options.morsel_tuples);
  const join_output expected = testing::reference_join(shape.build, shape.probe, options.materialize);
  join_output got = joiner.run(shape.build, shape.probe);
  EXPECT_EQ(got.result(), expected.result());
  if (options.materialize) {
    std::sort(got.rows().begin(), got.rows().end());
    EXPECT_EQ(got.rows(), expected.rows());
  }
}

TEST(MicroRadixJoin, MatchesTheOracleOnEveryShape) {
  for (unsigned workers : {1u, 2u}) {
    tasks::runtime runtime(config_of(workers));
    for (unsigned bits : {1u, 4u, 10u}) {
      for (std::size_t fragment : {4u, 128u, 256u}) {
        for (bool write_combine : {false, true}) {
          micro_radix_joiner joiner(runtime, {.bits = bits, .fragment_tuples = fragment, .write_combine = write_combine,
                                              .prefetch_bytes = fragment == 4 ? 0u : 512u, .morsel_tuples = 333,
                                              .materialize = true});
          // A seed of its own per configuration: many seeds over the whole test.
          const std::uint64_t seed = workers * 1000 + bits * 31 + fragment + (write_combine ? 7 : 0);
          for (const join_shape& shape : testing::join_shapes(seed)) {
            SCOPED_TRACE(::testing::Message() << "workers " << workers << " seed " << seed);
            expect_same_as_oracle(joiner, shape);
          }
        }
      }
    }
  }
}

TEST(MicroRadixJoin, ManySeedsCountedOnly) {
  tasks::runtime runtime(config_of(2));
  micro_radix_joiner joiner(runtime, {.bits = 6, .fragment_tuples = 128, .prefetch_bytes = 1024, .morsel_tuples = 1000});
  for (std::uint64_t seed = 10; seed < 40; ++seed) {
    const auto build = testing::random_relation(700 + seed * 13, 0, 500, seed);
    const auto probe = testing::random_relation(900 + seed * 71, 0, 700, seed + 1000);
    const join_output got = joiner.run(build, probe);
    EXPECT_EQ(got.result(), testing::reference_join(build, probe, false).result()) << "seed " << seed;
    EXPECT_TRUE(got.rows().empty());
    EXPECT_GT(joiner.last_phases().partition_ns, 0.0);
    EXPECT_GT(joiner.last_phases().build_probe_ns, 0.0);
  }
}

TEST(MicroRadixJoin, RuntimeStaysUsableBetweenJoins) {
  tasks::runtime runtime(config_of(2));
  const auto build = testing::random_relation(2000, 0, 900, 3);
  const auto probe = testing::random_relation(2500, 0, 900, 4);
  const join_result expected = testing::reference_join(build, probe, false).result();
  for (unsigned bits : {2u, 8u}) {
    EXPECT_EQ(micro_radix_join(runtime, build, probe, {.bits = bits, .fragment_tuples = 256}).result(), expected);
  }
}

TEST(MicroRadixJoin, RefusesBadArguments) {
  tasks::runtime runtime(config_of(1));
  EXPECT_THROW(micro_radix_joiner(runtime, {.bits = 0}), std::invalid_argument);
  EXPECT_THROW(micro_radix_joiner(runtime, {.bits = 21}), std::invalid_argument);
  EXPECT_THROW(micro_radix_joiner(runtime, {.bits = 4, .fragment_tuples = 0}), std::invalid_argument);
  EXPECT_THROW(micro_radix_joiner(runtime, {.bits = 4, .fragment_tuples = 100}), std::invalid_argument);
  EXPECT_THROW(micro_radix_joiner(runtime, {.bits = 4, .prefetch_bytes = 1u << 20}), std::invalid_argument);
  EXPECT_THROW(micro_radix_joiner(runtime, {.bits = 4, .morsel_tuples = 0}), std::invalid_argument);
}

}  // namespace
}  // namespace braid::join
