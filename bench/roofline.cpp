#include "roofline.hpp"

#include <memory>
#include <mutex>
#include <sstream>

#include "experiment.hpp"

namespace braid::bench {

const memory_profile& measured_memory_profile(run_context& context) {
  static std::unique_ptr<memory_profile> profile;
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  if (!profile) {
    context.progress("measuring memory latency and parallelism (roofline probe)");
    memory_probe_options options;
    if (context.quick()) {
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
