#include "braid/tasks/prefetch_distance.hpp"

#include <algorithm>

namespace braid::tasks {

std::string prefetch_distance::describe() const {
  switch (kind_) {
    case mode::off: return "off";
    case mode::fixed: return "fixed:" + std::to_string(tasks_);
    case mode::automatic: return "automatic";
  }
  return "?";
}

memory_latency memory_latency::from(const memory_profile& profile) noexcept {
  memory_latency latency;
  latency.first_line_ns = profile.load_latency_ns;
  latency.next_line_ns = profile.best.lines_per_ns > 0 ? 1.0 / profile.best.lines_per_ns : profile.load_latency_ns;
  // A further line can never cost more than a whole dependent miss.
  latency.next_line_ns = std::min(latency.next_line_ns, latency.first_line_ns);
  return latency;
}

memory_latency memory_latency::measure() {
  memory_probe_options options;
  options.buffer_bytes = std::size_t{64} << 20;  // twice the last-level cache of the machine class
  options.chains = {1, 8, 16, 32};
  options.loads_per_measurement = std::size_t{1} << 18;
  return from(probe_memory(options));
}

}  // namespace braid::tasks
