// chained_scheduler: every input launched and delivered once with its own result, for every
// group and input size; the order its header promises, step by step (interleaved_scheduler's
// while the input lasts); chained operations under other schedulers and plain suspensions
// under this one; coros an operation runs inside its body are never taken for the ring's own;
// exceptions from an operation or the sink free the frames in flight; the ring
// itself under a group that changes between calls (adaptive_scheduler's windows).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "braid/core/chained_scheduler.hpp"
#include "core/test_operations.hpp"

namespace braid::testing {
namespace {

template <class Scheduler, class MakeOperation>
void expect_each_exactly_once(const Scheduler& scheduler, std::size_t count, MakeOperation make,
                              const std::string& where) {
  std::vector<int> launches(count), deliveries(count);
  std::vector<std::int64_t> results(count, -1);
  scheduler.run(
      count,
      [&](std::size_t index) {
        ++launches.at(index);
        return make(index);
      },
      [&](std::size_t index, std::int64_t result) {
        ++deliveries.at(index);
        results.at(index) = result;
      });
  for (std::size_t index = 0; index < count; ++index) {
    ASSERT_EQ(launches[index], 1) << where << " index " << index;
    ASSERT_EQ(deliveries[index], 1) << where << " index " << index;
    ASSERT_EQ(results[index], expected(index)) << where << " index " << index;
  }
}

// Suspends alternately through the chain and plainly (back to the scheduler).
coro<std::int64_t> mixed_suspensions(std::size_t index) {
  std::int64_t sum = 0;
  for (std::size_t step = 0; step < suspensions(index); ++step) {
    if (step % 2 == 0) sum += co_await fetch<chained>(&cells()[step]);
    else sum += co_await fetch<interleaved>(&cells()[step]);
    co_await yield_point<chained>();
  }
  const auto steps = static_cast<std::int64_t>(suspensions(index));
  if (sum != steps * (steps - 1) / 2) throw std::logic_error("fetch returned a wrong value");
  co_return expected(index);
}

// counted_coro with a frame of another size class: the next input of a slot whose operation
// finished gets a frame at another address, so the ring must relink it.
coro<std::int64_t> large_frame_operation(std::size_t index) {
  std::array<std::int64_t, 96> trail{};
  for (std::size_t step = 0; step < suspensions(index); ++step) {
    trail[step] = co_await fetch<chained>(&cells()[step]);
  }
  std::int64_t sum = 0;
  for (std::int64_t value : trail) sum += value;
  const auto steps = static_cast<std::int64_t>(suspensions(index));
  if (sum != steps * (steps - 1) / 2) throw std::logic_error("fetch returned a wrong value");
  co_return expected(index);
}

TEST(ChainedScheduler, DeliversEveryIndexOnceForAllGroupAndInputSizes) {
  for (std::size_t group : {1, 2, 3, 7, 16, 64, 255, 256, 300}) {
    for (std::size_t count : {0, 1, 2, 5, 64, 257, 1000}) {
      const std::string where = "group " + std::to_string(group) + " count " + std::to_string(count);
      const chained_scheduler scheduler{group};
      expect_each_exactly_once(scheduler, count, [](std::size_t i) { return counted_coro<chained>(i); },
                               where + " coro<chained>");
      expect_each_exactly_once(scheduler, count, [](std::size_t i) { return counted_coro<interleaved>(i); },
                               where + " coro<interleaved>");
      expect_each_exactly_once(scheduler, count, [](std::size_t i) { return counted_coro<sequential>(i); },
                               where + " coro<sequential>");
      expect_each_exactly_once(scheduler, count, mixed_suspensions, where + " mixed suspensions");
      expect_each_exactly_once(
          scheduler, count,
          [](std::size_t i) { return i % 3 == 0 ? large_frame_operation(i) : counted_coro<chained>(i); },
          where + " mixed frame sizes");
    }
  }
}

// The number of `count` chained coros that `scheduler` runs to their own results.
template <class Scheduler>
std::int64_t nested_correct_results(const Scheduler& scheduler, std::size_t count) {
  std::int64_t correct = 0;
  scheduler.run(
      count, [](std::size_t i) { return counted_coro<chained>(i); },
      [&](std::size_t i, std::int64_t result) { correct += result == expected(i) ? 1 : 0; });
  return correct;
}

// Runs other coros to completion inside its body — plainly, under an interleaved scheduler
// and under a nested chained_scheduler — then suspends plainly (back to the scheduler), so the
// scheduler must not take any of those coros for one of its own operations.
coro<std::int64_t> nested_work_then_plain_suspension(std::size_t index) {
  for (std::size_t round = 0; round < index % 3; ++round) co_await yield_point<chained>();
  bool nested_ok = true;
  switch (index % 4) {
    case 0: {
      auto plain = counted_coro<sequential>(index + 1);
      nested_ok = plain.take_result() == expected(index + 1);
      break;
    }
    case 1:
      nested_ok = nested_correct_results(interleaved_scheduler{2}, 3) == 3;
      break;
    case 2:
      nested_ok = nested_correct_results(chained_scheduler{3}, 5) == 5;
      break;
    default:
      break;
  }
  if (!nested_ok) throw std::logic_error("nested work returned a wrong value");
  co_await fetch<interleaved>(&cells()[0]);
  co_await yield_point<chained>();
  co_return expected(index);
}

TEST(ChainedScheduler, CorosRunInsideAnOperationAreNotTakenForTheRings) {
  for (std::size_t group : {1, 2, 5, 16}) {
    for (std::size_t count : {1, 7, 200}) {
      const std::string where = "group " + std::to_string(group) + " count " + std::to_string(count);
      const chained_scheduler scheduler{group};
      expect_each_exactly_once(scheduler, count, nested_work_then_plain_suspension, where);
      expect_each_exactly_once(
          scheduler, count,
          [](std::size_t i) { return i % 2 == 0 ? nested_work_then_plain_suspension(i) : counted_coro<chained>(i); },
          where + " beside chained operations");
    }
  }
}

TEST(ChainedScheduler, ChainedOperationsRunUnderEveryOtherScheduler) {
  for (std::size_t count : {0, 1, 5, 257}) {
    const std::string where = "count " + std::to_string(count);
    auto make = [](std::size_t i) { return counted_coro<chained>(i); };
    expect_each_exactly_once(sequential_scheduler{}, count, make, where + " sequential");
    expect_each_exactly_once(interleaved_scheduler{7}, count, make, where + " interleaved");
    expect_each_exactly_once(batched_scheduler{7}, count, make, where + " batched");
    expect_each_exactly_once(interleaved_scheduler{7}, count, mixed_suspensions, where + " interleaved, mixed");
  }
}

// Every step of every operation, in the order the scheduler ran them.
using step_log = std::vector<std::pair<std::size_t, std::size_t>>;

template <execution_mode M>
coro<std::int64_t> logged_operation(std::size_t index, step_log& log) {
  for (std::size_t step = 0; step < suspensions(index); ++step) {
    log.emplace_back(index, step);
    (void)co_await fetch<M>(&cells()[step]);
  }
  log.emplace_back(index, SIZE_MAX);
  co_return expected(index);
}

// The order the header promises, computed without coroutines: slots in a circle, round robin;
// a finished slot takes the next input (which runs when the round comes back), and leaves the
// circle once the input is exhausted.
struct order_model {
  step_log steps;
  std::vector<std::size_t> deliveries;
};

order_model expected_order(std::size_t group, std::size_t count) {
  constexpr std::size_t done = SIZE_MAX;
  order_model model;
  struct running {
    std::size_t index, step;
  };
  std::size_t next = 0;
  // Launches inputs until one suspends (each logs its first step); those without steps finish.
  auto launch = [&]() -> std::optional<running> {
    while (next < count) {
      const std::size_t index = next++;
      if (suspensions(index) > 0) {
        model.steps.emplace_back(index, 0);
        return running{index, 1};
      }
      model.steps.emplace_back(index, done);
      model.deliveries.push_back(index);
    }
    return std::nullopt;
  };
  std::vector<running> slots;
  while (slots.size() < group) {
    auto op = launch();
    if (!op) break;
    slots.push_back(*op);
  }
  const std::size_t width = slots.size();
  std::vector<std::size_t> successor(width), predecessor(width);
  for (std::size_t slot = 0; slot < width; ++slot) {
    successor[slot] = (slot + 1) % width;
    predecessor[slot] = (slot + width - 1) % width;
  }
  std::size_t live = width;
  std::size_t current = 0;
  while (live > 0) {
    running& op = slots[current];
    if (op.step < suspensions(op.index)) {  // resumes, logs its next step and suspends again
      model.steps.emplace_back(op.index, op.step++);
      current = successor[current];
      continue;
    }
    model.steps.emplace_back(op.index, done);
    model.deliveries.push_back(op.index);
    if (auto refill = launch()) {
      op = *refill;
    } else if (--live > 0) {
      successor[predecessor[current]] = successor[current];
      predecessor[successor[current]] = predecessor[current];
    }
    current = successor[current];
  }
  return model;
}

TEST(ChainedScheduler, RunsTheRingInTheOrderItPromises) {
  for (std::size_t group : {1, 2, 3, 8, 16, 100}) {
    for (std::size_t count : {1, 2, 7, 64, 300}) {
      step_log steps;
      std::vector<std::size_t> deliveries;
      chained_scheduler{group}.run(
          count, [&](std::size_t i) { return logged_operation<chained>(i, steps); },
          [&](std::size_t i, std::int64_t result) {
            ASSERT_EQ(result, expected(i));
            deliveries.push_back(i);
          });
      const order_model model = expected_order(group, count);
      ASSERT_EQ(steps, model.steps) << "group " << group << " count " << count;
      ASSERT_EQ(deliveries, model.deliveries) << "group " << group << " count " << count;
    }
  }
}

// While the input lasts, that is interleaved_scheduler's order.
TEST(ChainedScheduler, InterleavesAsTheInterleavedSchedulerWhileTheInputLasts) {
  for (std::size_t group : {1, 2, 8, 16}) {
    const std::size_t count = 300;
    step_log chained_steps, interleaved_steps;
    chained_scheduler{group}.run(
        count, [&](std::size_t i) { return logged_operation<chained>(i, chained_steps); },
        [](std::size_t, std::int64_t) {});
    interleaved_scheduler{group}.run(
        count, [&](std::size_t i) { return logged_operation<interleaved>(i, interleaved_steps); },
        [](std::size_t, std::int64_t) {});
    const auto last_launch =
        std::find(chained_steps.begin(), chained_steps.end(), std::pair{count - 1, std::size_t{0}});
    ASSERT_NE(last_launch, chained_steps.end());
    const auto prefix = static_cast<std::size_t>(last_launch - chained_steps.begin()) + 1;
    ASSERT_GE(interleaved_steps.size(), prefix);
    EXPECT_TRUE(std::equal(chained_steps.begin(), last_launch + 1, interleaved_steps.begin())) << "group " << group;
  }
}

TEST(ChainedScheduler, VoidOperationsAreDelivered) {
  for (std::size_t group : {1, 3, 64}) {
    std::vector<int> effects(200), deliveries(200);
    chained_scheduler{group}.run(
        effects.size(),
        [&](std::size_t index) {
          return [](std::vector<int>& out, std::size_t i) -> coro<void> {
            for (std::size_t s = 0; s < i % 4; ++s) co_await yield_point<chained>();
            out[i] += static_cast<int>(i);
          }(effects, index);
        },
        [&](std::size_t index) { ++deliveries[index]; });
    for (std::size_t i = 0; i < effects.size(); ++i) {
      ASSERT_EQ(effects[i], static_cast<int>(i));
      ASSERT_EQ(deliveries[i], 1);
    }
  }
}

TEST(ChainedScheduler, ExceptionsReachTheCallerAndFreeFramesInFlight) {
  for (std::size_t group : {1, 4, 16}) {
    const std::int64_t live_before = frame_pool::statistics().live_frames;
    const std::size_t failing = 37;
    EXPECT_THROW(chained_scheduler{group}.run(
                     100, [&](std::size_t i) { return counted_coro<chained>(i, failure_at{failing}); },
                     [&](std::size_t index, std::int64_t result) {
                       ASSERT_NE(index, failing);
                       ASSERT_EQ(result, expected(index));
                     }),
                 std::runtime_error)
        << "group " << group;
    EXPECT_EQ(frame_pool::statistics().live_frames, live_before) << "group " << group << ": frames leaked";

    EXPECT_THROW(chained_scheduler{group}.run(
                     100, [](std::size_t i) { return counted_coro<chained>(i); },
                     [](std::size_t index, std::int64_t) {
                       if (index == 50) throw std::out_of_range("sink refused");
                     }),
                 std::out_of_range);
    EXPECT_EQ(frame_pool::statistics().live_frames, live_before) << "group " << group << ": frames leaked";
  }
}

TEST(ChainedScheduler, RunIntoMapsInputsInOrder) {
  std::vector<std::size_t> inputs(333);
  for (std::size_t i = 0; i < inputs.size(); ++i) inputs[i] = inputs.size() - 1 - i;
  for (std::size_t group : {1, 2, 16, 500}) {
    auto results = run(chained_scheduler{group}, inputs, [](std::size_t i) { return counted_coro<chained>(i); });
    ASSERT_EQ(results.size(), inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) ASSERT_EQ(results[i], expected(inputs[i]));
  }
}

// The ring under a group that changes between calls (adaptive_scheduler's windows): it grows at
// fill(), shrinks as operations finish, never has more than the group live after a refill,
// stops when asked, drains with group 0, and delivers every input once.
TEST(ChainedRing, FollowsAGroupThatChangesBetweenWindows) {
  for (std::size_t count : {1u, 5u, 64u, 700u}) {
    for (bool large_frames : {false, true}) {
      const std::string where = "count " + std::to_string(count) + (large_frames ? ", mixed frames" : "");
      std::vector<int> deliveries(count, 0);
      std::size_t delivered = 0;
      std::size_t launched = 0;
      auto launch = [&](std::size_t index) {
        ++launched;
        return large_frames && index % 3 == 0 ? large_frame_operation(index) : counted_coro<chained>(index);
      };
      auto deliver = [&](std::size_t index, std::int64_t result) {
        ASSERT_EQ(result, expected(index)) << where;
        ++deliveries.at(index);
        ++delivered;
      };
      detail::chained_ring<coro<std::int64_t>> ring(16);
      std::size_t next = 0;
      std::size_t window = 0;
      for (std::size_t group : {4u, 16u, 2u, 1u, 9u, 16u, 3u}) {
        const std::size_t live_before_fill = ring.live();
        ring.fill(group, next, count, launch, deliver);
        ASSERT_LE(ring.live(), std::max(group, live_before_fill)) << where << ": fill grows to the group, no further";
        ASSERT_EQ(launched - delivered, ring.live()) << where;
        const std::size_t target = delivered + 10;
        std::size_t previous_live = ring.live();
        ring.run(group, next, count, launch, deliver, [&](std::size_t live) {
          EXPECT_TRUE(live <= group || live < previous_live)
              << where << " window " << window << ": a slot was refilled with more than the group live";
          previous_live = live;
          return delivered >= target;
        });
        ASSERT_EQ(launched - delivered, ring.live()) << where;
        ++window;
      }
      ring.run(0, next, count, launch, deliver, [](std::size_t) { return false; });  // drain
      EXPECT_EQ(ring.live(), 0u) << where;
      ring.fill(16, next, count, launch, deliver);
      ring.run(16, next, count, launch, deliver, [](std::size_t) { return false; });
      EXPECT_EQ(next, count) << where;
      EXPECT_EQ(delivered, count) << where;
      for (std::size_t index = 0; index < count; ++index) ASSERT_EQ(deliveries[index], 1) << where << " " << index;
    }
  }
}

TEST(ChainedRing, ShrinksToTheGroupAsOperationsFinish) {
  std::vector<std::int64_t> results(200, -1);
  auto launch = [](std::size_t index) { return counted_coro<chained>(index); };
  std::size_t delivered = 0;
  auto deliver = [&](std::size_t index, std::int64_t result) {
    results.at(index) = result;
    ++delivered;
  };
  detail::chained_ring<coro<std::int64_t>> ring(12);
  std::size_t next = 0;
  ring.fill(12, next, results.size(), launch, deliver);
  ASSERT_EQ(ring.live(), 12u);
  std::size_t live_seen_last = 12;
  ring.run(3, next, results.size(), launch, deliver, [&](std::size_t live) {
    EXPECT_LE(live, live_seen_last) << "no slot refilled while more than the group are live";
    live_seen_last = live;
    return delivered >= 40;
  });
  EXPECT_EQ(ring.live(), 3u) << "nine completions took it from 12 to 3";
  EXPECT_LT(next, results.size());
  ring.run(3, next, results.size(), launch, deliver, [&](std::size_t live) {
    EXPECT_TRUE(live == 3 || next == results.size()) << "three live while the input lasts";
    return false;
  });
  EXPECT_EQ(ring.live(), 0u);
  for (std::size_t index = 0; index < results.size(); ++index) ASSERT_EQ(results[index], expected(index));
}

TEST(ChainedScheduler, GroupZeroIsRejected) { EXPECT_THROW(chained_scheduler{0}, std::invalid_argument); }

}  // namespace
}  // namespace braid::testing
