// memory_probe: a small run produces a sane, ordered profile. (The figures themselves are a
// benchmark's business: `braid-bench roofline`.)
#include <gtest/gtest.h>

#include <cmath>
#include <span>
#include <stdexcept>
#include <vector>

#include "braid/core/memory_probe.hpp"

namespace braid {
namespace {

TEST(MemoryProbe, ProducesAnOrderedProfile) {
  memory_probe_options options;
  options.buffer_bytes = 8 << 20;
  options.chains = {4, 1, 2};
  options.loads_per_measurement = 1 << 16;
  const memory_profile profile = probe_memory(options);
  EXPECT_EQ(profile.buffer_bytes, 8u << 20);
  ASSERT_EQ(profile.rates.size(), 3u);
  for (std::size_t i = 0; i < profile.rates.size(); ++i) {
    EXPECT_EQ(profile.rates[i].chains, std::vector<unsigned>({1, 2, 4})[i]);
    EXPECT_TRUE(std::isfinite(profile.rates[i].lines_per_ns) && profile.rates[i].lines_per_ns > 0);
    EXPECT_GE(profile.best.lines_per_ns, profile.rates[i].lines_per_ns);
  }
  EXPECT_DOUBLE_EQ(profile.load_latency_ns, profile.rates[0].ns_per_load);
  EXPECT_FALSE(profile.pages.empty());
}

TEST(MemoryProbe, RejectsMeaninglessOptions) {
  memory_probe_options options;
  options.buffer_bytes = 1024;
  EXPECT_THROW(probe_memory(options), std::invalid_argument);
  options.buffer_bytes = 4 << 20;
  options.chains = {};
  EXPECT_THROW(probe_memory(options), std::invalid_argument);
}

TEST(MemoryProbe, CacheBoundaryIsTheEndOfTheLowPlateau) {
  constexpr std::size_t mib = std::size_t{1} << 20;
  // 4 ns in cache up to 32 MiB, then a climb to 100 ns: the threshold is 28 ns.
  const std::vector<working_set_latency> epyc = {{1 * mib, 4},   {2 * mib, 5},   {4 * mib, 6},    {8 * mib, 8},
                                                 {16 * mib, 10}, {32 * mib, 14}, {64 * mib, 55}, {128 * mib, 80},
                                                 {256 * mib, 95}, {512 * mib, 100}};
  EXPECT_EQ(cache_boundary(epyc), 32 * mib);
  // Right at the threshold still counts as cached; just above does not.
  const std::vector<working_set_latency> edge = {{1 * mib, 10}, {2 * mib, 32.5}, {4 * mib, 32.6}, {8 * mib, 100}};
  EXPECT_EQ(cache_boundary(edge), 2 * mib);
  // No boundary in range: everything cached, or too few points.
  const std::vector<working_set_latency> flat = {{1 * mib, 10}, {2 * mib, 11}, {4 * mib, 19}};
  EXPECT_EQ(cache_boundary(flat), 0u);
  EXPECT_EQ(cache_boundary(std::span<const working_set_latency>{}), 0u);
  const std::vector<working_set_latency> one = {{1 * mib, 10}};
  EXPECT_EQ(cache_boundary(one), 0u);
  // Already slow at the smallest set: the first point is the plateau.
  const std::vector<working_set_latency> tiny = {{1 * mib, 10}, {2 * mib, 90}, {4 * mib, 100}};
  EXPECT_EQ(cache_boundary(tiny), 1 * mib);
}

TEST(MemoryProbe, MeasuresGrowingWorkingSets) {
  EXPECT_THROW(measure_last_level_cache(2 << 20, page_size::small_4k), std::invalid_argument);
  const cache_measurement measured = measure_last_level_cache(8 << 20, page_size::small_4k);
  ASSERT_EQ(measured.points.size(), 4u);  // 1, 2, 4, 8 MiB
  for (std::size_t i = 0; i < measured.points.size(); ++i) {
    EXPECT_EQ(measured.points[i].bytes, (std::size_t{1} << 20) << i);
    EXPECT_GT(measured.points[i].ns_per_load, 0.0);
  }
  EXPECT_EQ(measured.last_level_bytes, cache_boundary(measured.points));
}

}  // namespace
}  // namespace braid
