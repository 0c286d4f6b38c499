// skip_list: lookups and range scans of every technique against std::map (hits, misses,
// repeats, empty list, empty input, group sizes 1..64 and larger than the input; scans from
// before the first key, past the last, of length 0 and longer than the list), the bulk
// constructor against one-by-one inserts (same towers), random interleavings of inserts,
// erases, lookups and scans with the invariant check after every batch, and the error cases.
#include "braid/index/skip_list.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "braid/core/scheduler.hpp"
#include "index/ordered_index_test_support.hpp"

namespace braid::testing {
namespace {

using list_type = skip_list<std::uint64_t, std::uint64_t>;

// Scans run these; lookups these and the generated ones.
const std::vector<technique> list_techniques = {technique::naive, technique::coro, technique::fiber, technique::adaptive};
const std::vector<technique> lookup_techniques = {technique::naive,        technique::coro,        technique::fiber,
                                                  technique::adaptive,     technique::imlp_dynamic, technique::imlp_static,
                                                  technique::imlp_hybrid};

list_type build_list(const std::vector<std::uint64_t>& keys, oracle_map& oracle, std::uint64_t height_seed = 1) {
  const std::vector<std::uint64_t> values = insertion_values(keys, oracle);
  return list_type(keys, values, page_size::small_4k, height_seed);
}

std::vector<list_type::scan_request> random_requests(const oracle_map& oracle, std::size_t count,
                                                     std::uint64_t key_range, std::mt19937_64& random) {
  std::vector<list_type::scan_request> requests;
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t start = random() % (key_range + 2);
    if (random() % 2 == 0 && !oracle.empty()) start = std::next(oracle.begin(), static_cast<long>(random() % oracle.size()))->first;
    const std::size_t limit = random() % 4 == 0 ? oracle.size() + 3 : random() % 40;
    requests.push_back({start, limit});
  }
  return requests;
}

TEST(SkipList, EmptyListReportsEveryKeyAbsentAndScansNothing) {
  const list_type empty;
  const oracle_map oracle;
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.height(), 1u);
  empty.check_invariants();
  const std::vector<std::uint64_t> keys = {0, 1, 2, 3, ~std::uint64_t{0}};
  expect_multi_find_agrees(empty, oracle, keys, lookup_techniques, "empty list");
  expect_multi_find_agrees(empty, oracle, std::span<const std::uint64_t>{}, lookup_techniques, "no keys");
  expect_multi_scan_agrees(empty, oracle, {{0, 10}, {5, 0}, {~std::uint64_t{0}, 1000}}, list_techniques, "empty list");
  expect_multi_scan_agrees(empty, oracle, {}, list_techniques, "no requests");
}

TEST(SkipList, LookupsOfEveryTechniqueAgreeWithStdMap) {
  expect_random_lookups_agree(lookup_techniques, build_list, [](const list_type&, const std::vector<std::uint64_t>&) {});
}

TEST(SkipList, ScansOfEveryTechniqueAgreeWithStdMap) {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    SCOPED_TRACE(seed_label(seed));
    std::mt19937_64 random(seed);
    const std::uint64_t key_range = 3000;
    oracle_map oracle;
    const list_type list = build_list(random_keys(600, key_range, random), oracle, seed);
    auto requests = random_requests(oracle, 150, key_range, random);
    requests.push_back({0, 0});                             // length 0
    requests.push_back({0, oracle.size() + 100});           // the whole list and past its end
    requests.push_back({oracle.rbegin()->first, 10});       // the last entry only
    requests.push_back({oracle.rbegin()->first + 1, 10});   // past the end
    requests.push_back({oracle.begin()->first, 1});         // the first entry
    expect_multi_scan_agrees(list, oracle, requests, list_techniques, "scans");
    expect_multi_scan_agrees(list, oracle, std::vector(requests.begin(), requests.begin() + 2), list_techniques,
                             "two scans");
    // The sequential coroutine scan is the plain scan.
    for (const auto& request : requests) {
      entries got;
      auto op = list.scan_coroutine<sequential>(request.start, request.limit,
                                                [&](auto key, auto value) { got.emplace_back(key, value); });
      ASSERT_TRUE(op.done());
      ASSERT_EQ(op.take_result(), got.size());
      ASSERT_EQ(got, expected_scan(oracle, request.start, request.limit));
    }
  }
}

