// imlp_scheduler: the push scheduler over a generated kernel (sorted_array's search) — pushes
// beyond the width, in-order and out-of-order drains, drain_until, groups 1 .. above the width,
// both layouts and dispatches — against the kernel's plain routine; the pull runners' results
// arrive once per task.
#include "braid/core/imlp_scheduler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "braid/index/generated/sorted_array_find.hpp"

namespace braid {
namespace {

using kernel = imlp_kernels::sorted_array_find<prefetch_hint::t0, std::uint64_t>;
using result = std::optional<std::size_t>;

struct fixture {
  std::vector<std::uint64_t> keys;
  std::vector<std::uint64_t> lookups;
  kernel::shared_args shared() const { return {keys.data(), keys.size(), 8}; }
  result plain(std::uint64_t key) const { return kernel::plain(shared(), key); }
};

fixture make(std::uint64_t seed, std::size_t count, std::size_t lookups) {
  std::mt19937_64 random(seed);
  fixture f;
  for (std::size_t i = 0; i < count; ++i) f.keys.push_back(random() % (4 * count + 4) * 2);
  std::sort(f.keys.begin(), f.keys.end());
  f.keys.erase(std::unique(f.keys.begin(), f.keys.end()), f.keys.end());
  for (std::size_t i = 0; i < lookups; ++i) f.lookups.push_back(random() % (8 * count + 10));
  return f;
}

template <imlp_layout Layout, imlp_dispatch Dispatch>
void check_push(const fixture& f, std::size_t group) {
  SCOPED_TRACE("group " + std::to_string(group) + " " + to_string(Layout) + " " + to_string(Dispatch));
  imlp_push_scheduler<kernel, 16, Layout, Dispatch> in_order(f.shared(), group);
  for (std::uint64_t key : f.lookups) in_order.push(key);
  std::vector<std::size_t> order;
  in_order.drain_in_order([&](std::size_t ticket, result r) {
    order.push_back(ticket);
    ASSERT_EQ(r, f.plain(f.lookups[ticket])) << ticket;
  });
  ASSERT_EQ(order.size(), f.lookups.size());
  for (std::size_t i = 0; i < order.size(); ++i) ASSERT_EQ(order[i], i);
  EXPECT_EQ(in_order.in_flight(), 0u);

  imlp_push_scheduler<kernel, 16, Layout, Dispatch> any_order(f.shared(), group);
  std::vector<std::size_t> tickets;
  for (std::uint64_t key : f.lookups) tickets.push_back(any_order.push(key));
  std::set<std::size_t> seen;
  if (!tickets.empty()) {  // one result taken early; the drain delivers the others
    ASSERT_EQ(any_order.drain_until(tickets.back()), f.plain(f.lookups.back()));
    seen.insert(tickets.back());
    EXPECT_THROW((void)any_order.drain_until(tickets.back()), std::invalid_argument);
  }
  any_order.drain_out_of_order([&](std::size_t ticket, result r) {
    ASSERT_TRUE(seen.insert(ticket).second) << "ticket " << ticket << " delivered twice";
    ASSERT_EQ(r, f.plain(f.lookups[ticket])) << ticket;
  });
  EXPECT_EQ(seen.size(), f.lookups.size());
  EXPECT_THROW((void)any_order.drain_until(f.lookups.size() + 3), std::invalid_argument);
}

TEST(ImlpScheduler, PushedTasksDrainInOrderOutOfOrderAndOneByOne) {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const fixture f = make(seed, seed == 1 ? 0 : 50 + seed * 300, seed == 2 ? 0 : 40 + seed * 11);
    for (std::size_t group : {std::size_t{1}, std::size_t{3}, std::size_t{16}, std::size_t{40}}) {
      check_push<imlp_layout::soa, imlp_dispatch::switch_table>(f, group);
      check_push<imlp_layout::aos, imlp_dispatch::computed_goto>(f, group);
    }
  }
}

TEST(ImlpScheduler, ZeroGroupIsRefused) {
  const fixture f = make(1, 10, 1);
  EXPECT_THROW((imlp_push_scheduler<kernel, 4>(f.shared(), 0)), std::invalid_argument);
}

template <imlp_layout Layout, imlp_dispatch Dispatch>
void check_pull(const fixture& f, imlp_schedule schedule, std::size_t group) {
  const std::string where = std::string(to_string(schedule)) + " " + to_string(Layout) + " " + to_string(Dispatch) +
                            " keys " + std::to_string(f.keys.size()) + " group " + std::to_string(group);
  std::vector<int> deliveries(f.lookups.size(), 0);
  std::vector<result> out(f.lookups.size());
  imlp_run<kernel, 64, Layout, Dispatch>(
      schedule, f.shared(), f.lookups.size(), group,
      [&](auto& slots, std::size_t slot, std::size_t task) { kernel::start(slots, slot, f.lookups[task]); },
      [&](std::size_t task, auto&& value) {
        ++deliveries[task];
        out[task] = std::forward<decltype(value)>(value);
      });
  for (std::size_t i = 0; i < f.lookups.size(); ++i) {
    ASSERT_EQ(deliveries[i], 1) << where << " task " << i;
    ASSERT_EQ(out[i], f.plain(f.lookups[i])) << where << " task " << i;
  }
}

// With at most 8 keys every search ends in its first step (the hot levels finish it), so each
// context the dynamic schedule refills finishes at once; an empty array ends before any level.
TEST(ImlpScheduler, PullRunnersDeliverEachTaskOnce) {
  for (std::size_t keys : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{3000}}) {
    const fixture f = make(9 + keys, keys, 500);
    for (imlp_schedule schedule : {imlp_schedule::dynamic, imlp_schedule::static_batch, imlp_schedule::hybrid}) {
      for (std::size_t group : {std::size_t{1}, std::size_t{7}, std::size_t{64}, std::size_t{1000}}) {
        check_pull<imlp_layout::soa, imlp_dispatch::switch_table>(f, schedule, group);
        check_pull<imlp_layout::aos, imlp_dispatch::switch_table>(f, schedule, group);
        if (schedule == imlp_schedule::dynamic) check_pull<imlp_layout::soa, imlp_dispatch::computed_goto>(f, schedule, group);
      }
    }
  }
}

}  // namespace
}  // namespace braid
