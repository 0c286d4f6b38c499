// The no-partition hash join against the multimap oracle: every build technique with every
// probe technique, at groups 1, 2, 7, 16 and one larger than the input, over many seeds and
// input shapes (duplicates on both sides, skew, no and all matches, empty sides, the extreme
// keys); the single-tuple forms and the coroutines instantiated sequentially; bad arguments.
// braid-test: workload
#include "braid/join/hash_join.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "braid/core/scheduler.hpp"
#include "join/join_test_cases.hpp"
#include "join/reference_join.hpp"

namespace braid::join {
namespace {

using testing::expect_same_join;
using testing::join_case;
using testing::join_cases;
using testing::reference_join;

constexpr int seeds = 8;

no_partition_options options_of(technique build, technique probe, std::size_t group, bool materialize = true) {
  no_partition_options options;
  options.build_technique = build;
  options.probe_technique = probe;
  options.group = group;
  options.materialize = materialize;
  options.pages = page_size::small_4k;  // small tables: no 2 MiB mapping each
  return options;
}

std::string describe(const join_case& c, technique build, technique probe, std::size_t group, int seed) {
  return c.name + " (|R| " + std::to_string(c.build.size()) + ", |S| " + std::to_string(c.probe.size()) + "), build " +
         std::string(to_string(build)) + ", probe " + std::string(to_string(probe)) + ", group " +
         std::to_string(group) + ", seed " + std::to_string(seed);
}

TEST(NoPartitionJoin, EveryBuildAndProbeTechniqueMatchesTheOracle) {
  for (int seed = 0; seed < seeds; ++seed) {
    for (const join_case& c : join_cases(static_cast<std::uint64_t>(seed), /*unique_build=*/false)) {
      const join_output expected = reference_join(c.build, c.probe);
      for (technique build : hash_join_techniques) {
        for (technique probe : hash_join_techniques) {
          for (std::size_t group : testing::test_groups(c)) {
            expect_same_join(no_partition_join(c.build, c.probe, options_of(build, probe, group)), expected,
                             describe(c, build, probe, group, seed));
          }
        }
      }
    }
  }
}

TEST(NoPartitionJoin, CountsWithoutMaterializing) {
  const join_case c = join_cases(3, false).front();
  const join_output expected = reference_join(c.build, c.probe);
  ASSERT_GT(expected.result().matches, 0u);
  for (technique how : hash_join_techniques) {
    const join_output out = no_partition_join(c.build, c.probe, options_of(how, how, 5, /*materialize=*/false));
    EXPECT_EQ(out.result(), expected.result()) << to_string(how);
    EXPECT_TRUE(out.rows().empty());
  }
}

TEST(NoPartitionHashTable, EveryBuildStoresEveryTupleAndOverflowsLongChains) {
  // 300 tuples of one key: a chain of a head and 99 overflow buckets, built by every technique.
  const std::vector<tuple> build = testing::random_relation(300, 42, 1, 1);
  for (technique how : hash_join_techniques) {
    for (std::size_t group : {1, 3, 16, 400}) {
      no_partition_hash_table table(build.size(), page_size::small_4k);
      table.build(build, how, group);
      EXPECT_EQ(table.size(), build.size()) << to_string(how);
      EXPECT_EQ(table.overflow_buckets(), 99u) << to_string(how) << " group " << group;
      join_output out(true);
      table.probe(std::vector<tuple>{{42, 9}, {43, 9}}, out, technique::naive, 1);
      expect_same_join(out, reference_join(build, std::vector<tuple>{{42, 9}, {43, 9}}), std::string(to_string(how)));
    }
  }
}

TEST(NoPartitionHashTable, SizedFromTheBuildRelation) {
  EXPECT_EQ(no_partition_hash_table::bucket_count_for(0), 2u);
  EXPECT_EQ(no_partition_hash_table::bucket_count_for(4), 2u);
  EXPECT_EQ(no_partition_hash_table::bucket_count_for(5), 4u);
  EXPECT_EQ(no_partition_hash_table::bucket_count_for(1000), 512u);
  EXPECT_EQ(no_partition_hash_table::bucket_count_for(1025), 1024u);
  const no_partition_hash_table table(1000, page_size::small_4k);
  EXPECT_EQ(table.bucket_count(), 512u);
  EXPECT_EQ(table.memory_bytes(), 512u * 64u);
  EXPECT_EQ(sizeof(no_partition_hash_table::bucket), 64u);
}

TEST(NoPartitionHashTable, StreamsAreThePlainInsertAndProbe) {
  // Sequential: one stream over the whole relation is the plain loop. Interleaved: a stream per
  // tuple (a coroutine per insert or probe) on an interleaved scheduler.
  for (int seed = 0; seed < seeds; ++seed) {
    for (const join_case& c : join_cases(static_cast<std::uint64_t>(seed), false)) {
      const join_output expected = reference_join(c.build, c.probe);
      no_partition_hash_table sequential_table(c.build.size(), page_size::small_4k);
      std::size_t cursor = 0;
      sequential_scheduler{}.run(
          1, [&](std::size_t) { return sequential_table.insert_stream<sequential>(c.build, cursor); }, [](std::size_t) {});
      EXPECT_EQ(cursor, c.build.size());
      EXPECT_EQ(sequential_table.size(), c.build.size());
      join_output out(true);
      cursor = 0;
      sequential_scheduler{}.run(
          1, [&](std::size_t) { return sequential_table.probe_stream<sequential>(c.probe, cursor, out); },
          [](std::size_t) {});
      expect_same_join(out, expected, c.name + ", sequential streams");
      join_output plain(true);
      for (const tuple& s : c.probe) sequential_table.probe_tuple(s, plain);
      expect_same_join(plain, expected, c.name + ", probe_tuple");

      no_partition_hash_table per_tuple_table(c.build.size(), page_size::small_4k);
      std::vector<std::size_t> cursors(std::max(c.build.size(), c.probe.size()), 0);
      interleaved_scheduler{5}.run(
          c.build.size(),
          [&](std::size_t i) {
            return per_tuple_table.insert_stream<interleaved>(std::span<const tuple>(&c.build[i], 1), cursors[i]);
          },
          [](std::size_t) {});
      EXPECT_EQ(per_tuple_table.size(), c.build.size());
      std::fill(cursors.begin(), cursors.end(), 0);
      join_output interleaved_out(true);
      interleaved_scheduler{6}.run(
          c.probe.size(),
          [&](std::size_t i) {
            return per_tuple_table.probe_stream<interleaved>(std::span<const tuple>(&c.probe[i], 1), cursors[i],
                                                             interleaved_out);
          },
          [](std::size_t) {});
      expect_same_join(interleaved_out, expected, c.name + ", a coroutine per tuple");
    }
  }
}

TEST(NoPartitionHashTable, ProbesCanBeRepeatedAndInterleavedWithInserts) {
  // A table built in two steps by different techniques, probed twice into one sink.
  const std::vector<tuple> first = testing::random_relation(150, 0, 40, 5);
  const std::vector<tuple> second = testing::random_relation(90, 0, 40, 6);
  const std::vector<tuple> probe = testing::random_relation(120, 0, 45, 7);
  no_partition_hash_table table(10, page_size::small_4k);  // undersized: long chains
  table.build(first, technique::amac, 4);
  table.build(second, technique::coro, 9);
  std::vector<tuple> both = first;
  both.insert(both.end(), second.begin(), second.end());
  join_output out(true);
  table.probe(probe, out, technique::gp, 3);
  table.probe(probe, out, technique::coro, 11);
  join_output expected = reference_join(both, probe);
  join_output twice(true);
  twice.absorb(reference_join(both, probe));
  twice.absorb(reference_join(both, probe));
  std::sort(twice.rows().begin(), twice.rows().end());
  expect_same_join(out, twice, "two builds, two probes");
  EXPECT_EQ(out.result().matches, 2 * expected.result().matches);
}

TEST(NoPartitionJoin, RefusesWhatItDoesNotHave) {
  const std::vector<tuple> r = testing::random_relation(10, 0, 5, 1);
  for (technique how : all_techniques) {
    if (std::find(std::begin(hash_join_techniques), std::end(hash_join_techniques), how) !=
        std::end(hash_join_techniques)) {
      continue;
    }
    for (bool on_build : {true, false}) {
      no_partition_options options = options_of(technique::naive, technique::naive, 4);
      (on_build ? options.build_technique : options.probe_technique) = how;
      try {
        (void)no_partition_join(r, r, options);
        ADD_FAILURE() << to_string(how) << " was accepted";
      } catch (const std::invalid_argument& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find(std::string(to_string(how))), std::string::npos) << message;
        EXPECT_NE(message.find("naive, gp, amac, coro"), std::string::npos) << message;
        EXPECT_NE(message.find(on_build ? "build" : "probe"), std::string::npos) << message;
      }
    }
    no_partition_hash_table table(r.size(), page_size::small_4k);
    join_output out;
    EXPECT_THROW(table.build(r, how, 4), std::invalid_argument) << to_string(how);
    EXPECT_THROW(table.probe(r, out, how, 4), std::invalid_argument) << to_string(how);
  }
  EXPECT_THROW((void)no_partition_join(r, r, options_of(technique::naive, technique::naive, 0)), std::invalid_argument);
  no_partition_options no_threads = options_of(technique::naive, technique::naive, 4);
  no_threads.threads = 0;
  EXPECT_THROW((void)no_partition_join(r, r, no_threads), std::invalid_argument);
  no_partition_hash_table table(r.size(), page_size::small_4k);
  join_output out;
  EXPECT_THROW(table.build_group_prefetching<prefetch_hint::t0>(r, 0), std::invalid_argument);
  EXPECT_THROW(table.build_amac<prefetch_hint::t0>(r, 0), std::invalid_argument);
  EXPECT_THROW(table.probe_group_prefetching<prefetch_hint::t0>(r, out, 0), std::invalid_argument);
  EXPECT_THROW(table.probe_amac<prefetch_hint::t0>(r, out, 0), std::invalid_argument);
  EXPECT_THROW(table.probe(r, out, technique::coro, 0), std::invalid_argument);
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(out.result().matches, 0u);
}

}  // namespace
}  // namespace braid::join
