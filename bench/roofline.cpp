#include "roofline.hpp"

#include <memory>
#include <mutex>
#include <sstream>

#include "callgrind.hpp"
#include "experiment.hpp"

namespace braid::bench {

namespace {

struct cached_profile {
  std::mutex mutex;
  std::unique_ptr<memory_profile> profile;
};

cached_profile& cache() {
  static cached_profile instance;
  return instance;
}

}  // namespace

void adopt_memory_profile(const memory_profile& measured) {
  std::lock_guard lock(cache().mutex);
  cache().profile = std::make_unique<memory_profile>(measured);
}

const memory_profile& measured_memory_profile(run_context& context) {
  std::unique_ptr<memory_profile>& profile = cache().profile;
  std::lock_guard lock(cache().mutex);
  if (!profile) {
    context.progress("measuring memory latency and parallelism (roofline probe)");
    memory_probe_options options;
    if (counting_instructions()) {
      // Fractions mean nothing under callgrind; probe as little as possible.
      options.buffer_bytes = std::size_t{4} << 20;
      options.chains = {1, 8};
      options.loads_per_measurement = std::size_t{1} << 12;
    } else if (context.quick()) {
      options.buffer_bytes = std::size_t{64} << 20;
      options.chains = {1, 4, 8, 16, 32};
      options.loads_per_measurement = std::size_t{1} << 18;
    }
    profile = std::make_unique<memory_profile>(probe_memory(options));
  }
  std::ostringstream latency, peak;
  latency << profile->load_latency_ns << " ns per dependent load (" << profile->pages << ")";
  peak << profile->best.lines_per_ns << " lines/ns at " << profile->best.chains << " chains";
  context.note("memory_latency", latency.str());
  context.note("memory_peak_rate", peak.str());
  return *profile;
}

double roofline_fraction(double lines_per_op, double ns_per_op, const memory_profile& profile) {
  if (ns_per_op <= 0 || profile.best.lines_per_ns <= 0) return 0;
  return lines_per_op / ns_per_op / profile.best.lines_per_ns;
}

}  // namespace braid::bench
