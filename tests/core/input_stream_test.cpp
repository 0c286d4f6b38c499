// Input streams: an operation written once as a loop over its inputs is the one-input operation
// over a single_input (a coro<R> with its result, in every mode) and, run by run_over_batch, a
// group of long-lived coroutines over one batch: every key answered once into its own output
// slot for every group and batch size (empty, shorter than the group, ragged), the coroutines
// never more than the group, exceptions freeing every frame (zero_allocation_test.cpp checks
// that a warm batch run stays off the heap).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "braid/core/chained_scheduler.hpp"
#include "braid/core/input_stream.hpp"
#include "core/test_operations.hpp"

namespace braid::testing {
namespace {

using counting_operation = counted_stream_operation;

std::vector<std::size_t> keys_up_to(std::size_t count) {
  std::vector<std::size_t> keys(count);
  std::iota(keys.begin(), keys.end(), std::size_t{0});
  return keys;
}

template <execution_mode M, class Scheduler>
void expect_every_key_answered_once(const Scheduler& scheduler, std::size_t count, const std::string& where) {
  int started = 0;
  int destroyed = 0;
  const counting_operation operation{&started, &destroyed};
  const std::vector<std::size_t> keys = keys_up_to(count);
  std::vector<std::int64_t> out(count, -1);
  std::size_t coroutines = 0;
  run_over_batch(scheduler, std::span<const std::size_t>(keys), std::span<std::int64_t>(out),
                 [&](shared_inputs<std::size_t, std::int64_t> inputs) {
                   ++coroutines;
                   return operation.answers<M>(inputs);
                 });
  EXPECT_EQ(coroutines, std::min(scheduler.group, count)) << where;
  EXPECT_EQ(started, static_cast<int>(coroutines)) << where;
  EXPECT_EQ(destroyed, started) << where;
  for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(out[i], expected(i)) << where << " key " << i;
}

TEST(InputStream, SingleInputIsTheOneKeyOperationInEveryMode) {
  int started = 0;
  int destroyed = 0;
  const counting_operation operation{&started, &destroyed};
  for (std::size_t key : {0, 1, 4, 5, 11}) {
    auto plain = operation.answers<sequential>(single_input<std::size_t, std::int64_t>(key));
    ASSERT_TRUE(plain.done()) << "a sequential operation is finished when the call returns";
    EXPECT_EQ(plain.take_result(), expected(key));

    auto braided = operation.answers<interleaved>(single_input<std::size_t, std::int64_t>(key));
    std::size_t resumes = 0;
    while (!braided.done()) {
      braided.resume();
      ++resumes;
    }
    EXPECT_EQ(resumes, suspensions(key)) << "key " << key;
    EXPECT_EQ(braided.take_result(), expected(key));
  }
}

TEST(InputStream, SingleInputsRunUnderEveryScheduler) {
  int started = 0;
  int destroyed = 0;
  const counting_operation operation{&started, &destroyed};
  const std::vector<std::size_t> keys = keys_up_to(100);
  auto make = [&](std::size_t key) { return operation.answers<interleaved>(single_input<std::size_t, std::int64_t>(key)); };
  const std::vector<std::int64_t> results = run(interleaved_scheduler{7}, keys, make);
  for (std::size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(results[i], expected(i));
}

TEST(InputStream, EveryKeyOfABatchIsAnsweredOnceForAllGroupAndBatchSizes) {
  for (std::size_t group : {1, 2, 3, 7, 16, 64, 300}) {
    for (std::size_t count : {0, 1, 2, 5, 64, 257, 1000}) {
      const std::string where = "group " + std::to_string(group) + " count " + std::to_string(count);
      expect_every_key_answered_once<chained>(chained_scheduler{group}, count, where + " chained");
      expect_every_key_answered_once<interleaved>(interleaved_scheduler{group}, count, where + " interleaved");
      expect_every_key_answered_once<sequential>(chained_scheduler{group}, count, where + " sequential");
    }
  }
}

TEST(InputStream, ABatchHandsOutItsIndicesInInputOrderToWhoeverAsks) {
  const std::vector<int> keys = {10, 11, 12};
  std::vector<int> out(3, 0);
  input_batch<int, int> batch{std::span<const int>(keys), std::span<int>(out)};
  shared_inputs<int, int> first(batch);
  shared_inputs<int, int> second(batch);
  const auto a = first.next();
  const auto b = second.next();
  const auto c = first.next();
  const auto exhausted = second.next();
  ASSERT_TRUE(a && b && c);
  EXPECT_FALSE(exhausted);
  EXPECT_EQ(a.key, 10);
  EXPECT_EQ(b.index, 1u);
  EXPECT_EQ(c.key, 12);
  second.deliver(c, 7);
  EXPECT_EQ(out, (std::vector<int>{0, 0, 7}));
}

TEST(InputStream, AShortOutputIsRefused) {
  const std::vector<int> keys(4, 1);
  std::vector<int> out(3);
  EXPECT_THROW((input_batch<int, int>{std::span<const int>(keys), std::span<int>(out)}), std::invalid_argument);
}

TEST(InputStream, AnExceptionPropagatesAndFreesEveryCoroutine) {
  for (std::size_t group : {1, 4, 16}) {
    int started = 0;
    int destroyed = 0;
    const counting_operation operation{&started, &destroyed, failure_at{37}};
    const std::vector<std::size_t> keys = keys_up_to(200);
    std::vector<std::int64_t> out(keys.size());
    std::size_t coroutines = 0;
    EXPECT_THROW(run_over_batch(chained_scheduler{group}, std::span<const std::size_t>(keys),
                                std::span<std::int64_t>(out),
                                [&](shared_inputs<std::size_t, std::int64_t> inputs) {
                                  ++coroutines;
                                  return operation.answers<chained>(inputs);
                                }),
                 std::runtime_error)
        << "group " << group;
    EXPECT_EQ(started, static_cast<int>(coroutines)) << "group " << group;
    EXPECT_EQ(destroyed, started) << "group " << group << ": a frame in flight was not freed";
  }
}

}  // namespace
}  // namespace braid::testing
