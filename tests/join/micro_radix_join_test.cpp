// The micro-partitioned radix join on the task runtime against the multimap oracle: every
// shape of partitioned_join_cases (duplicates, no matches, all matches, one partition, empty
// inputs, extreme keys) over several seeds, with 1 and 2 workers, both schedules (pairs, phases),
// fragment capacities 4 (many tasks), 128 and 256, write-combine buffers on and off, prefetch
// sizes 0, 512 and 1024 bytes, and morsels that do not divide the inputs; every tuple in one
// partition with many tasks in its squad; under pairs, probe tasks that reach the owner before
// another worker's build tasks wait and are not lost, and the workers' tables are reused
// (at most one per worker with partitions built and probed back to back); a joiner is reused
// across runs; bad arguments refused.
// braid-test: concurrent
// braid-test: workload
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "braid/join/micro_radix_join.hpp"
#include "join/join_test_cases.hpp"
#include "join/reference_join.hpp"

namespace braid::join {
namespace {

using testing::join_case;

tasks::runtime_config config_of(unsigned workers) {
  tasks::runtime_config config;
  config.workers = workers;
  return config;
}

void expect_same_as_oracle(micro_radix_joiner& joiner, const join_case& shape) {
  const micro_radix_join_options& options = joiner.options();
  SCOPED_TRACE(::testing::Message() << shape.name << " bits " << options.bits << " fragment " << options.fragment_tuples
                                  << " wc " << options.write_combine << " prefetch " << options.prefetch_bytes
                                  << " morsel " << options.morsel_tuples << " schedule "
                                  << (options.schedule == micro_join_schedule::pairs ? "pairs" : "phases"));
  const join_output expected = testing::reference_join(shape.build, shape.probe, options.materialize);
  join_output got = joiner.run(shape.build, shape.probe);
  EXPECT_EQ(got.result(), expected.result());
  if (options.materialize) {
    std::sort(got.rows().begin(), got.rows().end());
    EXPECT_EQ(got.rows(), expected.rows());
  }
}

constexpr std::array<micro_join_schedule, 2> schedules = {micro_join_schedule::pairs, micro_join_schedule::phases};

TEST(MicroRadixJoin, MatchesTheOracleOnEveryShape) {
  for (unsigned workers : {1u, 2u}) {
    tasks::runtime runtime(config_of(workers));
    for (micro_join_schedule schedule : schedules) {
      for (unsigned bits : {1u, 4u, 10u}) {
        for (std::size_t fragment : {4u, 128u, 256u}) {
          for (bool write_combine : {false, true}) {
            // The phases schedule (the older one) without write-combining and with fragments of
            // 4 and 256 only: it adds time (also under TSan).
            if (schedule == micro_join_schedule::phases && (write_combine || fragment == 128)) continue;
            micro_radix_joiner joiner(runtime, {.bits = bits, .fragment_tuples = fragment,
                                                .write_combine = write_combine,
                                                .prefetch_bytes = fragment == 4 ? 0u : 512u, .morsel_tuples = 333,
                                                .materialize = true, .schedule = schedule});
            // A seed of its own per configuration: many seeds over the whole test.
            const std::uint64_t seed = workers * 1000 + bits * 31 + fragment + (write_combine ? 7 : 0) +
                                       (schedule == micro_join_schedule::pairs ? 0 : 50000);
            for (const join_case& shape : testing::partitioned_join_cases(seed)) {
              SCOPED_TRACE(::testing::Message() << "workers " << workers << " seed " << seed);
              expect_same_as_oracle(joiner, shape);
            }
          }
        }
      }
    }
  }
}

// Every tuple of R and S in partition 0 (keys multiples of 2^bits): one squad holds all the
// fragment tasks, from both workers' morsels, so under pairs the owner's probe tasks come
// before the other worker's build tasks.
TEST(MicroRadixJoin, EveryTupleInOnePartition) {
  for (unsigned workers : {1u, 2u}) {
    tasks::runtime runtime(config_of(workers));
    for (micro_join_schedule schedule : schedules) {
      for (std::size_t fragment : {4u, 128u, 256u}) {
        micro_radix_joiner joiner(runtime, {.bits = 6, .fragment_tuples = fragment, .morsel_tuples = 250,
                                            .materialize = true, .schedule = schedule});
        for (std::uint64_t seed = 1; seed <= 6; ++seed) {
          auto build = testing::random_relation(900 + seed * 37, 0, 120, seed);
          auto probe = testing::random_relation(1100 + seed * 53, 0, 150, seed + 100);
          for (tuple& t : build) t.key <<= 6;
          for (tuple& t : probe) t.key <<= 6;
          SCOPED_TRACE(::testing::Message() << "workers " << workers << " fragment " << fragment << " seed " << seed);
          expect_same_as_oracle(joiner, {"one-partition", build, probe});
          if (schedule == micro_join_schedule::pairs) {
            EXPECT_EQ(joiner.tables_allocated(), 1u) << "one partition: one table";
            if (workers == 2) {
              EXPECT_GT(joiner.last_waiting_probes(), 0u) << "the owner's probes came first";
            }
          }
          if (workers == 1 || schedule == micro_join_schedule::phases) {
            EXPECT_EQ(joiner.last_waiting_probes(), 0u);
          }
        }
      }
    }
  }
}

TEST(MicroRadixJoin, PairsReuseOneTablePerWorkerPhasesOnePerPartition) {
  const auto build = testing::random_relation(20000, 0, 6000, 21);
  const auto probe = testing::random_relation(30000, 0, 8000, 22);
  const join_result expected = testing::reference_join(build, probe, false).result();
  for (unsigned workers : {1u, 2u}) {
    tasks::runtime runtime(config_of(workers));
    for (micro_join_schedule schedule : schedules) {
      micro_radix_joiner joiner(runtime, {.bits = 5, .fragment_tuples = 128, .morsel_tuples = 1024,
                                          .schedule = schedule});
      for (int repeat = 0; repeat < 3; ++repeat) {
        EXPECT_EQ(joiner.run(build, probe).result(), expected);
        if (schedule == micro_join_schedule::pairs) {
          EXPECT_GE(joiner.tables_allocated(), 1u);
          EXPECT_LE(joiner.tables_allocated(), workers) << "workers " << workers;
          if (workers == 2) {
            EXPECT_GT(joiner.last_waiting_probes(), 0u);
          } else {
            EXPECT_EQ(joiner.last_waiting_probes(), 0u);
          }
        } else {
          EXPECT_EQ(joiner.tables_allocated(), joiner.fanout()) << "every partition has R tuples";
          EXPECT_EQ(joiner.last_waiting_probes(), 0u);
        }
      }
    }
  }
}

TEST(MicroRadixJoin, ManySeedsCountedOnly) {
  for (unsigned workers : {1u, 2u}) {
    tasks::runtime runtime(config_of(workers));
    for (micro_join_schedule schedule : schedules) {
      for (std::size_t fragment : {4u, 128u, 256u}) {
        micro_radix_joiner joiner(runtime, {.bits = 6, .fragment_tuples = fragment, .prefetch_bytes = 1024,
                                            .morsel_tuples = 1000, .schedule = schedule});
        for (std::uint64_t seed = 10; seed < 30; ++seed) {
          const auto build = testing::random_relation(700 + seed * 13, 0, 500, seed);
          const auto probe = testing::random_relation(900 + seed * 71, 0, 700, seed + 1000);
          const join_output got = joiner.run(build, probe);
          EXPECT_EQ(got.result(), testing::reference_join(build, probe, false).result())
              << "workers " << workers << " fragment " << fragment << " seed " << seed;
          EXPECT_TRUE(got.rows().empty());
          EXPECT_GT(joiner.last_phases().partition_ns, 0.0);
          EXPECT_GT(joiner.last_phases().build_probe_ns, 0.0);
        }
      }
    }
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
  EXPECT_THROW(micro_radix_joiner(runtime, {.bits = 4, .schedule = static_cast<micro_join_schedule>(7)}),
               std::invalid_argument);
}

}  // namespace
}  // namespace braid::join
