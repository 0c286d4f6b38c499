// The key set of masstree-strings (Masstree's own `mttest rw1` shape): random integers written
// as decimal strings, optionally behind a common prefix. Shared by the experiment and its test.
//
// Settings (--set NAME=VALUE): bits=32|64 (the integers' width: 32 gives keys of up to 10
// digits, as rw1; 64 up to 20), prefix=TEXT (prepended to every key, e.g. "user"). Numbers
// are drawn with replacement, so a key may repeat (as in rw1); every put of a key stores
// value_of(number), a function of the key alone, so repeats leave the same value.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "experiment.hpp"
#include "options.hpp"
#include "workloads.hpp"

namespace braid::bench::masstree_strings {

struct key_shape {
  unsigned bits = 32;  // 32 or 64
  std::string prefix;
};

// The shape the run's settings ask for (usage_error for a bad value).
inline key_shape key_shape_of(const run_context& context) {
  key_shape shape;
  if (const std::optional<std::string> bits = context.setting("bits")) {
    if (*bits != "32" && *bits != "64") throw usage_error("--set bits=" + *bits + ": must be 32 or 64");
    shape.bits = *bits == "32" ? 32 : 64;
  }
  if (const std::optional<std::string> prefix = context.setting("prefix")) {
    if (prefix->size() > 64) throw usage_error("--set prefix: at most 64 bytes");
    shape.prefix = *prefix;
  }
  return shape;
}

// `count` keys stored back to back; key i is the decimal text of numbers[i] after the prefix.
class key_set {
 public:
  key_set(std::size_t count, const key_shape& shape, std::uint64_t seed) {
    random_source random(seed);
    numbers_.resize(count);
    ends_.resize(count);
    bytes_.reserve(count * (shape.prefix.size() + (shape.bits == 32 ? 10 : 20)));
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint64_t drawn = random.next();
      numbers_[i] = shape.bits == 32 ? drawn >> 32 : drawn;
      bytes_ += shape.prefix;
      char digits[20];
      const auto written = std::to_chars(digits, digits + sizeof digits, numbers_[i]);
      bytes_.append(digits, written.ptr);
      ends_[i] = bytes_.size();
    }
  }

  // The keys in `order` (indexes into this set), stored back to back in that order: the gets
  // read their keys from such a copy, in sequence, as rw1 reads its shuffled array, so that
  // finding a key's bytes costs the get no cache miss of its own.
  [[nodiscard]] key_set in_order(const std::vector<std::uint32_t>& order) const {
    key_set ordered;
    ordered.numbers_.reserve(order.size());
    ordered.ends_.reserve(order.size());
    ordered.bytes_.reserve(bytes_.size());
    for (const std::uint32_t i : order) {
      ordered.bytes_ += (*this)[i];
      ordered.ends_.push_back(ordered.bytes_.size());
      ordered.numbers_.push_back(numbers_[i]);
    }
    return ordered;
  }

  [[nodiscard]] std::size_t size() const noexcept { return numbers_.size(); }
  [[nodiscard]] std::string_view operator[](std::size_t i) const noexcept {
    const std::size_t begin = i == 0 ? 0 : ends_[i - 1];
    return std::string_view(bytes_).substr(begin, ends_[i] - begin);
  }
  [[nodiscard]] std::uint64_t number(std::size_t i) const noexcept { return numbers_[i]; }
  // Mean key length in bytes.
  [[nodiscard]] double mean_length() const noexcept {
    return numbers_.empty() ? 0 : static_cast<double>(bytes_.size()) / static_cast<double>(numbers_.size());
  }

 private:
  key_set() = default;

  std::string bytes_;
  std::vector<std::size_t> ends_;
  std::vector<std::uint64_t> numbers_;
};

// A shuffled order of [0, count) (Fisher-Yates): the gets visit every key once.
inline std::vector<std::uint32_t> shuffled_order(std::size_t count, std::uint64_t seed) {
  std::vector<std::uint32_t> order(count);
  for (std::size_t i = 0; i < count; ++i) order[i] = static_cast<std::uint32_t>(i);
  random_source random(seed);
  for (std::size_t i = count; i > 1; --i) std::swap(order[i - 1], order[random.below(i)]);
  return order;
}

}  // namespace braid::bench::masstree_strings
