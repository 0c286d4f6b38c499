#include "roofline.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "braid/core/huge_buffer.hpp"
#include "braid/core/thread_runner.hpp"
#include "callgrind.hpp"
#include "experiment.hpp"
#include "results.hpp"

namespace braid::bench {

namespace {

struct cached_profile {
  std::mutex mutex;
  std::unique_ptr<memory_profile> profile;
  std::unique_ptr<read_bandwidth> bandwidth;
};

cached_profile& cache() {
  static cached_profile instance;
  return instance;
}

// The sum of words [begin, end): four independent accumulators, so the adds do not serialize
// and the compiler can vectorize.
std::uint64_t sum_words(const std::uint64_t* begin, const std::uint64_t* end) noexcept {
  std::uint64_t a = 0, b = 0, c = 0, d = 0;
  for (; begin + 4 <= end; begin += 4) {
    a += begin[0];
    b += begin[1];
    c += begin[2];
    d += begin[3];
  }
  for (; begin < end; ++begin) a += *begin;
  return a + b + c + d;
}

}  // namespace

read_bandwidth measure_read_bandwidth(std::size_t buffer_bytes, unsigned threads, unsigned passes) {
  constexpr std::size_t mebibyte = std::size_t{1} << 20;
  if (buffer_bytes < mebibyte) throw std::invalid_argument("read bandwidth: the buffer must be at least 1MiB");
  if (threads == 0) throw std::invalid_argument("read bandwidth: at least one thread");
  if (passes == 0) throw std::invalid_argument("read bandwidth: at least one pass");
  const std::size_t words = buffer_bytes / sizeof(std::uint64_t) / threads * threads;
  huge_buffer buffer(words * sizeof(std::uint64_t), page_size::huge_2m);
  auto* data = reinterpret_cast<std::uint64_t*>(buffer.data());
  for (std::size_t i = 0; i < words; ++i) data[i] = i;
  // Sum of 0 .. words-1, mod 2^64.
  const std::uint64_t expected = words % 2 == 0 ? (words / 2) * (words - 1) : words * ((words - 1) / 2);
  thread_runner runner(threads);
  std::vector<std::uint64_t> sums(std::size_t{threads} * 8);  // one cache line a thread
  const std::size_t share = words / threads;
  double best_ns = 0;
  for (unsigned pass = 0; pass < passes; ++pass) {
    const auto began = std::chrono::steady_clock::now();
    runner.run([&](unsigned worker) { sums[std::size_t{worker} * 8] = sum_words(data + worker * share, data + (worker + 1) * share); });
    const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - began;
    std::uint64_t total = 0;
    for (unsigned worker = 0; worker < threads; ++worker) total += sums[std::size_t{worker} * 8];
    if (total != expected) throw std::runtime_error("read bandwidth: a pass's sum is not the buffer's");
    if (pass == 0 || took.count() < best_ns) best_ns = took.count();
  }
  return {.threads = threads,
          .buffer_bytes = words * sizeof(std::uint64_t),
          .pages = buffer.describe_pages(),
          .gigabytes_per_s = static_cast<double>(words * sizeof(std::uint64_t)) / best_ns};
}

void adopt_read_bandwidth(const read_bandwidth& bandwidth) {
  std::lock_guard lock(cache().mutex);
  cache().bandwidth = std::make_unique<read_bandwidth>(bandwidth);
}

const read_bandwidth& measured_read_bandwidth(run_context& context) {
  std::unique_ptr<read_bandwidth>& bandwidth = cache().bandwidth;
  std::lock_guard lock(cache().mutex);
  if (!bandwidth) {
    context.progress("measuring the sequential-read bandwidth, all threads");
    const std::size_t bytes = counting_instructions() ? std::size_t{4} << 20
                              : context.quick()       ? std::size_t{64} << 20
                                                      : dram_resident_bytes();
    bandwidth = std::make_unique<read_bandwidth>(
        measure_read_bandwidth(bytes, std::max<unsigned>(1, static_cast<unsigned>(available_cpus().size())), context.quick() ? 1 : 3));
  }
  std::ostringstream text;
  text << bandwidth->gigabytes_per_s << " GB/s sequential read, " << bandwidth->threads << " threads over "
       << bandwidth->buffer_bytes << " bytes";
  context.note("read_bandwidth", text.str());
  return *bandwidth;
}

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
