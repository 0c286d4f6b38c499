// masstree-strings: its key set (decimal strings of 32- or 64-bit numbers behind an optional
// prefix, a shuffled order visiting each key once), and the experiment run as a user runs it —
// every option and setting reaches the rows, every get pass's checksum matched the keys
// (the program fails otherwise), bad values are refused with exit status 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "bench_program.hpp"
#include "experiments/masstree_strings.hpp"

namespace braid::bench {
namespace {

using namespace test_support;
using masstree_strings::key_set;
using masstree_strings::key_shape;

TEST(MasstreeStringsKeys, AreTheDecimalTextOfTheirNumbersAfterThePrefix) {
  for (const key_shape& shape : {key_shape{32, ""}, key_shape{64, ""}, key_shape{32, "user"}}) {
    const key_set keys(5'000, shape, 7);
    ASSERT_EQ(keys.size(), 5'000u);
    std::size_t longest = 0;
    double total = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const std::string expected = shape.prefix + std::to_string(keys.number(i));
      ASSERT_EQ(std::string(keys[i]), expected);
      if (shape.bits == 32) {
        ASSERT_LE(keys.number(i), 0xFFFFFFFFu);
      }
      longest = std::max(longest, keys[i].size() - shape.prefix.size());
      total += static_cast<double>(keys[i].size());
    }
    EXPECT_EQ(longest, shape.bits == 32 ? 10u : 20u);
    EXPECT_DOUBLE_EQ(keys.mean_length(), total / 5'000);
  }
  // The seed decides the numbers.
  EXPECT_NE(key_set(10, {}, 1).number(0), key_set(10, {}, 2).number(0));
  EXPECT_EQ(key_set(10, {}, 1).number(9), key_set(10, {}, 1).number(9));
  EXPECT_EQ(key_set(0, {}, 1).size(), 0u);
}

TEST(MasstreeStringsKeys, TheGetOrderVisitsEveryKeyOnce) {
  for (const std::size_t count : {0u, 1u, 2u, 1'000u}) {
    std::vector<std::uint32_t> order = masstree_strings::shuffled_order(count, 3);
    ASSERT_EQ(order.size(), count);
    std::sort(order.begin(), order.end());
    for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(order[i], i);
  }
  const std::vector<std::uint32_t> order = masstree_strings::shuffled_order(1'000, 3);
  EXPECT_FALSE(std::is_sorted(order.begin(), order.end()));
}

TEST(MasstreeStringsKeys, InOrderLaysTheKeysOutInTheGetOrder) {
  for (const std::size_t count : {0u, 1u, 2u, 1'000u}) {
    const key_set keys(count, key_shape{32, "k"}, 5);
    const std::vector<std::uint32_t> order = masstree_strings::shuffled_order(count, 6);
    const key_set ordered = keys.in_order(order);
    ASSERT_EQ(ordered.size(), count);
    for (std::size_t i = 0; i < count; ++i) {
      ASSERT_EQ(ordered[i], keys[order[i]]);
      ASSERT_EQ(ordered.number(i), keys.number(order[i]));
    }
    EXPECT_DOUBLE_EQ(ordered.mean_length(), keys.mean_length());
  }
  // An order may repeat or leave out keys.
  const key_set keys(3, key_shape{64, ""}, 9);
  const key_set twice = keys.in_order({2, 2, 0});
  ASSERT_EQ(twice.size(), 3u);
  EXPECT_EQ(twice[0], keys[2]);
  EXPECT_EQ(twice[1], keys[2]);
  EXPECT_EQ(twice[2], keys[0]);
}

using MasstreeStrings = bench_program_test;

run_output bench(const std::vector<std::string>& arguments) { return run_experiment_csv("masstree-strings", arguments); }

TEST_F(MasstreeStrings, EveryOptionAndSettingReachesTheRows) {
  const run_output run = bench({"--keys", "3000", "--group", "2,5", "--repetitions", "1", "--pages", "4k", "--set",
                                "bits=64", "--set", "prefix=user"});
  ASSERT_EQ(run.exit_status, 0) << run.text;
  std::set<std::string> passes;
  for (const row& fields : run.rows) {
    EXPECT_EQ(fields.at("experiment"), "masstree-strings");
    EXPECT_EQ(number(fields, "records"), 3000);
    EXPECT_EQ(number(fields, "bits"), 64);
    EXPECT_EQ(fields.at("prefix"), "user");
    EXPECT_EQ(fields.at("pages"), "4k");
    EXPECT_GT(number(fields, "key_bytes"), 4 + 15);  // "user" and 64-bit numbers: mostly 19 or 20 digits
    EXPECT_GT(number(fields, "bytes_per_key"), 0);
    EXPECT_GE(number(fields, "node_prefetches_per_get"), 2);  // 3000 keys: an interior node above the border nodes
    passes.insert(fields.at("phase") + " " + fields.at("technique") + "@" + fields.at("group"));
  }
  EXPECT_EQ(passes, (std::set<std::string>{"put naive@0", "get naive@0", "get coro_nested@2", "get coro@2",
                                           "get coro_nested@5", "get coro@5"}));
  for (const row& fields : run.rows) {
    if (fields.at("phase") == "put") {
      EXPECT_EQ(number(fields, "checksum"), number(fields, "distinct_keys"));
    }
  }

  const run_output flat = bench({"--keys", "500", "--group", "3", "--technique", "coro", "--repetitions", "1"});
  ASSERT_EQ(flat.exit_status, 0) << flat.text;
  ASSERT_EQ(flat.rows.size(), 1u);
  EXPECT_EQ(flat.rows[0].at("technique"), "coro");
  EXPECT_EQ(number(flat.rows[0], "group"), 3);
  EXPECT_EQ(number(flat.rows[0], "bits"), 32);
  EXPECT_EQ(flat.rows[0].at("prefix"), "");
  EXPECT_LE(number(flat.rows[0], "key_bytes"), 10);
}

TEST_F(MasstreeStrings, RefusesBadValues) {
  expect_refused("masstree-strings", {{{"--keys", "100", "--set", "bits=16"}, "bits"},
                                      {{"--keys", "100", "--set", "prefix=" + std::string(65, 'x')}, "prefix"},
                                      {{"--keys", "0"}, "--keys"},
                                      {{"--keys", "100", "--threads", "1"}, "not an option"},
                                      {{"--keys", "100", "--set", "width=3"}, "width"}});
}

}  // namespace
}  // namespace braid::bench