TEST(SkipList, ScanOfAThousandEntriesAsInCimple) {
  std::vector<std::uint64_t> keys(5000);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = (i * 7919) % 5000 * 2;
  oracle_map oracle;
  const list_type list = build_list(keys, oracle);
  std::mt19937_64 random(3);
  std::vector<list_type::scan_request> requests;
  for (int i = 0; i < 40; ++i) requests.push_back({random() % 10'000, 1000});
  expect_multi_scan_agrees(list, oracle, requests, list_techniques, "1000-entry scans");
}

TEST(SkipList, BulkConstructorBuildsTheListOfOneByOneInserts) {
  expect_bulk_build_equals_inserts(
      900, 300, build_list, [](std::uint64_t seed) { return list_type(page_size::small_4k, seed); },
      [](const list_type& bulk, const list_type& inserted, const oracle_map& oracle) {
        std::vector<std::pair<std::uint64_t, std::uint32_t>> bulk_towers, inserted_towers;
        bulk.for_each_tower([&](auto key, auto height) { bulk_towers.emplace_back(key, height); });
        inserted.for_each_tower([&](auto key, auto height) { inserted_towers.emplace_back(key, height); });
        ASSERT_EQ(bulk_towers, inserted_towers);
        ASSERT_EQ(bulk.height(), inserted.height());
        entries bulk_entries, inserted_entries;
        bulk.for_each([&](auto key, auto value) { bulk_entries.emplace_back(key, value); });
        inserted.for_each([&](auto key, auto value) { inserted_entries.emplace_back(key, value); });
        ASSERT_EQ(bulk_entries, inserted_entries);
        ASSERT_EQ(bulk_entries, entries(oracle.begin(), oracle.end()));
      });
}

TEST(SkipList, RandomInterleavingsOfMutationsLookupsAndScans) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    SCOPED_TRACE(seed_label(seed));
    std::mt19937_64 random(seed);
    const std::uint64_t key_range = 400 + 200 * seed;
    list_type list(page_size::small_4k, seed);
    oracle_map oracle;
    for (int batch = 0; batch < 25; ++batch) {
      const int operations = 1 + static_cast<int>(random() % 120);
      const unsigned insert_share = batch < 10 ? 70 : 40;
      apply_random_writes(list, oracle, operations, insert_share, key_range, random);
      if (::testing::Test::HasFatalFailure()) return;
      ASSERT_EQ(list.size(), oracle.size());
      list.check_invariants();
      const auto groups = rotating_group(static_cast<std::size_t>(batch));
      expect_multi_find_agrees(list, oracle, lookup_mix(oracle, 60, key_range, random), lookup_techniques,
                               "batch " + std::to_string(batch), groups);
      expect_multi_scan_agrees(list, oracle, random_requests(oracle, 12, key_range, random), list_techniques,
                               "batch " + std::to_string(batch), groups);
    }
    // Erase everything: back to an empty list of height 1.
    for (const auto& entry : oracle) ASSERT_TRUE(list.erase(entry.first));
    EXPECT_EQ(list.size(), 0u);
    EXPECT_EQ(list.height(), 1u);
    list.check_invariants();
  }
}

TEST(SkipList, ErasedNodesAreReused) {
  list_type list(page_size::small_4k);
  // 50 rounds re-insert 25,000 nodes (over 1 MB if none were reused); re-inserts draw new
  // heights and reuse a freed node of the same height, so the arena grows only a little.
  std::size_t bytes = 0;
  ASSERT_NO_FATAL_FAILURE(churn_even_keys(list, 50, bytes));
  EXPECT_LE(list.memory_bytes(), 4 * bytes);
  list.check_invariants();
}

TEST(SkipList, RejectsBadArgumentsAndTechniquesItDoesNotHave) {
  const std::vector<std::uint64_t> keys = {1, 2, 3};
  oracle_map oracle;
  const list_type list = build_list(keys, oracle);
  expect_bad_arguments_rejected(list, lookup_techniques);
  std::vector<std::optional<std::uint64_t>> output(3);
  for (technique how : {technique::gp, technique::amac}) {
    EXPECT_THROW(list.multi_find(keys, std::span(output), how, 4), std::invalid_argument);
    std::vector<std::size_t> visited(1);
    const std::vector<list_type::scan_request> requests = {{1, 2}};
    EXPECT_THROW(list.multi_scan(std::span<const list_type::scan_request>(requests), std::span(visited), how, 4,
                                 [](auto, auto, auto) {}),
                 std::invalid_argument);
  }
}

TEST(SkipList, MovedFromListIsEmptyAndUsable) {
  oracle_map oracle;
  list_type source = build_list({5, 3, 8}, oracle);
  list_type target = std::move(source);
  EXPECT_EQ(target.size(), 3u);
  EXPECT_EQ(target.find(8), value_for(8) + 2);
  EXPECT_EQ(source.size(), 0u);  // NOLINT(bugprone-use-after-move): the documented state
  source.check_invariants();
  EXPECT_TRUE(source.insert(1, 1));
  EXPECT_EQ(source.find(1), 1u);
}

}  // namespace
}  // namespace braid::testing
