#include "braid/core/cycles.hpp"

#include <thread>

namespace braid {

double tsc_per_ns() {
  static const double ratio = [] {
    const std::int64_t start_ns = now_ns();
    const std::uint64_t start_tsc = read_cycle_counter();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const std::int64_t elapsed_ns = now_ns() - start_ns;
    const std::uint64_t elapsed_tsc = read_cycle_counter() - start_tsc;
    return static_cast<double>(elapsed_tsc) / static_cast<double>(elapsed_ns);
  }();
  return ratio;
}

}  // namespace braid
