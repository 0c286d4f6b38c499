// Scheduler semantics: every input index is launched once and delivered once with its own
// result, for every scheduler, group size and operation type; empty input; group > input;
// exceptions reach the caller and free every frame in flight.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/test_operations.hpp"

namespace braid::testing {
namespace {

struct outcome {
  std::vector<int> deliveries;  // per index
  std::vector<std::int64_t> results;
  std::vector<int> launches;
};

template <class Scheduler, class MakeOperation>
outcome run_counted(const Scheduler& scheduler, std::size_t count, MakeOperation make) {
  outcome seen{std::vector<int>(count), std::vector<std::int64_t>(count, -1), std::vector<int>(count)};
  scheduler.run(
      count,
      [&](std::size_t index) {
        ++seen.launches.at(index);
        return make(index);
      },
      [&](std::size_t index, std::int64_t result) {
        ++seen.deliveries.at(index);
        seen.results.at(index) = result;
      });
  return seen;
}

void expect_each_exactly_once(const outcome& seen, const std::string& where) {
  for (std::size_t index = 0; index < seen.results.size(); ++index) {
    ASSERT_EQ(seen.launches[index], 1) << where << " index " << index;
    ASSERT_EQ(seen.deliveries[index], 1) << where << " index " << index;
    ASSERT_EQ(seen.results[index], expected(index)) << where << " index " << index;
  }
}

const std::vector<std::size_t> group_sizes = {1, 2, 3, 7, 16, 64, 255, 256, 300};
const std::vector<std::size_t> input_sizes = {0, 1, 2, 5, 64, 257, 1000};

template <class Scheduler>
void check_all_operation_kinds(const Scheduler& scheduler, const std::string& name) {
  for (std::size_t count : input_sizes) {
    const std::string where = name + " count " + std::to_string(count);
    expect_each_exactly_once(
        run_counted(scheduler, count, [](std::size_t i) { return counted_coro<interleaved>(i); }),
        where + " coro<interleaved>");
    expect_each_exactly_once(
        run_counted(scheduler, count, [](std::size_t i) { return counted_coro<sequential>(i); }),
        where + " coro<sequential>");
    for (std::size_t depth : {1, 3, 8}) {
      expect_each_exactly_once(
          run_counted(scheduler, count, [depth](std::size_t i) { return counted_chain<interleaved>(i, depth); }),
          where + " task depth " + std::to_string(depth));
    }
    expect_each_exactly_once(run_counted(scheduler, count, [](std::size_t i) { return counted_fiber(i); }),
                             where + " fiber");
  }
}

TEST(Scheduler, SequentialDeliversEveryIndexOnce) {
  check_all_operation_kinds(sequential_scheduler{}, "sequential");
}

TEST(Scheduler, InterleavedDeliversEveryIndexOnceForAllGroupSizes) {
  for (std::size_t group : group_sizes) {
    check_all_operation_kinds(interleaved_scheduler{group}, "interleaved group " + std::to_string(group));
  }
}

TEST(Scheduler, BatchedDeliversEveryIndexOnceForAllGroupSizes) {
  for (std::size_t group : group_sizes) {
    check_all_operation_kinds(batched_scheduler{group}, "batched group " + std::to_string(group));
  }
}

TEST(Scheduler, GroupZeroIsRejected) {
  EXPECT_THROW(interleaved_scheduler{0}, std::invalid_argument);
  EXPECT_THROW(batched_scheduler{0}, std::invalid_argument);
}

// The interleaved ring keeps `group` operations in flight until the input runs out; the
// batched one launches the next batch only when the whole batch has finished.
TEST(Scheduler, InFlightCountsFollowThePolicy) {
  constexpr std::size_t count = 40;
  constexpr std::size_t group = 8;
  auto measure = [&](const auto& scheduler) {
    std::size_t in_flight = 0;
    std::size_t peak = 0;
    std::vector<std::size_t> in_flight_at_launch;
    scheduler.run(
        count,
        [&](std::size_t index) {
          in_flight_at_launch.push_back(in_flight);
          ++in_flight;
          peak = std::max(peak, in_flight);
          // Every operation suspends at least once, long ones (index % 8 == 0) ten times.
          return [](std::size_t i) -> coro<std::int64_t> {
            for (std::size_t s = 0; s < (i % 8 == 0 ? 10u : 1u); ++s) co_await yield_point<interleaved>();
            co_return static_cast<std::int64_t>(i);
          }(index);
        },
        [&](std::size_t, std::int64_t) { --in_flight; });
    return std::pair{peak, in_flight_at_launch};
  };
  auto [interleaved_peak, interleaved_at_launch] = measure(interleaved_scheduler{group});
  EXPECT_EQ(interleaved_peak, group);
  for (std::size_t index = group; index < count; ++index) {
    EXPECT_EQ(interleaved_at_launch[index], group - 1) << "interleaved refills a finished slot at once";
  }
  auto [batched_peak, batched_at_launch] = measure(batched_scheduler{group});
  EXPECT_EQ(batched_peak, group);
  for (std::size_t index = 0; index < count; index += group) {
    EXPECT_EQ(batched_at_launch[index], 0u) << "a batch starts only when the previous one is done";
  }
}

template <class Scheduler, class MakeOperation>
void check_exception_reaches_caller(const Scheduler& scheduler, MakeOperation make, const std::string& where) {
  const std::int64_t live_before = frame_pool::statistics().live_frames;
  const std::size_t failing = 37;
  bool thrown = false;
  try {
    scheduler.run(
        100, [&](std::size_t index) { return make(index, failure_at{failing}); },
        [&](std::size_t index, std::int64_t result) {
          ASSERT_NE(index, failing);
          ASSERT_EQ(result, expected(index));
        });
  } catch (const std::runtime_error& error) {
    thrown = std::string(error.what()) == "operation failed";
  }
  EXPECT_TRUE(thrown) << where;
  EXPECT_EQ(frame_pool::statistics().live_frames, live_before) << where << ": frames leaked";
}

TEST(Scheduler, ExceptionsReachTheCallerAndFreeFramesInFlight) {
  auto coro_op = [](std::size_t i, failure_at f) { return counted_coro<interleaved>(i, f); };
  auto task_op = [](std::size_t i, failure_at f) { return counted_chain<interleaved>(i, 4, f); };
  auto fiber_op = [](std::size_t i, failure_at f) { return counted_fiber(i, f); };
  for (std::size_t group : {1, 4, 16}) {
    const std::string g = " group " + std::to_string(group);
    check_exception_reaches_caller(interleaved_scheduler{group}, coro_op, "interleaved coro" + g);
    check_exception_reaches_caller(interleaved_scheduler{group}, task_op, "interleaved task" + g);
    check_exception_reaches_caller(interleaved_scheduler{group}, fiber_op, "interleaved fiber" + g);
    check_exception_reaches_caller(batched_scheduler{group}, coro_op, "batched coro" + g);
    check_exception_reaches_caller(batched_scheduler{group}, task_op, "batched task" + g);
  }
  check_exception_reaches_caller(sequential_scheduler{}, coro_op, "sequential coro");
  check_exception_reaches_caller(sequential_scheduler{}, task_op, "sequential task");
}

TEST(Scheduler, ExceptionFromTheSinkFreesFramesInFlight) {
  const std::int64_t live_before = frame_pool::statistics().live_frames;
  EXPECT_THROW(interleaved_scheduler{16}.run(
                   100, [](std::size_t i) { return counted_chain<interleaved>(i, 3); },
                   [](std::size_t index, std::int64_t) {
                     if (index == 50) throw std::out_of_range("sink refused");
                   }),
               std::out_of_range);
  EXPECT_EQ(frame_pool::statistics().live_frames, live_before);
}

TEST(Scheduler, VoidOperationsAreDelivered) {
  for (std::size_t group : {1, 3, 64}) {
    std::vector<int> effects(200), deliveries(200);
    interleaved_scheduler{group}.run(
        effects.size(),
        [&](std::size_t index) -> task<void> {
          return [](std::vector<int>& out, std::size_t i) -> task<void> {
            co_await yield_point<interleaved>();
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

TEST(Scheduler, RunCollectsResultsInInputOrder) {
  std::vector<std::size_t> inputs(333);
  for (std::size_t i = 0; i < inputs.size(); ++i) inputs[i] = inputs.size() - 1 - i;
  for (std::size_t group : {1, 2, 3, 7, 16, 64}) {
    auto results = run(interleaved_scheduler{group}, inputs,
                       [](std::size_t i) { return counted_coro<interleaved>(i); });
    ASSERT_EQ(results.size(), inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) ASSERT_EQ(results[i], expected(inputs[i]));
  }
  EXPECT_TRUE(run(batched_scheduler{4}, std::vector<std::size_t>{},
                  [](std::size_t i) { return counted_coro<interleaved>(i); })
                  .empty());
}

}  // namespace
}  // namespace braid::testing
