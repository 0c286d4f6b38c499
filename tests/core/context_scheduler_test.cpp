// Lookups with a context each (context_scheduler.hpp): results in input order for every
// scheduler, group 1 and group above the count, empty input; as many contexts as lookups in
// flight, each reset before its next lookup; every frame from the arenas; exceptions; the
// arguments checked. (No heap once the pool is warm: zero_allocation_test.cpp.)
#include "braid/core/context_scheduler.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <stdexcept>
#include <vector>

#include "braid/core/fetch.hpp"
#include "braid/core/task.hpp"

namespace braid {
namespace {

// What one lookup saw of its context when it started.
struct sighting {
  const lookup_context* context = nullptr;
  std::size_t live_frames = 0;
  std::size_t used_bytes = 0;
};

const std::int64_t* cells() {
  static const std::vector<std::int64_t> values = [] {
    std::vector<std::int64_t> v(64);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>(i) * 10;
    return v;
  }();
  return values.data();
}

// A two-level lookup: the root (this) awaits a leaf that fetches `steps` cells. Not inlined,
// so that Clang cannot place a frame inside its caller's and every frame is allocated.
[[gnu::noinline]] task<std::int64_t> leaf(lookup_context&, std::size_t steps, bool fail) {
  std::int64_t sum = 0;
  for (std::size_t step = 0; step < steps; ++step) sum += co_await fetch<interleaved>(cells() + step);
  if (fail) throw std::runtime_error("lookup failed");
  co_return sum;
}
[[gnu::noinline]] task<std::int64_t> lookup(lookup_context& context, std::size_t input, sighting* seen, std::size_t fail_at = SIZE_MAX) {
  *seen = {&context, context.live_frames(), context.used_bytes()};
  co_return static_cast<std::int64_t>(input) + co_await leaf(context, input % 5, input == fail_at);
}
std::int64_t expected(std::size_t input) {
  std::int64_t sum = 0;
  for (std::size_t step = 0; step < input % 5; ++step) sum += static_cast<std::int64_t>(step) * 10;
  return static_cast<std::int64_t>(input) + sum;
}

std::vector<std::size_t> inputs_up_to(std::size_t count) {
  std::vector<std::size_t> inputs(count);
  for (std::size_t i = 0; i < count; ++i) inputs[i] = i;
  return inputs;
}

template <class Scheduler>
void check_run(const Scheduler& sched, std::size_t count, std::size_t most_contexts) {
  const std::vector<std::size_t> inputs = inputs_up_to(count);
  std::vector<sighting> seen(count);
  const auto pool_before = frame_pool::statistics().live_frames;
  const std::vector<std::int64_t> results = run(sched, context_arena{4096}, inputs, [&](lookup_context& c, std::size_t i) {
    return lookup(c, i, &seen[i]);
  });
  EXPECT_EQ(frame_pool::statistics().live_frames, pool_before);
  ASSERT_EQ(results.size(), count);
  std::set<const lookup_context*> contexts;
  for (std::size_t i = 0; i < count; ++i) {
    EXPECT_EQ(results[i], expected(i)) << Scheduler::name << " input " << i;
    EXPECT_EQ(seen[i].live_frames, 1u) << "only the lookup's own root is in its context";
    EXPECT_EQ(seen[i].used_bytes, seen[0].used_bytes) << "every lookup starts on a reset arena";
    contexts.insert(seen[i].context);
  }
  // A lookup that finishes without suspending gives its context back at once: at most one
  // context per lookup in flight, and at least one.
  EXPECT_LE(contexts.size(), most_contexts) << Scheduler::name << " count " << count;
  EXPECT_EQ(contexts.empty(), count == 0);
}

TEST(ContextScheduler, ResultsInInputOrderForEveryScheduler) {
  for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{100}}) {
    check_run(sequential_scheduler{}, count, count == 0 ? 0 : 1);
    for (std::size_t group : {std::size_t{1}, std::size_t{3}, std::size_t{16}, std::size_t{1000}}) {
      check_run(interleaved_scheduler{group}, count, std::min(group, count));
      check_run(batched_scheduler{group}, count, std::min(group, count));
    }
  }
}

TEST(ContextScheduler, ForEachVisitsEveryElementWithItsOwnContext) {
  std::vector<std::size_t> elements = inputs_up_to(40);
  std::vector<std::int64_t> written(elements.size(), -1);
  std::vector<sighting> seen(elements.size());
  for_each(interleaved_scheduler{6}, context_arena{2048}, elements.begin(), elements.end(),
           [&](lookup_context& context, std::size_t& element) -> task<void> {
             written[element] = co_await lookup(context, element, &seen[element]);
           });
  for (std::size_t i = 0; i < elements.size(); ++i) {
    EXPECT_EQ(written[i], expected(i));
    EXPECT_EQ(seen[i].live_frames, 2u) << "the for_each root and the lookup";
  }
  for_each(sequential_scheduler{}, context_arena{2048}, elements.begin(), elements.begin(),
           [&](lookup_context&, std::size_t&) -> task<void> {
             ADD_FAILURE() << "an empty range launches nothing";
             co_return;
           });
}

TEST(ContextScheduler, ATooSmallArenaStillGivesTheResults) {
  const std::vector<std::size_t> inputs = inputs_up_to(50);
  std::vector<sighting> seen(inputs.size());
  const auto results = run(interleaved_scheduler{4}, context_arena{16}, inputs,
                           [&](lookup_context& c, std::size_t i) { return lookup(c, i, &seen[i]); });
  for (std::size_t i = 0; i < inputs.size(); ++i) EXPECT_EQ(results[i], expected(i));
}

TEST(ContextScheduler, ExceptionsPropagateAndTheContextsAreReleased) {
  const std::vector<std::size_t> inputs = inputs_up_to(30);
  std::vector<sighting> seen(inputs.size());
  const auto pool_before = frame_pool::statistics().live_frames;
  EXPECT_THROW((void)run(interleaved_scheduler{5}, context_arena{4096}, inputs,
                         [&](lookup_context& c, std::size_t i) { return lookup(c, i, &seen[i], 13); }),
               std::runtime_error);
  EXPECT_THROW((void)run(sequential_scheduler{}, context_arena{4096}, inputs,
                         [&](lookup_context& c, std::size_t i) { return lookup(c, i, &seen[i], 13); }),
               std::runtime_error);
  EXPECT_EQ(frame_pool::statistics().live_frames, pool_before) << "frames, arenas and rings all given back";
}

TEST(ContextScheduler, ChecksArguments) {
  const std::vector<std::size_t> none;
  const auto make = [](lookup_context& c, std::size_t i) -> task<std::int64_t> {
    co_return static_cast<std::int64_t>(i + c.live_frames());
  };
  EXPECT_THROW((void)interleaved_scheduler{0}, std::invalid_argument);
  EXPECT_THROW((void)run(interleaved_scheduler{2}, context_arena{0}, none, make), std::invalid_argument);
  std::vector<std::int64_t> out(1);
  const std::vector<std::size_t> two{1, 2};
  EXPECT_THROW(run_into(sequential_scheduler{}, context_arena{64}, two, make, std::span<std::int64_t>(out)),
               std::invalid_argument);
  std::vector<std::size_t> elements{1, 2};
  EXPECT_THROW(for_each(sequential_scheduler{}, context_arena{64}, elements.end(), elements.begin(),
                        [](lookup_context&, std::size_t&) -> task<void> { co_return; }),
               std::invalid_argument);
}

}  // namespace
}  // namespace braid
