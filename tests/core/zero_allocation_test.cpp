// The zero-allocation property: once the frame pool is warm, an interleaved run (coroutine
// frames, task chains, long-lived coroutines over a batch, fiber stacks, the scheduler's ring,
// lookup contexts) makes no global heap allocation.
// It counts calls of the global operator new (global_allocation_counter.hpp).
#include <gtest/gtest.h>

#include <span>
#include <vector>

#include "core/test_operations.hpp"
#include "global_allocation_counter.hpp"

namespace braid::testing {
namespace {

template <class Scheduler, class MakeOperation>
std::size_t allocations_of_run(const Scheduler& scheduler, std::size_t count, MakeOperation make) {
  std::int64_t checksum = 0;
  auto run_once = [&] {
    scheduler.run(count, make, [&](std::size_t, std::int64_t result) { checksum += result; });
  };
  run_once();  // warm-up: the pool carves its blocks
  const std::size_t before = global_allocations.load();
  run_once();
  run_once();
  const std::size_t after = global_allocations.load();
  EXPECT_GT(checksum, 0);
  return after - before;
}

TEST(ZeroAllocation, CountingReallyCounts) {
  const std::size_t before = global_allocations.load();
  void* probe = ::operator new(16);  // a direct call: not subject to allocation elision
  EXPECT_EQ(global_allocations.load(), before + 1) << "the replacement operator new is in use";
  ::operator delete(probe);
}

TEST(ZeroAllocation, InterleavedCoroRunsStayOffTheHeap) {
  for (std::size_t group : {1, 16, 256}) {
    EXPECT_EQ(allocations_of_run(interleaved_scheduler{group}, 5000,
                                 [](std::size_t i) { return counted_coro<interleaved>(i); }),
              0u)
        << "group " << group;
  }
}

TEST(ZeroAllocation, TaskChainsStayOffTheHeap) {
  EXPECT_EQ(allocations_of_run(interleaved_scheduler{32}, 5000,
                               [](std::size_t i) { return counted_chain<interleaved>(i, 5); }),
            0u);
  EXPECT_EQ(allocations_of_run(batched_scheduler{32}, 5000,
                               [](std::size_t i) { return counted_chain<interleaved>(i, 5); }),
            0u);
}

// A context per lookup in flight: the contexts, their arenas and the chains' frames all come
// from the warm pool.
task<std::int64_t> chain_in_context(lookup_context& context, std::size_t index, std::size_t depth) {
  if (depth == 1) co_return co_await counted_leaf<interleaved>(index, failure_at{SIZE_MAX});
  co_return co_await chain_in_context(context, index, depth - 1);
}

TEST(ZeroAllocation, LookupsWithContextsStayOffTheHeap) {
  std::vector<std::size_t> inputs(3000);
  for (std::size_t i = 0; i < inputs.size(); ++i) inputs[i] = i;
  std::vector<std::int64_t> out(inputs.size());
  const auto make = [](lookup_context& context, std::size_t i) { return chain_in_context(context, i, 4); };
  run_into(interleaved_scheduler{16}, context_arena{4096}, inputs, make, std::span<std::int64_t>(out));  // warm-up
  const std::size_t before = global_allocations.load();
  run_into(interleaved_scheduler{16}, context_arena{4096}, inputs, make, std::span<std::int64_t>(out));
  run_into(sequential_scheduler{}, context_arena{4096}, inputs, make, std::span<std::int64_t>(out));
  EXPECT_EQ(global_allocations.load(), before);
  for (std::size_t i = 0; i < inputs.size(); ++i) ASSERT_EQ(out[i], expected(i));
}

TEST(ZeroAllocation, LongLivedCoroutinesOverABatchStayOffTheHeap) {
  const counted_stream_operation operation;
  std::vector<std::size_t> keys(5000);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = i;
  std::vector<std::int64_t> out(keys.size());
  auto pass = [&] {
    run_over_batch(chained_scheduler{16}, std::span<const std::size_t>(keys), std::span<std::int64_t>(out),
                   [&](shared_inputs<std::size_t, std::int64_t> inputs) { return operation.answers<chained>(inputs); });
  };
  pass();  // warm-up
  const std::size_t before = global_allocations.load();
  pass();
  EXPECT_EQ(global_allocations.load(), before);
  for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(out[i], expected(i));
}

TEST(ZeroAllocation, FibersStayOffTheHeap) {
  EXPECT_EQ(allocations_of_run(interleaved_scheduler{16}, 2000, [](std::size_t i) { return counted_fiber(i); }),
            0u);
}

}  // namespace
}  // namespace braid::testing
