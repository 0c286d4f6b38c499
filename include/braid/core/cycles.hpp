// Cycle and wall-clock timing for benchmarks and for the runtimes that adapt to measured
// latencies. rdtsc counts at the constant TSC rate (not the core clock under turbo), so
// cycle figures are "TSC cycles"; tsc_per_ns() converts them.
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace braid {

inline std::uint64_t read_cycle_counter() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

// TSC ticks per nanosecond, measured once (over ~20 ms) and cached.
double tsc_per_ns();

// Nanoseconds since an arbitrary origin, from the steady clock.
inline std::int64_t now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace braid
