// skip_list: lookups and range scans of every technique against std::map (hits, misses,
// repeats, empty list, empty input, group sizes 1..64 and larger than the input; scans from
// before the first key, past the last, of length 0 and longer than the list); the hand-written
// GP and AMAC and the generated IMLP lookups and scans (every schedule, both prefetch hints, the
// layout and dispatch variants) against the plain find and scan over many seeds; the bulk
// constructor against one-by-one inserts (same towers), random interleavings of inserts,
// erases, lookups and scans with the invariant check after every batch, and the error cases.
#include "braid/index/skip_list.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "braid/core/scheduler.hpp"
#include "index/lookup_differential.hpp"
#include "index/ordered_index_test_support.hpp"

namespace braid::testing {
namespace {

using list_type = skip_list<std::uint64_t, std::uint64_t>;

// Lookups and scans run every technique but coro_nested.
const std::vector<technique> list_techniques = {technique::naive,        technique::gp,          technique::amac,
                                                technique::coro,         technique::fiber,       technique::adaptive,
                                                technique::imlp_dynamic, technique::imlp_static, technique::imlp_hybrid};
const std::vector<technique>& lookup_techniques = list_techniques;
// The explicit state machines: hand-written (gp, amac) and generated (imlp-*).
const std::vector<technique> machine_techniques = {technique::gp, technique::amac, technique::imlp_dynamic,
                                                   technique::imlp_static, technique::imlp_hybrid};
constexpr std::uint64_t largest_key = std::numeric_limits<std::uint64_t>::max();

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

// ---- the state machines (gp, amac, imlp-*) against the plain find and scan ----

// The list of a differential seed: up to 700 keys, dense (repeats likely) for even seeds, the
// whole 64-bit range for odd ones; every third seed also holds the extreme keys 0 and 2^64 - 1.
list_type differential_list(std::uint64_t seed, std::size_t count, std::mt19937_64& random, oracle_map& oracle) {
  std::vector<std::uint64_t> keys = random_keys(count, seed % 2 == 0 ? count * 3 + 1 : largest_key, random);
  if (seed % 3 == 0 && count > 0) {
    keys.push_back(0);
    keys.push_back(largest_key);
  }
  return build_list(keys, oracle, seed);
}

// Group sizes for a batch of `count`: 1, small, ragged, up to past 128 contexts, and larger than the batch.
std::vector<std::size_t> machine_groups(std::size_t count) { return {1, 2, 3, 7, 16, 17, 64, 200, count + 1}; }

template <prefetch_hint Hint>
void expect_machine_lookups_match_find(const list_type& list, const std::vector<std::uint64_t>& keys,
                                       const std::string& where) {
  std::vector<std::optional<std::uint64_t>> expected(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) expected[i] = list.find(keys[i]);
  for (technique how : machine_techniques) {
    for (std::size_t group : machine_groups(keys.size())) {
      std::vector<std::optional<std::uint64_t>> got(keys.size(), std::optional<std::uint64_t>{12345});
      list.multi_find<Hint>(keys, std::span(got), how, group);
      ASSERT_EQ(got, expected) << where << ": " << to_string(how) << " group " << group << " hint " << static_cast<int>(Hint);
    }
  }
}

// Scan requests: starts at present keys, just past them, random, 0 and 2^64 - 1, above every
// key; limits 0, 1, short, the whole list and past its end.
std::vector<list_type::scan_request> machine_scan_requests(const oracle_map& oracle, std::mt19937_64& random) {
  const std::size_t size = oracle.size();
  std::vector<list_type::scan_request> requests = {{0, 0}, {0, 1}, {0, size}, {0, size + 7}, {largest_key, 3}};
  if (!oracle.empty()) {
    const std::uint64_t last = oracle.rbegin()->first;
    requests.push_back({last, 5});  // the last entry, then off the end
    if (last != largest_key) requests.push_back({last + 1, 4});  // above every key
  }
  const std::size_t limits[] = {0, 1, 2, 9, size, size + 7};
  for (int i = 0; i < 30; ++i) {
    std::uint64_t start = random();
    if (i % 3 != 0 && !oracle.empty()) {
      start = std::next(oracle.begin(), static_cast<long>(random() % size))->first + (i % 3 == 2 ? 1 : 0);
    }
    requests.push_back({start, i % 2 == 0 ? limits[random() % std::size(limits)] : random() % 30});
  }
  return requests;
}

// Each request's (key, value) pairs, collected from a multi_scan's visitor, and its counts.
struct scan_outcome {
  std::vector<entries> visits;
  std::vector<std::size_t> counts;
  bool operator==(const scan_outcome&) const = default;
};

template <class RunScans>
scan_outcome collect_scans(std::size_t request_count, RunScans run_scans) {
  scan_outcome outcome{std::vector<entries>(request_count), std::vector<std::size_t>(request_count, 999)};
  run_scans(std::span(outcome.counts), [&outcome](std::size_t request, std::uint64_t key, std::uint64_t value) {
    outcome.visits.at(request).emplace_back(key, value);
  });
  return outcome;
}

scan_outcome plain_scans(const list_type& list, const std::vector<list_type::scan_request>& requests) {
  scan_outcome outcome{std::vector<entries>(requests.size()), std::vector<std::size_t>(requests.size())};
  for (std::size_t i = 0; i < requests.size(); ++i) {
    outcome.counts[i] = list.scan(requests[i].start, requests[i].limit,
                                  [&](std::uint64_t key, std::uint64_t value) { outcome.visits[i].emplace_back(key, value); });
  }
  return outcome;
}

template <prefetch_hint Hint>
void expect_machine_scans_match_scan(const list_type& list, const std::vector<list_type::scan_request>& requests,
                                     const std::string& where) {
  const scan_outcome expected = plain_scans(list, requests);
  const std::span<const list_type::scan_request> request_span(requests);
  for (technique how : machine_techniques) {
    for (std::size_t group : machine_groups(requests.size())) {
      const scan_outcome got = collect_scans(requests.size(), [&](std::span<std::size_t> counts, auto visit) {
        list.multi_scan<Hint>(request_span, counts, how, group, visit);
      });
      ASSERT_EQ(got, expected) << where << ": " << to_string(how) << " group " << group << " hint " << static_cast<int>(Hint);
    }
  }
}

TEST(SkipList, StateMachineLookupsAndScansMatchThePlainOnesOverManySeeds) {
  for (std::uint64_t seed : differential_seeds()) {
    std::mt19937_64 random(seed);
    for (std::size_t count : {0, 1, 2, 5, 60, 700}) {
      const std::string where = seed_label(seed) + " count " + std::to_string(count);
      oracle_map oracle;
      const list_type list = differential_list(seed, count, random, oracle);
      const std::vector<std::uint64_t> keys = lookup_mix(oracle, 100, seed % 2 == 0 ? count * 3 + 1 : largest_key, random);
      const std::vector<list_type::scan_request> requests = machine_scan_requests(oracle, random);
      ASSERT_NO_FATAL_FAILURE(expect_machine_lookups_match_find<prefetch_hint::t0>(list, keys, where));
      ASSERT_NO_FATAL_FAILURE(expect_machine_scans_match_scan<prefetch_hint::t0>(list, requests, where));
      if (hints_checked > 1) {
        ASSERT_NO_FATAL_FAILURE(expect_machine_lookups_match_find<prefetch_hint::nta>(list, keys, where));
        ASSERT_NO_FATAL_FAILURE(expect_machine_scans_match_scan<prefetch_hint::nta>(list, requests, where));
      }
      // Empty inputs and the first few alone (fewer than most groups).
      ASSERT_NO_FATAL_FAILURE(expect_machine_lookups_match_find<prefetch_hint::t0>(list, {}, where + " no keys"));
      ASSERT_NO_FATAL_FAILURE(expect_machine_scans_match_scan<prefetch_hint::t0>(list, {}, where + " no requests"));
      ASSERT_NO_FATAL_FAILURE(expect_machine_scans_match_scan<prefetch_hint::t0>(
          list, std::vector(requests.begin(), requests.begin() + 2), where + " two requests"));
    }
  }
}

// The generated scan in every layout and dispatch: the same entries as the plain scan.
TEST(SkipList, GeneratedScansInEveryLayoutAndDispatchMatchThePlainScan) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    std::mt19937_64 random(seed);
    oracle_map oracle;
    const list_type list = differential_list(seed, 400, random, oracle);
    const auto requests = machine_scan_requests(oracle, random);
    const std::span<const list_type::scan_request> request_span(requests);
    const scan_outcome expected = plain_scans(list, requests);
    constexpr auto t0 = prefetch_hint::t0;
    for (imlp_schedule schedule : {imlp_schedule::dynamic, imlp_schedule::static_batch, imlp_schedule::hybrid}) {
      for (std::size_t group : {1, 5, 16, 48}) {
        const std::string where = seed_label(seed) + " " + to_string(schedule) + " group " + std::to_string(group);
        auto aos = [&](std::span<std::size_t> counts, auto visit) {
          list.scan_imlp<t0, imlp_layout::aos>(request_span, counts, group, schedule, visit);
        };
        auto soa_goto = [&](std::span<std::size_t> counts, auto visit) {
          list.scan_imlp<t0, imlp_layout::soa, imlp_dispatch::computed_goto>(request_span, counts, group, schedule, visit);
        };
        auto aos_goto = [&](std::span<std::size_t> counts, auto visit) {
          list.scan_imlp<t0, imlp_layout::aos, imlp_dispatch::computed_goto>(request_span, counts, group, schedule, visit);
        };
        ASSERT_EQ(collect_scans(requests.size(), aos), expected) << where << " aos";
        ASSERT_EQ(collect_scans(requests.size(), soa_goto), expected) << where << " soa goto";
        ASSERT_EQ(collect_scans(requests.size(), aos_goto), expected) << where << " aos goto";
      }
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
  const auto ignore = [](auto, auto, auto) {};
  const std::vector<list_type::scan_request> requests = {{1, 2}, {2, 1}};
  const std::span<const list_type::scan_request> request_span(requests);
  std::vector<std::size_t> visited(2), short_visited(1);
  for (technique how : list_techniques) {
    EXPECT_THROW(list.multi_scan(request_span, std::span(short_visited), how, 4, ignore), std::invalid_argument)
        << to_string(how);
    EXPECT_THROW(list.multi_scan(request_span, std::span(visited), how, 0, ignore), std::invalid_argument)
        << to_string(how);
  }
  // Neither a nested lookup nor a nested scan: rejected, naming what the list has.
  std::vector<std::optional<std::uint64_t>> output(3);
  EXPECT_THROW(list.multi_find(keys, std::span(output), technique::coro_nested, 4), std::invalid_argument);
  try {
    list.multi_scan(request_span, std::span(visited), technique::coro_nested, 4, ignore);
    ADD_FAILURE() << "coro_nested scans ran";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("gp, amac, coro, fiber, adaptive, imlp-dynamic"), std::string::npos)
        << error.what();
  }
  // The entry points of their own check their arguments too.
  std::vector<std::optional<std::uint64_t>> short_output(2);
  EXPECT_THROW(list.find_group_prefetching(keys, std::span(short_output), 4), std::invalid_argument);
  EXPECT_THROW(list.find_amac(keys, std::span(output), 0), std::invalid_argument);
  EXPECT_THROW(list.scan_group_prefetching(request_span, std::span(visited), 0, ignore), std::invalid_argument);
  EXPECT_THROW(list.scan_amac(request_span, std::span(short_visited), 4, ignore), std::invalid_argument);
  EXPECT_THROW(list.scan_imlp<prefetch_hint::t0>(request_span, std::span(visited), 0, imlp_schedule::dynamic, ignore),
               std::invalid_argument);
}

// A visitor that throws in the middle of the scans: every technique lets the exception out (the
// scans in flight are dropped; ASan reports a frame they leak), and the next batch runs whole.
TEST(SkipList, AVisitorThatThrowsStopsEveryTechniqueAndTheNextBatchRuns) {
  oracle_map oracle;
  std::vector<std::uint64_t> keys(2000);
  std::iota(keys.begin(), keys.end(), std::uint64_t{1});
  const list_type list = build_list(keys, oracle);
  std::vector<list_type::scan_request> requests;
  for (std::uint64_t start = 1; start < 2000; start += 97) requests.push_back({start, 50});
  const std::span<const list_type::scan_request> request_span(requests);
  std::vector<std::size_t> visited(requests.size());
  for (technique how : list_techniques) {
    for (std::size_t group : {std::size_t{1}, std::size_t{4}, std::size_t{64}}) {
      std::size_t entries = 0;
      const auto throw_at_the_300th = [&entries](auto, auto, auto) {
        if (++entries == 300) throw std::runtime_error("visitor gave up");
      };
      EXPECT_THROW(list.multi_scan(request_span, std::span(visited), how, group, throw_at_the_300th), std::runtime_error)
          << to_string(how) << " group " << group;
      EXPECT_EQ(entries, 300u) << to_string(how) << " group " << group;
    }
    expect_multi_scan_agrees(list, oracle, requests, std::vector<technique>{how}, "after a visitor threw");
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
