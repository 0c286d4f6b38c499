// adaptive_scheduler: every index once, the results of the operations whichever launcher made
// them, and a controller that finds the cheapest setting and follows a change of costs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

#include "braid/core/adaptive_scheduler.hpp"
#include "braid/core/chained_scheduler.hpp"
#include "core/test_operations.hpp"

namespace braid {
namespace {

using testing::counted_coro;
using testing::expected;

// Runs `count` counted operations; checks every index is delivered once with its value, and
// that plain and interleaved launches add up to `count`. `Interleaved` is the mode of the
// interleaved launcher's coros: interleaved, or chained (run on a chained ring).
template <class Interleaved = interleaved>
void check_every_index_once(adaptive_scheduler& scheduler, std::size_t count) {
  std::vector<int> delivered(count, 0);
  std::size_t plain_launches = 0;
  std::size_t interleaved_launches = 0;
  scheduler.run(
      count,
      [&](std::size_t index) {
        ++plain_launches;
        return counted_coro<sequential>(index);
      },
      [&](std::size_t index) {
        ++interleaved_launches;
        return counted_coro<Interleaved>(index);
      },
      [&](std::size_t index, std::int64_t value) {
        ASSERT_LT(index, count);
        EXPECT_EQ(value, expected(index));
        ++delivered[index];
      });
  EXPECT_EQ(plain_launches + interleaved_launches, count);
  for (std::size_t index = 0; index < count; ++index) ASSERT_EQ(delivered[index], 1) << "index " << index;
}

TEST(AdaptiveScheduler, DeliversEveryIndexOnceForManySizesAndWindows) {
  for (std::size_t window : {1u, 2u, 7u, 64u, 512u}) {
    for (std::size_t max_group : {1u, 2u, 5u, 16u, 64u}) {
      adaptive_scheduler scheduler({.window = window, .max_group = max_group});
      for (std::size_t count : {0u, 1u, 2u, 3u, 17u, 1000u, 20000u}) {
        SCOPED_TRACE(::testing::Message() << "window " << window << ", max group " << max_group << ", count " << count);
        check_every_index_once(scheduler, count);
        check_every_index_once<chained>(scheduler, count);
      }
    }
  }
}

TEST(AdaptiveScheduler, RunCollectsInInputOrderWithOneLauncher) {
  adaptive_scheduler scheduler({.window = 16, .max_group = 32});
  std::vector<std::size_t> inputs(5000);
  for (std::size_t i = 0; i < inputs.size(); ++i) inputs[i] = i;
  const std::vector<std::int64_t> results =
      braid::run(scheduler, inputs, [](std::size_t index) { return counted_coro<interleaved>(index); });
  ASSERT_EQ(results.size(), inputs.size());
  for (std::size_t i = 0; i < results.size(); ++i) ASSERT_EQ(results[i], expected(i));
  EXPECT_GE(scheduler.current_setting(false), 1u);  // never "plain" without a plain launcher
  const std::vector<std::int64_t> chained_results =
      braid::run(scheduler, inputs, [](std::size_t index) { return counted_coro<chained>(index); });
  EXPECT_EQ(chained_results, results);
}

// An operation that throws at index 0, 5 or 999 of 1000: the exception reaches the caller.
template <class Interleaved>
void expect_exceptions_reach_the_caller(adaptive_scheduler& scheduler) {
  for (std::size_t failing : {0u, 5u, 999u}) {
    EXPECT_THROW(scheduler.run(
                     1000, [&](std::size_t index) { return counted_coro<sequential>(index, {failing}); },
                     [&](std::size_t index) { return counted_coro<Interleaved>(index, {failing}); },
                     [](std::size_t, std::int64_t) {}),
                 std::runtime_error);
  }
}

TEST(AdaptiveScheduler, ExceptionsReachTheCaller) {
  adaptive_scheduler scheduler({.window = 8, .max_group = 16});
  expect_exceptions_reach_the_caller<interleaved>(scheduler);
  expect_exceptions_reach_the_caller<chained>(scheduler);
  // Still usable afterwards.
  check_every_index_once(scheduler, 300);
  check_every_index_once<chained>(scheduler, 300);
}

TEST(AdaptiveScheduler, BadSettingsAreRefused) {
  EXPECT_THROW(adaptive_scheduler({.window = 0, .max_group = 8}), std::invalid_argument);
  EXPECT_THROW(adaptive_scheduler({.window = 8, .max_group = 0}), std::invalid_argument);
  EXPECT_THROW(adaptive_controller({.hysteresis = 1.5}), std::invalid_argument);
  EXPECT_THROW(adaptive_controller({.first_probe_interval = 0}), std::invalid_argument);
  EXPECT_THROW(adaptive_controller({.change_threshold = 0}), std::invalid_argument);
  EXPECT_THROW(adaptive_controller({.probe_budget = 0}), std::invalid_argument);
  EXPECT_THROW(adaptive_controller({.probe_budget = 1.5}), std::invalid_argument);
}

// Feeds the controller windows whose cost follows `cost(setting)`; returns where it settles.
std::size_t settle(adaptive_controller& controller, const std::function<double(std::size_t)>& cost, int windows) {
  for (int window = 0; window < windows; ++window) {
    const std::size_t setting = controller.next_setting();
    controller.record(setting, static_cast<std::uint64_t>(cost(setting) * 1000), 1000);
  }
  return controller.current_setting();
}

// A DRAM-like cost: falls with the group until the memory system is saturated at `best`,
// then rises slowly (more state, more cache pressure); the plain loop is slowest.
double dram_cost(std::size_t setting, std::size_t best) {
  if (setting == adaptive_controller::plain) return 4000;
  const double group = static_cast<double>(setting);
  return group <= static_cast<double>(best) ? 3000.0 / group : 3000.0 / static_cast<double>(best) * (1 + 0.02 * (group - static_cast<double>(best)));
}

// A cache-resident cost: interleaving only adds work, more with larger groups.
double cache_cost(std::size_t setting) { return setting == adaptive_controller::plain ? 10.0 : 14.0 + 0.1 * static_cast<double>(setting); }

TEST(AdaptiveController, ClimbsToTheCheapestGroup) {
  for (std::size_t best : {2u, 4u, 16u, 32u, 64u}) {
    adaptive_controller controller;
    EXPECT_EQ(settle(controller, [best](std::size_t s) { return dram_cost(s, best); }, 200), best) << "best " << best;
  }
}

TEST(AdaptiveController, FallsBackToThePlainLoopWhereInterleavingCannotWin) {
  adaptive_controller controller;
  EXPECT_EQ(settle(controller, cache_cost, 200), adaptive_controller::plain);
  // Without the plain loop the cheapest rungs (1, 2, 3) differ by less than the hysteresis:
  // any of them is right.
  adaptive_controller without_plain({.plain_allowed = false});
  EXPECT_LE(cache_cost(settle(without_plain, cache_cost, 200)), cache_cost(1) * 1.03);
}

// A binary search in DRAM: the plain loop beats a group of 2 (the plain loop overlaps more than
// two interleaved lookups do), larger groups beat both. Climbing from the plain loop by
// neighbours alone would stay there.
double valley_cost(std::size_t setting) {
  if (setting == adaptive_controller::plain) return 2000;
  if (setting == 2) return 2600;
  return 6400.0 / static_cast<double>(std::min<std::size_t>(setting, 16));
}

TEST(AdaptiveController, JumpsOutOfAValleyAroundThePlainLoop) {
  adaptive_controller controller;
  ASSERT_EQ(settle(controller, cache_cost, 2000), adaptive_controller::plain);
  const std::size_t settled = settle(controller, valley_cost, 400);
  EXPECT_LE(valley_cost(settled), valley_cost(16) * 1.03) << "settled on " << settled;
}

TEST(AdaptiveController, ProbesRarelyOnceSettled) {
  adaptive_controller controller;
  settle(controller, [](std::size_t s) { return dram_cost(s, 16); }, 2000);
  EXPECT_EQ(controller.probe_interval(), 64u);
  // Of the next 640 windows, at most about one in 32 is a probe's (two windows per probe).
  int probes = 0;
  for (int window = 0; window < 640; ++window) {
    const std::size_t setting = controller.next_setting();
    if (setting != 16) ++probes;
    controller.record(setting, static_cast<std::uint64_t>(dram_cost(setting, 16) * 1000), 1000);
  }
  EXPECT_LE(probes, 24);
  EXPECT_EQ(controller.current_setting(), 16u);
}

// Feeds `windows` windows costing cost(setting) * noise(window); returns the total cost.
double run_total(adaptive_controller* controller, std::size_t fixed, const std::function<double(std::size_t)>& cost,
                 const std::function<double(int)>& noise, int windows) {
  double total = 0;
  for (int window = 0; window < windows; ++window) {
    const std::size_t setting = controller ? controller->next_setting() : fixed;
    const double window_cost = cost(setting) * noise(window);
    total += window_cost;
    if (controller) controller->record(setting, static_cast<std::uint64_t>(window_cost * 1000), 1000);
  }
  return total;
}

// Noise as a shared machine makes it: it only slows windows down. A tenth of the windows cost
// a third more, one in a hundred three times as much, and every 200 windows a busy neighbour
// slows 20 in a row by 40 %.
double shared_machine_noise(int window) {
  std::uint64_t state = static_cast<std::uint64_t>(window) * 0x9E3779B97F4A7C15ull;
  state = (state ^ (state >> 31)) * 0xBF58476D1CE4E5B9ull;
  const double uniform = static_cast<double>(state >> 11) * 0x1.0p-53;
  double noise = 1 + 0.05 * uniform;
  if (uniform < 0.10) noise = 1.33;
  if (uniform < 0.01) noise = 3;
  if (window % 200 < 20) noise *= 1.4;
  return noise;
}

TEST(AdaptiveController, NoisyWindowsCostLittleAgainstTheBestFixedSetting) {
  // Binary search in DRAM on a flat top: groups 24 and 32 within 3 %, 48 within 10 %, 16 a
  // third dearer; the plain loop three times the best.
  const auto cost = [](std::size_t setting) {
    if (setting == adaptive_controller::plain) return 1800.0;
    const double group = static_cast<double>(setting);
    return group <= 24 ? 600.0 * 24 / (group + 0.2 * (24 - group)) : 600.0 * (1 + 0.004 * (group - 24));
  };
  constexpr int windows = 20000;
  double best_fixed = run_total(nullptr, 24, cost, shared_machine_noise, windows);
  for (std::size_t group : {12u, 16u, 32u, 48u}) best_fixed = std::min(best_fixed, run_total(nullptr, group, cost, shared_machine_noise, windows));
  adaptive_controller controller;
  const double adaptive = run_total(&controller, 0, cost, shared_machine_noise, windows);
  EXPECT_LE(adaptive, best_fixed * 1.03) << "adaptive / best fixed " << adaptive / best_fixed;
}

TEST(AdaptiveController, ALosingRungIsProbedWithinTheBudget) {
  adaptive_controller controller;  // budget 1 %
  settle(controller, [](std::size_t s) { return s == adaptive_controller::plain ? 3000.0 : dram_cost(s, 16); }, 2000);
  ASSERT_EQ(controller.current_setting(), 16u);
  // The plain loop costs 16 times group 16 (3000 against 187.5): it waits for the longest
  // deferral (1024 windows) between probes of two windows each.
  int plain_windows = 0;
  for (int window = 0; window < 4096; ++window) {
    const std::size_t setting = controller.next_setting();
    if (setting == adaptive_controller::plain) ++plain_windows;
    controller.record(setting, static_cast<std::uint64_t>((setting == adaptive_controller::plain ? 3000.0 : dram_cost(setting, 16)) * 1000), 1000);
  }
  EXPECT_GE(plain_windows, 2);
  EXPECT_LE(plain_windows, 10);
}

TEST(AdaptiveController, FollowsAWorkingSetThatMovesFromCacheToDramAndBack) {
  adaptive_controller controller;
  ASSERT_EQ(settle(controller, cache_cost, 2000), adaptive_controller::plain);
  // The plain loop's cost jumps: the climb restarts at once.
  EXPECT_EQ(settle(controller, [](std::size_t s) { return dram_cost(s, 24); }, 60), 24u);
  // Back in cache, group 24's cost falls by a factor of eight: the climb restarts again.
  EXPECT_EQ(settle(controller, cache_cost, 60), adaptive_controller::plain);
}

TEST(AdaptiveController, AWorkingSetSeenBeforeGetsItsBestSettingBack) {
  adaptive_controller controller;
  const auto dram = [](std::size_t s) { return dram_cost(s, 24); };
  // Two round trips teach it both working sets.
  for (int trip = 0; trip < 2; ++trip) {
    ASSERT_EQ(settle(controller, cache_cost, 300), adaptive_controller::plain);
    ASSERT_EQ(settle(controller, dram, 300), 24u);
  }
  // From then on a change costs the three windows that show it: the fourth window of each
  // phase runs the phase's best setting.
  for (int phase = 0; phase < 8; ++phase) {
    const bool in_cache = phase % 2 == 0;
    const auto cost = [&](std::size_t s) { return in_cache ? cache_cost(s) : dram(s); };
    settle(controller, cost, 3);
    EXPECT_EQ(controller.current_setting(), in_cache ? adaptive_controller::plain : 24u) << "phase " << phase;
    settle(controller, cost, 40);
  }
}

TEST(AdaptiveController, FindsAChangeTheCurrentSettingDoesNotFeelByItsDeferredProbes) {
  adaptive_controller controller({.max_probe_deferral = 300});
  const auto dram = [](std::size_t s) { return s == adaptive_controller::plain ? 800.0 : dram_cost(s, 16); };
  ASSERT_EQ(settle(controller, dram, 2000), 16u);
  // Group 16 costs what it cost before; the plain loop became the cheapest. Its last probe
  // lost by a factor of four: it is tried again within the 300-window cap and three probe
  // intervals (the jump is every third kind of probe).
  const auto changed = [&](std::size_t s) { return s == adaptive_controller::plain ? 100.0 : dram(s); };
  EXPECT_EQ(settle(controller, changed, 500), adaptive_controller::plain);
}

TEST(AdaptiveController, IgnoresEmptyWindowsAndOddMaximums) {
  adaptive_controller controller({.max_group = 5});
  controller.record(controller.next_setting(), 100, 0);  // nothing finished: no information
  EXPECT_EQ(settle(controller, [](std::size_t s) { return dram_cost(s, 64); }, 200), 5u);
}

}  // namespace
}  // namespace braid
