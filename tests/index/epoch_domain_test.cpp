// The epoch domain on one thread: what is reclaimed when, the two-bucket pinning that keeps
// reclamation moving under overlapping guards (an interleaved ring), guards held by suspended
// coroutines, and the arena (reuse, large blocks, release at destruction).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "braid/core/coro.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/scheduler.hpp"
#include "braid/index/detail/epoch_domain.hpp"

namespace braid::testing {
namespace {

using detail::epoch_domain;

int reclaimed_objects = 0;
void count_reclaim(void* object) {
  ++reclaimed_objects;
  delete static_cast<int*>(object);
}

// Collects until `done()` or a generous number of rounds passed.
template <class Done>
void collect_until(epoch_domain& domain, Done done) {
  for (int round = 0; round < 16 && !done(); ++round) domain.collect();
}

TEST(EpochDomain, RetiredObjectIsReclaimedOnlyAfterTwoAdvances) {
  epoch_domain domain;
  reclaimed_objects = 0;
  domain.retire(new int(1), count_reclaim);
  const std::uint64_t retired_in = domain.global_epoch();
  domain.collect();  // no one is pinned: the epoch advances once
  EXPECT_EQ(reclaimed_objects, 0) << "reclaimed before two advances";
  EXPECT_EQ(domain.global_epoch(), retired_in + 1);
  domain.collect();
  EXPECT_EQ(domain.global_epoch(), retired_in + 2);
  EXPECT_EQ(reclaimed_objects, 1);
}

TEST(EpochDomain, PinnedThreadHoldsReclamationBack) {
  epoch_domain domain;
  reclaimed_objects = 0;
  {
    auto guard = domain.pin();
    EXPECT_TRUE(guard.active());
    domain.retire(new int(2), count_reclaim);
    for (int round = 0; round < 10; ++round) domain.collect();
    EXPECT_EQ(reclaimed_objects, 0) << "reclaimed while a guard from before the retirement is held";
    // The epoch can move at most once past the pinned one.
    EXPECT_LE(domain.global_epoch(), guard.epoch() + 1);
  }
  collect_until(domain, [] { return reclaimed_objects == 1; });
  EXPECT_EQ(reclaimed_objects, 1);
}

TEST(EpochDomain, OverlappingGuardsLetTheAnnouncementMoveOn) {
  // A ring of interleaved operations: there is always a guard held, yet the oldest ones end,
  // and what was retired before the newer guards began must be reclaimed.
  epoch_domain domain;
  reclaimed_objects = 0;
  std::vector<epoch_domain::guard> ring;
  ring.push_back(domain.pin());
  const std::uint64_t first = ring.front().epoch();
  domain.retire(new int(3), count_reclaim);
  domain.collect();  // advances to first + 1: the thread announces `first`
  EXPECT_EQ(domain.global_epoch(), first + 1);
  ring.push_back(domain.pin());  // joins the newer bucket
  EXPECT_EQ(ring.back().epoch(), first + 1);
  domain.collect();
  EXPECT_EQ(domain.global_epoch(), first + 1) << "advanced past a held guard's epoch + 1";
  ring.erase(ring.begin());  // the oldest guard ends; the newer one is still held
  domain.collect();          // the announcement moved to first + 1: advance to first + 2
  EXPECT_EQ(domain.global_epoch(), first + 2);
  EXPECT_EQ(reclaimed_objects, 1) << "retired in `first`, reclaimed at `first + 2` though a guard is held";
  ring.push_back(domain.pin());
  ring.clear();
  collect_until(domain, [] { return false; });
  EXPECT_GE(domain.global_epoch(), first + 4);
}

TEST(EpochDomain, ManyGuardsInOneEpochAllCount) {
  epoch_domain domain;
  reclaimed_objects = 0;
  std::vector<epoch_domain::guard> guards;
  for (int index = 0; index < 5; ++index) guards.push_back(domain.pin());
  domain.retire(new int(4), count_reclaim);
  guards.pop_back();
  guards.pop_back();
  for (int round = 0; round < 8; ++round) domain.collect();
  EXPECT_EQ(reclaimed_objects, 0);
  guards.clear();
  collect_until(domain, [] { return reclaimed_objects == 1; });
  EXPECT_EQ(reclaimed_objects, 1);
}

TEST(EpochDomain, GuardMovesAndReleasesOnce) {
  epoch_domain domain;
  reclaimed_objects = 0;
  auto first = domain.pin();
  epoch_domain::guard second = std::move(first);
  EXPECT_FALSE(first.active());  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  EXPECT_TRUE(second.active());
  epoch_domain::guard third;
  third = std::move(second);
  domain.retire(new int(5), count_reclaim);
  for (int round = 0; round < 6; ++round) domain.collect();
  EXPECT_EQ(reclaimed_objects, 0);
  third.release();
  third.release();  // idempotent
  collect_until(domain, [] { return reclaimed_objects == 1; });
  EXPECT_EQ(reclaimed_objects, 1);
}

// A coroutine that pins, suspends while pinned, and reads a block after resuming.
template <execution_mode M>
coro<std::uint64_t> read_after_suspension(epoch_domain& domain, const std::uint64_t* block) {
  const auto guard = domain.pin();
  co_await yield_point<M>();
  co_return *block;
}

TEST(EpochDomain, SuspendedCoroutineKeepsItsEpochPinned) {
  epoch_domain domain;
  auto* block = static_cast<std::uint64_t*>(domain.allocate(sizeof(std::uint64_t)));
  *block = 42;
  coro<std::uint64_t> reader = read_after_suspension<interleaved>(domain, block);
  ASSERT_FALSE(reader.done());
  domain.retire(block, sizeof(std::uint64_t));  // "unlinked" while the reader is suspended
  const auto before = domain.statistics().reclaimed;
  for (int round = 0; round < 10; ++round) domain.collect();
  EXPECT_EQ(domain.statistics().reclaimed, before) << "reclaimed under a suspended reader";
  reader.resume();
  ASSERT_TRUE(reader.done());
  EXPECT_EQ(reader.take_result(), 42u);
  collect_until(domain, [&] { return domain.statistics().reclaimed > before; });
  EXPECT_EQ(domain.statistics().reclaimed, before + 1);
}

TEST(EpochDomain, DestroyingASuspendedCoroutineUnpins) {
  epoch_domain domain;
  reclaimed_objects = 0;
  std::uint64_t value = 7;
  {
    coro<std::uint64_t> reader = read_after_suspension<interleaved>(domain, &value);
    domain.retire(new int(6), count_reclaim);
    for (int round = 0; round < 4; ++round) domain.collect();
    EXPECT_EQ(reclaimed_objects, 0);
  }  // the frame is destroyed unfinished: its guard unpins
  collect_until(domain, [] { return reclaimed_objects == 1; });
  EXPECT_EQ(reclaimed_objects, 1);
}

TEST(EpochDomain, InterleavedRingOfPinnedOperationsReclaimsAsItGoes) {
  // 2000 operations, 16 in flight at any time, each pinned while suspended; every 10th one
  // retires a block. Reclamation must happen during the run, not only at its end.
  epoch_domain domain;
  std::size_t reclaimed_during_run = 0;
  std::uint64_t cell = 1;
  const interleaved_scheduler scheduler{16};
  scheduler.run(
      2000,
      [&](std::size_t index) {
        if (index % 10 == 0) {
          domain.retire(domain.allocate(64), 64);
          reclaimed_during_run += domain.collect();
        }
        return read_after_suspension<interleaved>(domain, &cell);
      },
      [](std::size_t, std::uint64_t result) { EXPECT_EQ(result, 1u); });
  EXPECT_GT(reclaimed_during_run, 100u) << "a ring that never drains held reclamation back";
}

TEST(EpochDomain, ArenaReusesFreedAndReclaimedBlocks) {
  epoch_domain domain;
  void* first = domain.allocate(100);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(first) % epoch_domain::block_alignment, 0u);
  domain.deallocate(first, 100);
  EXPECT_EQ(domain.allocate(128), first) << "same size class, freed block comes back first";
  void* second = domain.allocate(128);
  domain.retire(second, 128);
  collect_until(domain, [&] { return domain.statistics().reclaimed == 1; });
  EXPECT_EQ(domain.allocate(65), second);
  const auto statistics = domain.statistics();
  EXPECT_EQ(statistics.allocated_bytes, 256u);
  EXPECT_GE(statistics.arena_reserved_bytes, std::size_t{2} << 20);
  EXPECT_EQ(statistics.registered_threads, 1u);
}

TEST(EpochDomain, LargeBlocksComeFromTheHeapAndGoWithTheDomain) {
  // ASan's leak checker fails this test if a large block outlives the domain.
  auto domain = std::make_unique<epoch_domain>(page_size::small_4k);
  void* kept = domain->allocate(100'000);
  std::memset(kept, 0xab, 100'000);
  void* retired = domain->allocate(5'000);
  domain->retire(retired, 5'000);
  void* freed = domain->allocate(10'000);
  domain->deallocate(freed, 10'000);
  EXPECT_EQ(domain->statistics().allocated_bytes, 105'000u);
  domain.reset();
}

TEST(EpochDomain, DomainsAreIndependent) {
  epoch_domain first;
  reclaimed_objects = 0;
  auto guard = first.pin();
  {
    epoch_domain second;
    second.retire(new int(7), count_reclaim);
    collect_until(second, [] { return reclaimed_objects == 1; });
    EXPECT_EQ(reclaimed_objects, 1) << "a guard in another domain must not hold this one back";
  }
  epoch_domain third;  // may reuse the address of `second`: must not reuse its registration
  third.retire(new int(8), count_reclaim);
  collect_until(third, [] { return reclaimed_objects == 2; });
  EXPECT_EQ(reclaimed_objects, 2);
}

}  // namespace
}  // namespace braid::testing
