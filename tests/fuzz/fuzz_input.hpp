// The fuzzer's bytes, read as a stream of small decisions. Reading past the end yields zeros,
// so every input decodes to some operation sequence. A mismatch with the reference container
// is reported with fuzz_check(), which aborts (libFuzzer then saves the input).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace braid::fuzzing {

class fuzz_input {
 public:
  fuzz_input(const std::uint8_t* data, std::size_t size) noexcept : data_(data), size_(size) {}

  [[nodiscard]] bool empty() const noexcept { return position_ >= size_; }
  std::uint8_t byte() noexcept { return position_ < size_ ? data_[position_++] : 0; }
  std::uint64_t u64() noexcept {
    std::uint64_t value = 0;
    for (int index = 0; index < 8; ++index) value = value << 8 | byte();
    return value;
  }
  // Uniform enough in [0, bound) for fuzzing; bound > 0.
  std::size_t below(std::size_t bound) noexcept { return (static_cast<std::size_t>(byte()) << 8 | byte()) % bound; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t position_ = 0;
};

inline void fuzz_check(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "fuzz check failed: %s\n", what);
    std::abort();
  }
}

}  // namespace braid::fuzzing
