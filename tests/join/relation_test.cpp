#include "braid/join/relation.hpp"

#include <gtest/gtest.h>

#include "join/reference_join.hpp"

namespace braid::join {
namespace {

TEST(JoinResult, ChecksumDoesNotDependOnOrder) {
  join_result a, b;
  a.add(1, 2, 3);
  a.add(4, 5, 6);
  b.add(4, 5, 6);
  b.add(1, 2, 3);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.matches, 2u);
}

TEST(JoinResult, SwappedPayloadsChangeTheChecksum) {
  join_result a, b;
  a.add(1, 2, 3);
  b.add(1, 3, 2);
  EXPECT_NE(a.checksum, b.checksum);
}

TEST(JoinOutput, AbsorbAddsResultsAndRows) {
  join_output a(true), b(true);
  a.emit(1, 2, 3);
  b.emit(4, 5, 6);
  b.emit(7, 8, 9);
  a.absorb(std::move(b));
  EXPECT_EQ(a.result().matches, 3u);
  EXPECT_EQ(a.rows().size(), 3u);
  EXPECT_EQ(b.result().matches, 0u);
  join_result expected;
  expected.add(1, 2, 3);
  expected.add(4, 5, 6);
  expected.add(7, 8, 9);
  EXPECT_EQ(a.result(), expected);
}

TEST(JoinOutput, CountsWithoutMaterializing) {
  join_output out(false);
  out.emit(1, 2, 3);
  EXPECT_EQ(out.result().matches, 1u);
  EXPECT_TRUE(out.rows().empty());
}

TEST(ReferenceJoin, CountsDuplicatesOnBothSides) {
  const std::vector<tuple> build{{1, 10}, {1, 11}, {2, 20}};
  const std::vector<tuple> probe{{1, 100}, {1, 101}, {3, 300}, {2, 200}};
  const join_output out = testing::reference_join(build, probe);
  EXPECT_EQ(out.result().matches, 5u);  // 2 x 2 for key 1, 1 for key 2
  EXPECT_EQ(out.rows().front(), (joined_tuple{1, 10, 100}));
}

}  // namespace
}  // namespace braid::join
