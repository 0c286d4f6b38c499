// sorted_array: both plain searches against std::lower_bound, and every lookup technique
// against the plain search, for int32, int64 and 15-character string keys, over many seeds.
#include "braid/index/sorted_array.hpp"
#include "braid/core/detail/branch_free.hpp"
#include "braid/index/generated/sorted_array_find_branchy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "index/lookup_differential.hpp"

namespace braid {
namespace {

using result = std::optional<std::size_t>;
using string_key = fixed_string<15>;

string_key zero_padded(std::uint64_t number) {
  std::string digits = std::to_string(number);
  return string_key(std::string(15 - digits.size(), '0') + digits);
}

// The mask the generated branch-free search halves by (braid/core/detail/branch_free.hpp).
TEST(MaskIf, AllOnesWhenTrueZeroWhenFalse) {
  EXPECT_EQ(detail::mask_if<std::size_t>(true), std::numeric_limits<std::size_t>::max());
  EXPECT_EQ(detail::mask_if<std::size_t>(false), std::size_t{0});
  EXPECT_EQ(detail::mask_if<std::uint8_t>(true), std::uint8_t{0xff});
  EXPECT_EQ(detail::mask_if<std::uint32_t>(false), std::uint32_t{0});
  constexpr std::size_t all_ones = std::numeric_limits<std::size_t>::max();
  for (std::size_t half : {std::size_t{0}, std::size_t{1}, std::size_t{12345}, all_ones}) {
    EXPECT_EQ(half & detail::mask_if<std::size_t>(true), half);
    EXPECT_EQ(half & detail::mask_if<std::size_t>(false), std::size_t{0});
  }
}

TEST(FixedString, OrdersLikeTheStrings) {
  const std::vector<std::string> texts = {"", "a", "ab", "abc", "abd", "b", "zzzzzzzzzzzzzzz", "~", "A", "0", "000"};
  for (const std::string& a : texts) {
    for (const std::string& b : texts) {
      EXPECT_EQ(string_key(a) < string_key(b), a < b) << a << " vs " << b;
      EXPECT_EQ(string_key(a) == string_key(b), a == b) << a << " vs " << b;
    }
  }
  EXPECT_EQ(string_key("hello").view(), "hello");
  EXPECT_EQ(string_key{}.view(), "");
  EXPECT_EQ(zero_padded(42).view(), "000000000000042");
  EXPECT_TRUE(zero_padded(99) < zero_padded(100));
  EXPECT_THROW(string_key("0123456789abcdef"), std::invalid_argument);
  EXPECT_THROW(string_key(std::string("a\0b", 3)), std::invalid_argument);
}

TEST(SortedArray, BuildsSortedAndDeduplicated) {
  const std::vector<std::int32_t> input = {5, -3, 5, 9, 0, -3, 7};
  const sorted_array<std::int32_t> array(input, page_size::small_4k);
  ASSERT_EQ(array.size(), 5u);
  EXPECT_EQ(std::vector<std::int32_t>(array.keys().begin(), array.keys().end()),
            (std::vector<std::int32_t>{-3, 0, 5, 7, 9}));
  EXPECT_EQ(array.find(7), result{3});
  EXPECT_EQ(array.find(6), result{});
  EXPECT_EQ(array.memory_bytes(), 5 * sizeof(std::int32_t));
  EXPECT_THROW(sorted_array<std::int32_t>::from_sorted(
                   3, [](std::size_t i) { return static_cast<std::int32_t>(i % 2); }, page_size::small_4k),
               std::invalid_argument);
  const auto evens = sorted_array<std::int64_t>::from_sorted(
      100, [](std::size_t i) { return static_cast<std::int64_t>(2 * i); }, page_size::small_4k);
  EXPECT_EQ(evens.find(198), result{99});
  EXPECT_EQ(evens.find(199), result{});
}

TEST(SortedArray, RejectsBadArguments) {
  testing::expect_bad_batches_rejected(
      sorted_array<std::int32_t>(std::vector<std::int32_t>{1, 2, 3}, page_size::small_4k));
}

// For one seed: arrays of 0, 1, 2, 3 and a random number of keys; batches of every length
// with hits, misses (between keys, below the first, above the last) and repeated keys.
// The generated searches beyond multi_find's (SoA, switch, branch-free): the branchy kernel,
// the AoS layout and computed-goto dispatch, under every schedule.
template <class Key>
void expect_generated_variants_agree(const sorted_array<Key>& array, const std::vector<Key>& keys,
                                     const std::vector<result>& expected, const std::string& context) {
  for (std::size_t group : {std::size_t{1}, std::size_t{5}, std::size_t{48}}) {
    for (imlp_schedule schedule : {imlp_schedule::dynamic, imlp_schedule::static_batch, imlp_schedule::hybrid}) {
      const std::string where = context + ", " + to_string(schedule) + ", group " + std::to_string(group);
      std::vector<result> out(keys.size(), result{12345});
      imlp_map<imlp_kernels::sorted_array_find_branchy<prefetch_hint::t0, Key>, imlp_layout::soa,
               imlp_dispatch::switch_table>(schedule, {array.keys().data(), array.size()}, keys, out, group);
      ASSERT_EQ(out, expected) << where << ": branchy";
      out.assign(keys.size(), result{12345});
      array.template find_imlp<prefetch_hint::t0, imlp_layout::aos, imlp_dispatch::computed_goto>(keys, out, group,
                                                                                                    schedule);
      ASSERT_EQ(out, expected) << where << ": aos goto";
      out.assign(keys.size(), result{12345});
      imlp_map<imlp_kernels::sorted_array_find_branchy<prefetch_hint::nta, Key>, imlp_layout::aos,
               imlp_dispatch::computed_goto>(schedule, {array.keys().data(), array.size()}, keys, out, group);
      ASSERT_EQ(out, expected) << where << ": branchy aos goto";
    }
  }
}

template <class Key, class MakeKey>
void check_against_lower_bound(std::uint64_t seed, MakeKey make_key, Key below_all, Key above_all) {
  std::mt19937_64 random(seed);
  for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3},
                            static_cast<std::size_t>(4 + random() % 3000)}) {
    std::vector<std::uint64_t> numbers;
    for (std::size_t i = 0; i < count; ++i) numbers.push_back(random() % (4 * count + 8));
    std::vector<Key> input;
    for (std::uint64_t n : numbers) input.push_back(make_key(2 * n));  // even: odd numbers are misses
    const sorted_array<Key> array(input, page_size::small_4k);
    std::vector<Key> oracle = input;
    std::sort(oracle.begin(), oracle.end());
    oracle.erase(std::unique(oracle.begin(), oracle.end()), oracle.end());
    ASSERT_EQ(array.size(), oracle.size());

    const std::string context = "seed " + std::to_string(seed) + ", " + std::to_string(oracle.size()) + " keys";
    for (std::size_t length : testing::batch_lengths) {
      for (double hit_share : {0.0, 0.5, 1.0}) {
        std::bernoulli_distribution hit(hit_share);
        std::vector<Key> keys;
        std::vector<result> expected;
        while (keys.size() < length) {
          Key key = make_key(2 * (random() % (4 * count + 8)) + 1);
          if (hit(random) && !numbers.empty()) key = make_key(2 * numbers[random() % numbers.size()]);
          if (random() % 40 == 0) key = random() % 2 == 0 ? below_all : above_all;
          if (!keys.empty() && random() % 8 == 0) key = keys[random() % keys.size()];
          keys.push_back(key);
          const auto bound = std::lower_bound(oracle.begin(), oracle.end(), key);
          expected.push_back(bound != oracle.end() && *bound == key
                                 ? result{static_cast<std::size_t>(bound - oracle.begin())}
                                 : result{});
          ASSERT_EQ(array.find(key), expected.back()) << context << ": branch-free search";
          ASSERT_EQ(array.find_branchy(key), expected.back()) << context << ": branchy search";
        }
        testing::expect_batch_agrees(array, keys, expected, result{12345}, context, hit_share);
        if (hit_share == 0.5) expect_generated_variants_agree(array, keys, expected, context);
      }
    }
  }
}

TEST(SortedArray, Int32EveryTechniqueMatchesLowerBound) {
  for (std::uint64_t seed : testing::differential_seeds()) {
    check_against_lower_bound<std::int32_t>(
        seed, [](std::uint64_t n) { return static_cast<std::int32_t>(n) - 5000; },
        std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max());
  }
}

TEST(SortedArray, Int64EveryTechniqueMatchesLowerBound) {
  for (std::uint64_t seed : testing::differential_seeds()) {
    check_against_lower_bound<std::int64_t>(
        seed, [](std::uint64_t n) { return static_cast<std::int64_t>(n) * 1'000'000'007 - (std::int64_t{1} << 40); },
        std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max());
  }
}

TEST(SortedArray, StringEveryTechniqueMatchesLowerBound) {
  for (std::uint64_t seed : testing::differential_seeds()) {
    check_against_lower_bound<string_key>(seed, zero_padded, string_key{}, string_key("~~~~~~~~~~~~~~~"));
  }
}

}  // namespace
}  // namespace braid
