// braid-test: concurrent
// The epoch domain under threads: readers that reach a shared object through an atomic
// pointer never see it reclaimed (a reclaimed block is poisoned by ASan and overwritten by
// the reclaim hook here), writers replace and retire it; threads come and go (slots are
// released at thread exit and reused).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "braid/core/coro.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/scheduler.hpp"
#include "braid/index/detail/epoch_domain.hpp"

namespace braid::testing {
namespace {

using detail::epoch_domain;

constexpr std::uint64_t live_mark = 0x5afe'5afe'5afe'5afeull;
constexpr std::uint64_t dead_mark = 0xdead'dead'dead'deadull;

struct shared_object {
  std::atomic<std::uint64_t> mark{live_mark};
  std::atomic<std::uint64_t> payload{0};
};

void scribble_and_delete(void* object) {
  auto* victim = static_cast<shared_object*>(object);
  victim->mark.store(dead_mark, std::memory_order_relaxed);
  delete victim;
}

// A reader as an interleaved coroutine: pins, suspends while holding the pointer, checks it.
coro<bool> check_after_suspension(epoch_domain& domain, const std::atomic<shared_object*>& slot) {
  const auto guard = domain.pin();
  const shared_object* seen = slot.load(std::memory_order_acquire);
  co_await yield_point<interleaved>();
  co_return seen->mark.load(std::memory_order_relaxed) == live_mark;
}

TEST(EpochDomainConcurrent, ReadersNeverSeeReclaimedObjects) {
  epoch_domain domain;
  std::atomic<shared_object*> slot{new shared_object};
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> bad_reads{0};
  std::atomic<std::uint64_t> reads{0};

  auto plain_reader = [&] {
    while (!stop.load(std::memory_order_relaxed)) {
      const auto guard = domain.pin();
      const shared_object* seen = slot.load(std::memory_order_acquire);
      for (int spin = 0; spin < 20; ++spin) {
        if (seen->mark.load(std::memory_order_relaxed) != live_mark) bad_reads.fetch_add(1);
      }
      reads.fetch_add(1, std::memory_order_relaxed);
    }
  };
  auto interleaved_reader = [&] {
    while (!stop.load(std::memory_order_relaxed)) {
      interleaved_scheduler{8}.run(
          256, [&](std::size_t) { return check_after_suspension(domain, slot); },
          [&](std::size_t, bool live) {
            if (!live) bad_reads.fetch_add(1);
            reads.fetch_add(1, std::memory_order_relaxed);
          });
    }
  };
  // Writers run until reclamation has visibly kept pace with them (a reader descheduled while
  // pinned holds it back, so a fixed burst could finish inside one time slice), or a deadline.
  constexpr std::uint64_t reclaim_target = 6'000;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  std::atomic<std::uint64_t> rounds{0};
  auto writer = [&] {
    for (std::uint64_t round = 0;; ++round) {
      if (round % 256 == 0 && round >= 3'000 &&
          (domain.statistics().reclaimed >= reclaim_target || std::chrono::steady_clock::now() > deadline)) {
        break;
      }
      const auto guard = domain.pin();
      auto* fresh = new shared_object;
      fresh->payload.store(static_cast<std::uint64_t>(round), std::memory_order_relaxed);
      shared_object* old = slot.exchange(fresh, std::memory_order_acq_rel);
      domain.retire(old, scribble_and_delete);
      // Arena blocks too: ASan reports a read of a reclaimed (poisoned) block.
      domain.retire(domain.allocate(192), 192);
      rounds.fetch_add(1, std::memory_order_relaxed);
    }
  };

  std::vector<std::thread> threads;
  threads.emplace_back(plain_reader);
  threads.emplace_back(interleaved_reader);
  std::thread first_writer(writer);
  std::thread second_writer(writer);
  first_writer.join();
  second_writer.join();
  stop.store(true);
  for (auto& thread : threads) thread.join();

  EXPECT_EQ(bad_reads.load(), 0u);
  EXPECT_GT(reads.load(), 0u);
  const auto statistics = domain.statistics();
  EXPECT_EQ(statistics.retired, 2 * rounds.load());
  EXPECT_GE(statistics.reclaimed, reclaim_target) << "reclamation did not keep up with the writers";
  delete slot.load();
}

TEST(EpochDomainConcurrent, ExitedThreadsReleaseTheirSlots) {
  // More threads over time than the domain has slots: each exiting thread frees its slot.
  epoch_domain domain;
  for (std::size_t wave = 0; wave < epoch_domain::max_participants / 16 + 2; ++wave) {
    std::vector<std::thread> threads;
    for (int index = 0; index < 20; ++index) {
      threads.emplace_back([&] {
        const auto guard = domain.pin();
        domain.retire(domain.allocate(64), 64);
      });
    }
    for (auto& thread : threads) thread.join();
  }
  EXPECT_LE(domain.statistics().registered_threads, 1u);
}

TEST(EpochDomainConcurrent, ThreadOutlivingADomainExitsCleanly) {
  auto domain = std::make_unique<epoch_domain>();
  std::atomic<int> phase{0};
  std::thread user([&] {
    { const auto guard = domain->pin(); }
    phase.store(1);
    while (phase.load() != 2) std::this_thread::yield();
    // The domain is gone; the exiting thread must not touch it.
  });
  while (phase.load() != 1) std::this_thread::yield();
  domain.reset();
  phase.store(2);
  user.join();
  SUCCEED();
}

}  // namespace
}  // namespace braid::testing
