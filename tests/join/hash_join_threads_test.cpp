// braid-test: concurrent
// The no-partition hash join's multi-threaded probe against the multimap oracle: S split across
// 2 to 4 workers (more workers than probe tuples too), every probe technique, one sink per
// worker merged with absorb; and a runner reused across probes of one table.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "braid/core/thread_runner.hpp"
#include "braid/join/hash_join.hpp"
#include "join/join_test_cases.hpp"
#include "join/reference_join.hpp"

namespace braid::join {
namespace {

using testing::expect_same_join;
using testing::join_case;
using testing::reference_join;

TEST(NoPartitionJoinThreads, SplitProbeMatchesTheOracle) {
  for (int seed = 0; seed < 3; ++seed) {
    for (const join_case& c : testing::join_cases(static_cast<std::uint64_t>(seed), false)) {
      const join_output expected = reference_join(c.build, c.probe);
      for (unsigned threads : {2u, 3u, 4u}) {
        for (technique how : hash_join_techniques) {
          for (std::size_t group : {1, 7}) {
            no_partition_options options;
            options.build_technique = how;
            options.probe_technique = how;
            options.group = group;
            options.threads = threads;
            options.materialize = true;
            options.pages = page_size::small_4k;
            expect_same_join(no_partition_join(c.build, c.probe, options), expected,
                             c.name + ", " + std::string(to_string(how)) + ", " + std::to_string(threads) +
                                 " threads, group " + std::to_string(group));
          }
        }
      }
    }
  }
}

TEST(NoPartitionJoinThreads, OneRunnerProbesOneTableRepeatedly) {
  const std::vector<tuple> build = testing::random_relation(500, 0, 300, 11);
  const std::vector<tuple> probe = testing::random_relation(3, 0, 300, 12);  // fewer tuples than workers
  const std::vector<tuple> longer = testing::random_relation(700, 0, 320, 13, 1.0);
  no_partition_hash_table table(build.size(), page_size::small_4k);
  table.build(build, technique::gp, 8);
  thread_runner runner(4);
  for (technique how : hash_join_techniques) {
    expect_same_join(probe_in_parallel(table, probe, how, 16, runner, true), reference_join(build, probe),
                     std::string(to_string(how)) + " short");
    expect_same_join(probe_in_parallel(table, longer, how, 5, runner, false), reference_join(build, longer, false),
                     std::string(to_string(how)) + " long");
  }
  EXPECT_THROW((void)probe_in_parallel(table, probe, technique::fiber, 4, runner, false), std::invalid_argument);
  EXPECT_THROW((void)probe_in_parallel(table, probe, technique::amac, 0, runner, false), std::invalid_argument);
}

}  // namespace
}  // namespace braid::join
