// Key streams for experiments, all deterministic for a seed.
//
//  - uniform: every item equally likely;
//  - zipf (YCSB's scrambled Zipfian): item popularity follows Zipf(theta) over YCSB's fixed
//    space of 10^10 items, hashed with FNV-64 onto [0, items) so the hot items are scattered.
//    Same algorithm and constants as the YCSB reference generator (Gray et al.'s method,
//    ZETAN = 26.46902820178302 for theta = 0.99); only the underlying random source differs;
//  - sorted: a uniform draw, sorted ascending (the thesis's sorted-lookup variant).
#pragma once

#include <cstdint>
#include <vector>

#include "options.hpp"

namespace braid::bench {

// splitmix64: small, fast, statistically sound for workload generation.
class random_source {
 public:
  explicit random_source(std::uint64_t seed) noexcept : state_(seed) {}
  std::uint64_t next() noexcept {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1), 53 bits.
  double next_double() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, bound), unbiased (Lemire's method).
  std::uint64_t below(std::uint64_t bound) noexcept;

 private:
  std::uint64_t state_;
};

// YCSB's fnvhash64: FNV-1 over the 8 little-endian octets, made non-negative.
std::uint64_t ycsb_fnv_hash64(std::uint64_t value) noexcept;

// zeta(n, theta) = sum_{i=1..n} i^-theta: exact for the first million terms, then the
// Euler-Maclaurin tail (relative error below 1e-12 for n up to 10^10 and beyond).
double zeta(std::uint64_t n, double theta);

// YCSB's ZipfianGenerator: item 0 most popular, then 1, ...
class zipfian_generator {
 public:
  zipfian_generator(std::uint64_t items, double theta);
  zipfian_generator(std::uint64_t items, double theta, double precomputed_zetan);
  std::uint64_t next(random_source& random) noexcept;
  [[nodiscard]] double zetan() const noexcept { return zetan_; }

 private:
  std::uint64_t items_;
  double zetan_;
  double alpha_;
  double eta_;
  double half_pow_theta_;
};

// YCSB's ScrambledZipfianGenerator over [0, items).
class scrambled_zipfian_generator {
 public:
  static constexpr std::uint64_t item_space = 10'000'000'000ull;
  static constexpr double theta_with_known_zeta = 0.99;
  static constexpr double zeta_of_item_space = 26.46902820178302;

  explicit scrambled_zipfian_generator(std::uint64_t items, double theta = 0.99);
  std::uint64_t next(random_source& random) noexcept {
    return ycsb_fnv_hash64(generator_.next(random)) % items_;
  }

 private:
  std::uint64_t items_;
  zipfian_generator generator_;
};

// `count` item indices in [0, items) drawn from `distribution`.
std::vector<std::uint64_t> draw_indices(std::size_t count, std::uint64_t items, const key_distribution& distribution,
                                        std::uint64_t seed);

}  // namespace braid::bench
