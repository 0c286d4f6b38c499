// The index nested-loop join against the multimap oracle: a B+-tree, a CSB+-tree and a
// Masstree built from R, probed by S with every technique each index offers, at groups 1, 2,
// 7, 16 and one larger than the input, over many seeds and input shapes (duplicates in S,
// skew, no and all matches, empty sides, the extreme keys 0 and 2^64-1), in batches that cut
// S; and the refusals: a build relation with a repeated key, a technique the index lacks, a
// group of 0.
#include "braid/join/index_join.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "join/join_test_cases.hpp"
#include "join/reference_join.hpp"

namespace braid::join {
namespace {

using testing::expect_same_join;
using testing::join_case;
using testing::reference_join;

template <class Index>
struct offered;
template <>
struct offered<bplus_join_index> {
  static constexpr const char* name = "bplus_tree";
  static std::vector<technique> techniques() {
    return {technique::naive, technique::coro, technique::coro_nested, technique::fiber, technique::adaptive};
  }
};
template <>
struct offered<csb_join_index> {
  static constexpr const char* name = "csb_plus_tree";
  static std::vector<technique> techniques() {
    return {technique::naive, technique::gp, technique::amac, technique::coro, technique::fiber, technique::adaptive};
  }
};
template <>
struct offered<masstree_join_index> {
  static constexpr const char* name = "masstree";
  static std::vector<technique> techniques() {
    return {technique::naive, technique::coro, technique::coro_nested, technique::adaptive};
  }
};

template <class Index>
class IndexJoin : public ::testing::Test {};
using join_indexes = ::testing::Types<bplus_join_index, csb_join_index, masstree_join_index>;
TYPED_TEST_SUITE(IndexJoin, join_indexes);

TYPED_TEST(IndexJoin, EveryTechniqueMatchesTheOracle) {
  for (int seed = 0; seed < 6; ++seed) {
    for (const join_case& c : testing::join_cases(static_cast<std::uint64_t>(seed), /*unique_build=*/true)) {
      const join_output expected = reference_join(c.build, c.probe);
      const auto index = make_join_index<TypeParam>(c.build, page_size::small_4k);
      for (technique how : offered<TypeParam>::techniques()) {
        for (std::size_t group : testing::test_groups(c)) {
          join_output out(true);
          index_join_probe(*index, c.probe, out, how, group);
          expect_same_join(out, expected,
                           std::string(offered<TypeParam>::name) + ": " + c.name + ", " + std::string(to_string(how)) +
                               ", group " + std::to_string(group) + ", seed " + std::to_string(seed));
        }
      }
    }
  }
}

TYPED_TEST(IndexJoin, ProbesLongerThanABatch) {
  // S crosses batch boundaries (probe_batch keys per multi_find) at a size no group divides.
  const std::vector<tuple> build = testing::primary_keys_with_extremes(3000, 4);
  std::vector<tuple> probe = testing::random_relation(2 * probe_batch + 37, 0, 4000, 5);
  probe[probe_batch - 1].key = testing::max_key;
  probe[probe_batch].key = 0;
  const join_output expected = reference_join(build, probe);
  for (technique how : offered<TypeParam>::techniques()) {
    const join_output out = index_nested_loop_join<TypeParam>(build, probe, how, 13, true, page_size::small_4k);
    expect_same_join(out, expected, std::string(offered<TypeParam>::name) + " " + std::string(to_string(how)));
  }
}

TYPED_TEST(IndexJoin, RefusesRepeatedBuildKeys) {
  std::vector<tuple> build = testing::primary_key_relation(50, 0, 1);
  build.push_back({17, 99});
  try {
    (void)make_join_index<TypeParam>(build, page_size::small_4k);
    ADD_FAILURE() << "a repeated key was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("repeats key 17"), std::string::npos) << error.what();
  }
  EXPECT_THROW((void)index_nested_loop_join<TypeParam>(build, {}, technique::naive, 1), std::invalid_argument);
}

TYPED_TEST(IndexJoin, RefusesTechniquesTheIndexLacksAndGroupZero) {
  const std::vector<tuple> build = testing::primary_key_relation(20, 0, 1);
  const std::vector<tuple> probe = testing::random_relation(10, 0, 30, 2);
  const auto index = make_join_index<TypeParam>(build, page_size::small_4k);
  const std::vector<technique> has = offered<TypeParam>::techniques();
  for (technique how : all_techniques) {
    if (std::find(has.begin(), has.end(), how) != has.end()) continue;
    for (const std::vector<tuple>& s : {probe, std::vector<tuple>{}}) {
      join_output out;
      try {
        index_join_probe(*index, s, out, how, 4);
        ADD_FAILURE() << to_string(how) << " was accepted";
      } catch (const std::invalid_argument& error) {
        EXPECT_NE(std::string(error.what()).find(offered<TypeParam>::name), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find(std::string(to_string(how))), std::string::npos) << error.what();
      }
      EXPECT_EQ(out.result().matches, 0u);
    }
  }
  join_output out;
  EXPECT_THROW(index_join_probe(*index, probe, out, technique::coro, 0), std::invalid_argument);
  EXPECT_THROW(index_join_probe(*index, std::vector<tuple>{}, out, technique::naive, 0), std::invalid_argument);
}

TEST(IndexJoinKeys, MasstreeKeysAreBigEndianBytes) {
  EXPECT_EQ(detail::big_endian_bytes(0), 0u);
  const std::uint64_t stored = detail::big_endian_bytes(0x0102030405060708ULL);
  const std::string_view bytes = detail::bytes_of(stored);
  ASSERT_EQ(bytes.size(), 8u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(static_cast<int>(bytes[static_cast<std::size_t>(i)]), i + 1);
  // Byte order is integer order.
  const std::uint64_t small = detail::big_endian_bytes(255), large = detail::big_endian_bytes(256);
  EXPECT_LT(detail::bytes_of(small), detail::bytes_of(large));
}

}  // namespace
}  // namespace braid::join
