// The indirection array's OID space: dense allocation from 1 across chunk boundaries, null
// entries until installed, stable entry addresses, reservations for recovery, and the limit.
// braid-test: concurrent
#include "braid/txn/detail/indirection_array.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace {

using braid::txn::detail::indirection_array;
using braid::txn::detail::version;

version* marker(std::uint64_t oid) { return reinterpret_cast<version*>(static_cast<std::uintptr_t>(oid) << 4); }

TEST(IndirectionArray, AllocatesDenselyFromOneAcrossChunksWithNullEntries) {
  indirection_array oids;
  EXPECT_EQ(oids.end(), 1u);
  EXPECT_FALSE(oids.contains(indirection_array::no_oid));
  const std::uint64_t count = indirection_array::chunk_entries + 10;  // into the second chunk
  const std::atomic<version*>* first_entry = nullptr;
  for (std::uint64_t expected = 1; expected <= count; ++expected) {
    const std::uint64_t oid = oids.allocate();
    ASSERT_EQ(oid, expected);
    ASSERT_TRUE(oids.contains(oid));
    ASSERT_EQ(oids.entry(oid).load(), nullptr) << oid;
    oids.entry(oid).store(marker(oid));
    if (oid == 1) first_entry = &oids.entry(1);
  }
  EXPECT_EQ(oids.end(), count + 1);
  EXPECT_EQ(&oids.entry(1), first_entry) << "entries never move when the array grows";
  for (std::uint64_t oid = 1; oid <= count; ++oid) ASSERT_EQ(oids.entry(oid).load(), marker(oid)) << oid;
}

TEST(IndirectionArray, ReserveMakesAnOidUsableAndLaterAllocationsComeAfterIt) {
  indirection_array oids;
  const std::uint64_t far = 3 * indirection_array::chunk_entries + 5;
  ASSERT_TRUE(oids.reserve(far));
  EXPECT_TRUE(oids.contains(far));
  EXPECT_EQ(oids.entry(far).load(), nullptr);
  EXPECT_FALSE(oids.contains(1));  // its chunk was never needed
  EXPECT_EQ(oids.allocate(), far + 1);
  EXPECT_TRUE(oids.reserve(7));  // below the end: usable, the end does not move back
  EXPECT_TRUE(oids.contains(7));
  EXPECT_EQ(oids.end(), far + 2);
  EXPECT_FALSE(oids.reserve(indirection_array::no_oid));
  EXPECT_FALSE(oids.reserve(indirection_array::max_oid + 1));
}

TEST(IndirectionArray, TheLastOidIsUsableAndThenTheTableIsFull) {
  indirection_array oids;
  ASSERT_TRUE(oids.reserve(indirection_array::max_oid));
  oids.entry(indirection_array::max_oid).store(marker(1));
  EXPECT_EQ(oids.entry(indirection_array::max_oid).load(), marker(1));
  EXPECT_EQ(oids.end(), indirection_array::max_oid + 1);
  EXPECT_EQ(oids.allocate(), indirection_array::no_oid);
  EXPECT_EQ(oids.end(), indirection_array::max_oid + 1);
  EXPECT_FALSE(oids.contains(indirection_array::max_oid + 1));
}

TEST(IndirectionArray, ThreadsRacingIntoANewChunkGetDistinctOidsWithTheirEntries) {
  indirection_array oids;
  ASSERT_TRUE(oids.reserve(indirection_array::chunk_entries - 3));  // the next OIDs cross a boundary
  constexpr int per_thread = 2000;
  std::vector<std::vector<std::uint64_t>> taken(2);
  std::vector<std::thread> threads;
  for (auto& mine : taken) {
    threads.emplace_back([&oids, &mine] {
      for (int i = 0; i < per_thread; ++i) {
        const std::uint64_t oid = oids.allocate();
        oids.entry(oid).store(marker(oid), std::memory_order_release);
        mine.push_back(oid);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::vector<bool> seen(indirection_array::chunk_entries + 2 * per_thread, false);
  for (const auto& mine : taken) {
    for (const std::uint64_t oid : mine) {
      ASSERT_FALSE(seen[oid]) << oid;
      seen[oid] = true;
      ASSERT_EQ(oids.entry(oid).load(std::memory_order_acquire), marker(oid)) << oid;
    }
  }
}

}  // namespace
