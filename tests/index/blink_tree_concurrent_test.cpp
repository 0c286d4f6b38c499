// The B-link tree under concurrency: a concurrent fill, then concurrent inserts, lookups and
// updates, on two workers (or two threads), for every form of driving the tree and every
// synchronization variant. Afterwards the consistency checker, and: every read returned a
// value written for its key; every key inserted is there. And insert (add if absent) racing
// with itself: each key added once, the loser leaves the value. Runs under ThreadSanitizer in CI.
// braid-test: concurrent
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "index/blink_tree_test_support.hpp"

namespace braid::tasks::testing {
namespace {

struct workload {
  std::vector<request> fill;
  std::vector<request> mixed;
  std::set<key_type> filled;
  std::set<key_type> fresh;  // keys the mixed phase may insert
};

workload make_workload(std::uint64_t seed, std::size_t fill_count, std::size_t mixed_count) {
  std::mt19937_64 random(seed);
  workload made;
  while (made.filled.size() < fill_count) made.filled.insert(random());
  for (key_type key : made.filled) made.fill.push_back({key, 0, request_kind::insert});
  std::shuffle(made.fill.begin(), made.fill.end(), random);
  const std::vector<key_type> filled(made.filled.begin(), made.filled.end());
  std::vector<key_type> fresh;
  while (fresh.size() < mixed_count / 4) {
    const key_type key = random();
    if (!made.filled.contains(key)) fresh.push_back(key);
  }
  made.fresh.insert(fresh.begin(), fresh.end());
  for (std::size_t index = 0; index < mixed_count; ++index) {
    const unsigned dice = static_cast<unsigned>(random() % 10);
    const key_type old_key = filled[random() % filled.size()];
    const key_type new_key = fresh[random() % fresh.size()];
    if (dice < 4) made.mixed.push_back({old_key, 0, request_kind::read});
    else if (dice < 6) made.mixed.push_back({new_key, 0, request_kind::read});
    else if (dice < 8) made.mixed.push_back({new_key, 0, request_kind::insert});
    else made.mixed.push_back({old_key, 0, request_kind::update});
  }
  return made;
}

// Checks the mixed phase's results and the tree afterwards.
void check_outcome(const blink_tree& tree, const workload& made, const std::vector<operation_result>& results,
                   const std::string& context) {
  std::set<key_type> inserted;
  for (std::size_t index = 0; index < made.mixed.size(); ++index) {
    const request& wanted = made.mixed[index];
    const operation_result& result = results[index];
    switch (wanted.kind) {
      case request_kind::read:
        if (made.filled.contains(wanted.key)) {
          ASSERT_EQ(result.status, operation_status::found) << context << ": a filled key went missing, request " << index;
        }
        if (result.status == operation_status::found) {
          ASSERT_TRUE(blink::written_for(wanted.key, result.value))
              << context << ": request " << index << " read a value not written for its key";
        } else {
          ASSERT_EQ(result.status, operation_status::absent) << context;
        }
        break;
      case request_kind::insert:
        ASSERT_TRUE(result.status == operation_status::inserted || result.status == operation_status::updated) << context;
        inserted.insert(wanted.key);
        break;
      case request_kind::update:
        ASSERT_EQ(result.status, operation_status::updated) << context << ": request " << index;
        break;
      default: FAIL() << context << ": unexpected request kind";
    }
  }
  const blink_tree::consistency_report report = tree.check();
  ASSERT_TRUE(report.ok) << context << ": " << report.describe();
  ASSERT_EQ(report.keys, made.filled.size() + inserted.size()) << context;
  for (const std::set<key_type>* keys : {&made.filled, static_cast<const std::set<key_type>*>(&inserted)}) {
    for (key_type key : *keys) {
      const std::optional<blink::value_type> value = tree.find(key);
      ASSERT_TRUE(value.has_value()) << context << ": key " << key << " lost";
      ASSERT_TRUE(blink::written_for(key, *value)) << context;
    }
  }
}

constexpr std::size_t fill_count = 6'000;
constexpr std::size_t mixed_count = 12'000;

struct runtime_variant {
  std::string name;
  std::optional<primitive> protocol;
  prefetch_distance distance;
  blink::lookup_form lookups;
};

TEST(BlinkTreeConcurrent, TaskFormOnTwoWorkers) {
  std::vector<runtime_variant> variants = {
      {"annotations, fixed distance", std::nullopt, prefetch_distance::fixed(2), blink::lookup_form::tasks},
      {"annotations, automatic distance", std::nullopt, prefetch_distance::automatic(), blink::lookup_form::tasks},
      {"annotations, coroutine lookups", std::nullopt, prefetch_distance::fixed(3), blink::lookup_form::coroutine_bridge},
  };
  for (primitive protocol : {primitive::olfit, primitive::schedule_writer, primitive::schedule_all,
                             primitive::reader_writer_latch, primitive::exclusive_latch, primitive::transactional}) {
    variants.push_back({std::string("every node ") + to_string(protocol), protocol, prefetch_distance::fixed(2),
                        blink::lookup_form::tasks});
  }
  std::uint64_t seed = 100;
  for (const runtime_variant& variant : variants) {
    const workload made = make_workload(++seed, fill_count, mixed_count);
    runtime_config config = test_config(2);
    config.distance = variant.distance;
    runtime tasks(config);
    blink_tree_options options;
    options.inner_protocol = variant.protocol;
    options.leaf_protocol = variant.protocol;
    blink_tree tree(tasks, options);
    const blink::run_totals filled = blink::run_on_runtime(tree, tasks, made.fill);
    ASSERT_EQ(filled.inserted, fill_count) << variant.name;
    std::vector<operation_result> results(made.mixed.size());
    const blink::run_totals mixed = blink::run_on_runtime(tree, tasks, made.mixed, {.lookups = variant.lookups}, results);
    ASSERT_EQ(mixed.operations, mixed_count) << variant.name;
    check_outcome(tree, made, results, variant.name + ", seed " + std::to_string(seed));
  }
}

TEST(BlinkTreeConcurrent, ThreadFormsOnTwoThreads) {
  thread_runner threads(2);
  for (bool interleaved : {false, true}) {
    const workload made = make_workload(interleaved ? 7 : 8, fill_count, mixed_count);
    runtime tasks(test_config(2));
    blink_tree tree(tasks);
    const blink::run_totals filled = blink::run_on_threads(tree, threads, made.fill, 64);
    ASSERT_EQ(filled.inserted, fill_count);
    std::vector<operation_result> results(made.mixed.size());
    if (interleaved) {
      blink::run_interleaved_on_threads(tree, threads, made.mixed, 500, 8, results);
    } else {
      blink::run_on_threads(tree, threads, made.mixed, 500, results);
    }
    check_outcome(tree, made, results, interleaved ? "interleaved threads" : "threads");
  }
}

// insert under contention: every key is inserted twice (insert_if_absent, different values),
// the two in flight at once on different workers or threads. Exactly one of each pair adds
// the key; the other reports it present and leaves the winner's value.
std::vector<request> duplicate_inserts(std::uint64_t seed, std::size_t keys) {
  std::mt19937_64 random(seed);
  std::set<key_type> distinct;
  while (distinct.size() < keys) distinct.insert(random());
  std::vector<request> requests;
  for (key_type key : distinct) {
    requests.push_back({key, 0, request_kind::insert_if_absent});
    requests.push_back({key, 0, request_kind::insert_if_absent});
  }
  std::shuffle(requests.begin(), requests.end(), random);
  return requests;
}

void check_one_insert_each(const blink_tree& tree, const std::vector<request>& requests,
                           const std::vector<operation_result>& results, const blink::run_totals& totals,
                           const std::string& context) {
  const std::size_t keys = requests.size() / 2;
  ASSERT_EQ(totals.inserted, keys) << context;
  ASSERT_EQ(totals.present, keys) << context;
  std::map<key_type, std::size_t> winner;  // key -> index of the request that added it
  for (std::size_t index = 0; index < requests.size(); ++index) {
    if (results[index].status == operation_status::inserted) {
      ASSERT_TRUE(winner.emplace(requests[index].key, index).second) << context << ": key added twice";
    } else {
      ASSERT_EQ(results[index].status, operation_status::present) << context << ": request " << index;
    }
  }
  ASSERT_EQ(winner.size(), keys) << context;
  for (const auto& [key, index] : winner) {
    ASSERT_EQ(tree.find(key), blink::request_value(key, index)) << context << ": the loser overwrote key " << key;
  }
  const blink_tree::consistency_report report = tree.check();
  ASSERT_TRUE(report.ok) << context << ": " << report.describe();
  ASSERT_EQ(report.keys, keys) << context;
}

TEST(BlinkTreeConcurrent, InsertAddsEachKeyOnceOnTwoWorkers) {
  for (std::optional<primitive> protocol : {std::optional<primitive>{}, std::optional<primitive>{primitive::olfit},
                                            std::optional<primitive>{primitive::reader_writer_latch}}) {
    const std::vector<request> requests = duplicate_inserts(protocol ? 21 + static_cast<int>(*protocol) : 20, fill_count);
    runtime tasks(test_config(2));
    blink_tree_options options;
    options.inner_protocol = protocol;
    options.leaf_protocol = protocol;
    blink_tree tree(tasks, options);
    std::vector<operation_result> results(requests.size());
    const blink::run_totals totals = blink::run_on_runtime(tree, tasks, requests, {.batch = 16}, results);
    check_one_insert_each(tree, requests, results, totals,
                          std::string("task form, ") + (protocol ? to_string(*protocol) : "annotations"));
  }
}

TEST(BlinkTreeConcurrent, InsertAddsEachKeyOnceOnTwoThreads) {
  thread_runner threads(2);
  for (std::size_t batch : {std::size_t{1}, std::size_t{64}}) {
    const std::vector<request> requests = duplicate_inserts(30 + batch, fill_count);
    runtime tasks(test_config(2));
    blink_tree tree(tasks);
    std::vector<operation_result> results(requests.size());
    const blink::run_totals totals = blink::run_on_threads(tree, threads, requests, batch, results);
    check_one_insert_each(tree, requests, results, totals, "threads, batch " + std::to_string(batch));
  }
}

}  // namespace
}  // namespace braid::tasks::testing
