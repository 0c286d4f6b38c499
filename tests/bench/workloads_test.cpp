// Workload generators: YCSB's hash and zeta constants, the shape of the Zipfian draws,
// determinism for a seed, ranges.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "workloads.hpp"

namespace braid::bench {
namespace {

TEST(Workloads, FnvHashMatchesYcsb) {
  // Reference values computed independently from YCSB's definition (FNV-1, 8 octets, abs).
  EXPECT_EQ(ycsb_fnv_hash64(0), 6284781860667377211ull);
  EXPECT_EQ(ycsb_fnv_hash64(1), 8517097267634966620ull);
  EXPECT_EQ(ycsb_fnv_hash64(12345), 1792800413050876852ull);
  EXPECT_EQ(ycsb_fnv_hash64((1ull << 40) + 7), 6089181255519459853ull);
}

TEST(Workloads, ZetaReproducesYcsbPrecomputedConstant) {
  EXPECT_NEAR(zeta(scrambled_zipfian_generator::item_space, 0.99), scrambled_zipfian_generator::zeta_of_item_space,
              1e-9);
  EXPECT_DOUBLE_EQ(zeta(1, 0.5), 1.0);
  EXPECT_NEAR(zeta(3, 1e-9), 3.0, 1e-6);
}

TEST(Workloads, ZipfianHeadHasTheRightProbability) {
  const std::uint64_t items = 1000;
  zipfian_generator generator(items, 0.99);
  random_source random(7);
  const int draws = 400000;
  std::vector<int> counts(items);
  for (int i = 0; i < draws; ++i) {
    const std::uint64_t item = generator.next(random);
    ASSERT_LT(item, items);
    ++counts[item];
  }
  const double p0 = 1.0 / zeta(items, 0.99);  // P(item 0) = 1 / zeta(n)
  EXPECT_NEAR(counts[0] / double(draws), p0, 0.01);
  EXPECT_GT(counts[0], counts[1]);
  EXPECT_GT(counts[1], counts[10]);
  EXPECT_GT(counts[10], counts[500]);
}

TEST(Workloads, ScrambledZipfianScattersTheHotItems) {
  const std::uint64_t items = 1'000'000;
  scrambled_zipfian_generator generator(items);
  random_source random(11);
  std::map<std::uint64_t, int> counts;
  const int draws = 300000;
  for (int i = 0; i < draws; ++i) {
    const std::uint64_t item = generator.next(random);
    ASSERT_LT(item, items);
    ++counts[item];
  }
  // The hottest item is the hash of YCSB's item 0, drawn with probability 1 / ZETAN.
  const std::uint64_t hottest = ycsb_fnv_hash64(0) % items;
  EXPECT_NEAR(counts[hottest] / double(draws), 1.0 / scrambled_zipfian_generator::zeta_of_item_space, 0.004);
  EXPECT_GT(counts.size(), 1000u) << "skewed, but over many items";
}

TEST(Workloads, DrawsAreDeterministicAndInRange) {
  for (const char* shape : {"uniform", "zipf", "zipf:0.5", "sorted"}) {
    const key_distribution distribution = parse_distribution(shape);
    const auto first = draw_indices(5000, 777, distribution, 3);
    const auto again = draw_indices(5000, 777, distribution, 3);
    const auto other = draw_indices(5000, 777, distribution, 4);
    EXPECT_EQ(first, again) << shape;
    EXPECT_NE(first, other) << shape;
    EXPECT_TRUE(std::all_of(first.begin(), first.end(), [](std::uint64_t i) { return i < 777; })) << shape;
  }
  const auto sorted = draw_indices(1000, 50, parse_distribution("sorted"), 1);
  EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end()));
  EXPECT_TRUE(draw_indices(0, 0, parse_distribution("uniform"), 1).empty());
}

TEST(Workloads, UniformBelowIsUnbiased) {
  random_source random(5);
  std::vector<int> counts(3);
  for (int i = 0; i < 300000; ++i) ++counts[random.below(3)];
  for (int count : counts) EXPECT_NEAR(count / 300000.0, 1.0 / 3, 0.005);
}

}  // namespace
}  // namespace braid::bench
