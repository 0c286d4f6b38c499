#include "braid/core/memory_probe.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>

#include "braid/core/cycles.hpp"

namespace braid {

namespace {

// One cache line of the chase: the index of the next line, padded to the full line.
struct alignas(64) chase_line {
  std::uint64_t next;
  std::uint64_t padding[7];
};
static_assert(sizeof(chase_line) == 64);

// Links every line into one random cycle (Sattolo's algorithm), so a chase from any line
// visits all of them in an order the hardware prefetchers cannot predict.
void link_random_cycle(chase_line* lines, std::size_t count) {
  std::vector<std::uint32_t> order(count);
  std::iota(order.begin(), order.end(), 0u);
  std::uint64_t state = 0x2545F4914F6CDD1Dull;
  auto next_random = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  for (std::size_t i = count - 1; i > 0; --i) {
    const std::size_t j = next_random() % i;  // j < i: a single cycle
    std::swap(order[i], order[j]);
  }
  for (std::size_t i = 0; i < count; ++i) lines[order[i]].next = order[(i + 1) % count];
}

// Advances `chains` chases `steps` times each; returns elapsed ns. The chase positions live
// in a small array (L1-resident); the dereferences are the misses.
double run_chases(const chase_line* lines, std::size_t count, unsigned chains, std::size_t steps,
                  std::uint64_t& sink) {
  std::vector<std::uint64_t> position(chains);
  for (unsigned c = 0; c < chains; ++c) position[c] = (count / chains) * c;
  const std::int64_t start = now_ns();
  for (std::size_t step = 0; step < steps; ++step) {
    for (unsigned c = 0; c < chains; ++c) position[c] = lines[position[c]].next;
  }
  const std::int64_t elapsed = now_ns() - start;
  for (std::uint64_t p : position) sink += p;
  return static_cast<double>(elapsed);
}

}  // namespace

memory_profile probe_memory(const memory_probe_options& options) {
  if (options.buffer_bytes < (std::size_t{1} << 20)) throw std::invalid_argument("probe_memory: buffer below 1 MiB");
  if (options.chains.empty()) throw std::invalid_argument("probe_memory: no chain counts");
  const std::size_t count = options.buffer_bytes / sizeof(chase_line);
  huge_array<chase_line> lines(count, options.pages);
  link_random_cycle(lines.data(), count);

  memory_profile profile;
  profile.buffer_bytes = count * sizeof(chase_line);
  profile.pages = lines.buffer().describe_pages();
  std::uint64_t sink = 0;
  run_chases(lines.data(), count, 1, std::min<std::size_t>(count, 1 << 16), sink);  // warm the TLB walk caches
  for (unsigned chains : options.chains) {
    if (chains == 0) throw std::invalid_argument("probe_memory: zero chains");
    const std::size_t steps = std::max<std::size_t>(options.loads_per_measurement / chains, 1024);
    const double ns = run_chases(lines.data(), count, chains, steps, sink);
    const double loads = static_cast<double>(steps) * chains;
    profile.rates.push_back({chains, loads / ns, ns / static_cast<double>(steps)});
  }
  std::sort(profile.rates.begin(), profile.rates.end(),
            [](const chase_rate& a, const chase_rate& b) { return a.chains < b.chains; });
  profile.best = *std::max_element(profile.rates.begin(), profile.rates.end(),
                                   [](const chase_rate& a, const chase_rate& b) { return a.lines_per_ns < b.lines_per_ns; });
  const auto single = std::find_if(profile.rates.begin(), profile.rates.end(),
                                   [](const chase_rate& r) { return r.chains == 1; });
  profile.load_latency_ns = single != profile.rates.end() ? single->ns_per_load : 1.0 / profile.rates.front().lines_per_ns;
  asm volatile("" : : "r"(sink));  // the chases have an observable result
  return profile;
}

cache_measurement measure_last_level_cache(std::size_t largest_bytes, page_size pages) {
  constexpr std::size_t smallest = std::size_t{1} << 20;
  if (largest_bytes < 4 * smallest) throw std::invalid_argument("measure_last_level_cache: largest set below 4 MiB");
  huge_array<chase_line> lines(largest_bytes / sizeof(chase_line), pages);
  cache_measurement measured;
  std::uint64_t sink = 0;
  for (std::size_t bytes = smallest; bytes <= largest_bytes; bytes *= 2) {
    const std::size_t count = bytes / sizeof(chase_line);
    link_random_cycle(lines.data(), count);
    // Warm up: a set that fits a cache is in it after one lap; a larger one never is.
    run_chases(lines.data(), count, 1, std::min<std::size_t>(count, std::size_t{1} << 16), sink);
    const std::size_t steps = std::size_t{1} << 17;
    measured.points.push_back({bytes, run_chases(lines.data(), count, 1, steps, sink) / static_cast<double>(steps)});
  }
  asm volatile("" : : "r"(sink));
  measured.last_level_bytes = cache_boundary(measured.points);
  return measured;
}

std::size_t cache_boundary(std::span<const working_set_latency> points) {
  if (points.size() < 2) return 0;
  const double low = points.front().ns_per_load;
  const double high = points.back().ns_per_load;
  if (!(high >= 2 * low)) return 0;
  const double threshold = low + (high - low) / 4;
  std::size_t boundary = 0;
  for (const working_set_latency& point : points) {
    if (point.ns_per_load > threshold) break;
    boundary = point.bytes;
  }
  return boundary;
}

}  // namespace braid
