// The automatic prefetch distance: the tuner's climb over synthetic window costs, and the
// worker running every task and issuing every annotated prefetch exactly once, at a fixed
// distance and at the one it tunes (which may move between windows).
// braid-test: concurrent
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <vector>

#include "braid/tasks/detail/distance_tuner.hpp"
#include "tasks/task_test_support.hpp"

namespace braid::tasks::testing {
namespace {

using detail::distance_tuner;

// Runs `windows` windows whose cycles `cost(distance)` gives; returns every distance run.
std::vector<unsigned> climb(distance_tuner& tuner, unsigned windows, const std::function<std::uint64_t(unsigned)>& cost) {
  std::vector<unsigned> ran;
  for (unsigned window = 0; window < windows; ++window) {
    ran.push_back(tuner.distance());
    tuner.window_done(cost(tuner.distance()));
  }
  return ran;
}

std::uint64_t valley_at(unsigned best, unsigned distance) {
  const std::uint64_t off = distance > best ? distance - best : best - distance;
  return 100'000 + 5'000 * off * off;
}

TEST(DistanceTuner, ClimbsToTheCheapestDistanceFromEitherSide) {
  for (unsigned best : {1u, 2u, 4u, 7u, 12u, 16u}) {
    distance_tuner tuner(4, 16);
    climb(tuner, 200, [&](unsigned distance) { return valley_at(best, distance); });
    EXPECT_EQ(tuner.settled(), best);
  }
}

TEST(DistanceTuner, TriesOnlyDistancesWithinOneAndTheLargest) {
  for (unsigned largest : {1u, 2u, 5u, 32u}) {
    distance_tuner tuner(40, largest);  // an initial distance above the largest is clamped
    EXPECT_LE(tuner.settled(), largest);
    // Decreasing cost: the tuner runs up against the largest and stays there.
    const std::vector<unsigned> ran = climb(tuner, 300, [](unsigned distance) { return 1'000'000 / distance; });
    for (unsigned distance : ran) {
      EXPECT_GE(distance, 1u);
      EXPECT_LE(distance, largest);
    }
    EXPECT_EQ(tuner.settled(), largest);
  }
  distance_tuner at_one(1, 16);
  const std::vector<unsigned> ran = climb(at_one, 40, [](unsigned distance) { return 1'000 * distance; });
  EXPECT_EQ(std::set<unsigned>(ran.begin(), ran.end()), (std::set<unsigned>{1, 2}));
  EXPECT_EQ(at_one.settled(), 1u);
}

TEST(DistanceTuner, DifferencesWithinTheMarginDoNotMoveIt) {
  distance_tuner tuner(6, 16);
  // Neighbours 1/100 cheaper: inside the 1/32 margin.
  climb(tuner, 100, [](unsigned distance) { return 1'000'000 - (distance == 6 ? 0 : 10'000); });
  EXPECT_EQ(tuner.settled(), 6u);
}

TEST(DistanceTuner, ARoundRunsTheSettledDistanceTwiceAndEachNeighbourOnceThenItRestsLongerEachTime) {
  distance_tuner tuner(5, 16);
  const std::vector<unsigned> ran = climb(tuner, 4 + 1 + 4 + 2 + 4 + 4 + 4 + 8 + 4 + 8 + 4, [](unsigned) { return 1'000; });
  const std::vector<unsigned> round = {5, 6, 5, 4};
  std::vector<unsigned> expected;
  for (unsigned rest : {1u, 2u, 4u, 8u, 8u}) {
    expected.insert(expected.end(), round.begin(), round.end());
    expected.insert(expected.end(), rest, 5u);
  }
  expected.insert(expected.end(), round.begin(), round.end());
  EXPECT_EQ(ran, expected);
}

TEST(DistanceTuner, AMoveEndsTheRest) {
  distance_tuner tuner(5, 16);
  // Flat for six rounds (rests of 1, 2, 4, 8, 8, 8), then 7 is cheapest: the tuner moves to 6
  // after one round, and the next round follows at once.
  std::vector<unsigned> ran = climb(tuner, 4 * 6 + 1 + 2 + 4 + 8 + 8 + 8, [](unsigned) { return 1'000; });
  ran = climb(tuner, 8, [](unsigned distance) { return valley_at(7, distance); });
  EXPECT_EQ(ran, (std::vector<unsigned>{5, 6, 5, 4, 6, 7, 6, 5}));
}

// ---- the worker -----------------------------------------------------------------------------

struct alignas(64) line_object : resource {
  std::uint64_t value = 1;
};

// One chain: `left` runs over a ring of objects, each run annotated with a one-line prefetch.
struct prefetching_chain : annotated_task<prefetching_chain> {
  prefetching_chain(const std::vector<resource_ptr>* objects, std::size_t first, std::uint32_t steps,
                    std::atomic<std::uint64_t>* total, std::atomic<unsigned>* chains) noexcept
      : ring(objects), position(first), left(steps), sum_out(total), running(chains) {
    step_annotation();
  }
  void step_annotation() noexcept {
    annotate((*ring)[position], access_intent::write,
             prefetch_descriptor::bytes(sizeof(line_object), prefetch_temporality::temporal));
  }
  task_result execute(worker&) {
    sum += object_as<line_object>()->value;
    position = (position + 1) % ring->size();
    if (--left == 0) {
      sum_out->fetch_add(sum, std::memory_order_relaxed);
      if (running->fetch_sub(1, std::memory_order_acq_rel) == 1) return task_result::stop();
      return task_result::remove();
    }
    step_annotation();
    return task_result::succeed(*this);
  }
  const std::vector<resource_ptr>* ring;
  std::size_t position;
  std::uint32_t left;
  std::uint64_t sum = 0;
  std::atomic<std::uint64_t>* sum_out;
  std::atomic<unsigned>* running;
};

TEST(AutomaticDistance, EveryTaskRunsAndEveryPrefetchIsIssuedOnceAtAFixedOrTunedDistance) {
  for (const prefetch_distance distance : {prefetch_distance::fixed(3), prefetch_distance::automatic()}) {
    for (const unsigned chains : {1u, 5u, 40u}) {
      runtime_config config = test_config(1);
      config.distance = distance;
      config.reclaim = reclamation::none;
      runtime tasks(config);
      auto objects = std::make_unique<line_object[]>(97);
      std::vector<resource_ptr> ring;
      for (std::size_t index = 0; index < 97; ++index) {
        objects[index].value = index + 1;
        ring.push_back(tasks.annotate(&objects[index], {.protocol = primitive::none, .owner = 0}));
      }
      constexpr std::uint32_t steps = 6'000;  // many tuning windows, at every chain count
      std::atomic<std::uint64_t> total{0};
      std::atomic<unsigned> running{chains};
      std::uint64_t expected = 0;
      for (unsigned chain = 0; chain < chains; ++chain) {
        tasks.spawn(*tasks.allocate<prefetching_chain>(&ring, chain % 97, steps, &total, &running));
        for (std::uint32_t step = 0; step < steps; ++step) expected += (chain + step) % 97 + 1;
      }
      tasks.reset_statistics();
      tasks.run();
      const worker_statistics counted = tasks.statistics().tasks;
      EXPECT_EQ(total.load(), expected) << distance.describe() << ", " << chains << " chains";
      EXPECT_EQ(counted.executed, std::uint64_t{chains} * steps) << distance.describe();
      // Every run carried a prefetch annotation: each one is issued exactly once.
      EXPECT_EQ(counted.prefetches, std::uint64_t{chains} * steps) << distance.describe() << ", " << chains;
    }
  }
}

}  // namespace
}  // namespace braid::tasks::testing
