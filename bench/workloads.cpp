#include "workloads.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "braid/core/radix_sort.hpp"

namespace braid::bench {

std::uint64_t random_source::below(std::uint64_t bound) noexcept {
  // Lemire, "Fast random integer generation in an interval" (2019).
  __uint128_t product = static_cast<__uint128_t>(next()) * bound;
  auto low = static_cast<std::uint64_t>(product);
  if (low < bound) {
    const std::uint64_t threshold = -bound % bound;
    while (low < threshold) {
      product = static_cast<__uint128_t>(next()) * bound;
      low = static_cast<std::uint64_t>(product);
    }
  }
  return static_cast<std::uint64_t>(product >> 64);
}

std::uint64_t ycsb_fnv_hash64(std::uint64_t value) noexcept {
  std::uint64_t hash = 0xCBF29CE484222325ull;
  for (int octet = 0; octet < 8; ++octet) {
    hash ^= value & 0xff;
    value >>= 8;
    hash *= 1099511628211ull;
  }
  // Java's Math.abs on the signed value (Long.MIN_VALUE, probability 2^-64, maps to 2^63).
  const auto signed_hash = static_cast<std::int64_t>(hash);
  return signed_hash < 0 ? static_cast<std::uint64_t>(0) - hash : hash;
}

double zeta(std::uint64_t n, double theta) {
  constexpr std::uint64_t exact_terms = 1'000'000;
  double sum = 0;
  const std::uint64_t exact = std::min(n, exact_terms);
  for (std::uint64_t i = exact; i >= 1; --i) sum += std::pow(static_cast<double>(i), -theta);  // small terms first
  if (n <= exact_terms) return sum;
  // Tail sum_{i=a}^{n} i^-theta with a = exact_terms + 1, by Euler-Maclaurin.
  const double a = static_cast<double>(exact_terms + 1);
  const double b = static_cast<double>(n);
  const double integral = (std::pow(b, 1 - theta) - std::pow(a, 1 - theta)) / (1 - theta);
  const double ends = (std::pow(a, -theta) + std::pow(b, -theta)) / 2;
  const double first_correction = theta / 12 * (std::pow(a, -theta - 1) - std::pow(b, -theta - 1));
  return sum + integral + ends + first_correction;
}

zipfian_generator::zipfian_generator(std::uint64_t items, double theta)
    : zipfian_generator(items, theta, zeta(items, theta)) {}

zipfian_generator::zipfian_generator(std::uint64_t items, double theta, double precomputed_zetan)
    : items_(items), zetan_(precomputed_zetan) {
  if (items == 0) throw std::invalid_argument("zipfian_generator: no items");
  if (!(theta > 0 && theta < 1)) throw std::invalid_argument("zipfian_generator: theta must be in (0, 1)");
  const double zeta2theta = zeta(2, theta);
  alpha_ = 1.0 / (1.0 - theta);
  eta_ = (1 - std::pow(2.0 / static_cast<double>(items), 1 - theta)) / (1 - zeta2theta / zetan_);
  half_pow_theta_ = std::pow(0.5, theta);
}

std::uint64_t zipfian_generator::next(random_source& random) noexcept {
  const double u = random.next_double();
  const double uz = u * zetan_;
  if (uz < 1.0) return 0;
  if (uz < 1.0 + half_pow_theta_) return 1;
  const auto value =
      static_cast<std::uint64_t>(static_cast<double>(items_) * std::pow(eta_ * u - eta_ + 1, alpha_));
  return std::min(value, items_ - 1);
}

scrambled_zipfian_generator::scrambled_zipfian_generator(std::uint64_t items, double theta)
    : items_(items),
      generator_(theta == theta_with_known_zeta ? zipfian_generator(item_space, theta, zeta_of_item_space)
                                                : zipfian_generator(item_space, theta)) {
  if (items == 0) throw std::invalid_argument("scrambled_zipfian_generator: no items");
}

std::vector<std::uint64_t> draw_indices(std::size_t count, std::uint64_t items, const key_distribution& distribution,
                                        std::uint64_t seed) {
  if (items == 0 && count > 0) throw std::invalid_argument("draw_indices: no items to draw from");
  std::vector<std::uint64_t> indices(count);
  random_source random(seed);
  switch (distribution.shape) {
    case key_distribution::kind::uniform:
    case key_distribution::kind::sorted:
      for (std::uint64_t& index : indices) index = random.below(items);
      if (distribution.shape == key_distribution::kind::sorted) radix_sort(std::span(indices));
      break;
    case key_distribution::kind::zipf: {
      scrambled_zipfian_generator generator(items, distribution.theta);
      for (std::uint64_t& index : indices) index = generator.next(random);
      break;
    }
  }
  return indices;
}

}  // namespace braid::bench
