// memory_probe: a small run produces a sane, ordered profile. (The figures themselves are a
// benchmark's business: `braid-bench roofline`.)
#include <gtest/gtest.h>

#include <cmath>

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

}  // namespace
}  // namespace braid
