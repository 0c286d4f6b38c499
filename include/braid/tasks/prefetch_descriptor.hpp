// prefetch_descriptor: what of a task's data object the worker prefetches ahead of the task,
// packed into 64 bits (MxTasking dissertation §3.5):
//
//   bits 62-63  kind: size (a contiguous byte count from the object's start), mask (a set of
//               cache lines of the object, up to 60), callback (a function the worker calls
//               with the object, for scattered data)
//   bits 60-61  temporality: temporal (PREFETCHT0), non-temporal (PREFETCHNTA), write (PREFETCHW)
//   bits 0-59   payload: the byte count; the line mask; or a line estimate (bits 52-59, for
//               the prefetch-distance model) and the callback's address (bits 0-51)
//
// An empty descriptor (all zero) prefetches nothing.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "braid/core/prefetch.hpp"

namespace braid::tasks {

enum class prefetch_temporality : std::uint8_t { temporal = 1, non_temporal = 2, write = 3 };

class prefetch_descriptor {
 public:
  enum class kind : std::uint8_t { none = 0, size = 1, callback = 2, mask = 3 };
  using callback_function = void (*)(const void* object) noexcept;

  static constexpr std::size_t max_mask_lines = 60;

  constexpr prefetch_descriptor() noexcept = default;

  // The first `bytes` bytes of the object.
  [[nodiscard]] static constexpr prefetch_descriptor bytes(std::size_t bytes, prefetch_temporality temporality) {
    if (bytes >= (std::uint64_t{1} << payload_bits)) throw std::invalid_argument("prefetch_descriptor: size too large");
    return prefetch_descriptor(kind::size, temporality, bytes);
  }
  // The object's cache lines whose bits are set (bit i = bytes [64 i, 64 i + 64)).
  [[nodiscard]] static constexpr prefetch_descriptor lines(std::uint64_t line_mask, prefetch_temporality temporality) {
    if (line_mask >> max_mask_lines) throw std::invalid_argument("prefetch_descriptor: mask beyond 60 lines");
    return prefetch_descriptor(kind::mask, temporality, line_mask);
  }
  // A callback that prefetches what the task will touch; `estimated_lines` is what
  // line_count() reports for it.
  [[nodiscard]] static prefetch_descriptor callback(callback_function function, std::uint8_t estimated_lines) {
    const auto address = reinterpret_cast<std::uintptr_t>(function);
    if (address >> callback_address_bits) throw std::invalid_argument("prefetch_descriptor: callback address beyond 52 bits");
    return prefetch_descriptor(kind::callback, prefetch_temporality::temporal,
                               (std::uint64_t{estimated_lines} << callback_address_bits) | address);
  }

  [[nodiscard]] constexpr kind shape() const noexcept { return static_cast<kind>(bits_ >> 62); }
  [[nodiscard]] constexpr prefetch_temporality temporality() const noexcept {
    return static_cast<prefetch_temporality>((bits_ >> payload_bits) & 3);
  }
  [[nodiscard]] constexpr bool empty() const noexcept { return bits_ == 0; }
  [[nodiscard]] constexpr std::uint64_t payload() const noexcept { return bits_ & payload_mask; }

  // Cache lines this descriptor brings in (for an object aligned to a line).
  [[nodiscard]] constexpr unsigned line_count() const noexcept {
    switch (shape()) {
      case kind::none: return 0;
      case kind::size: return static_cast<unsigned>((payload() + cache_line_bytes - 1) / cache_line_bytes);
      case kind::mask: return static_cast<unsigned>(std::popcount(payload()));
      case kind::callback: return static_cast<unsigned>(payload() >> callback_address_bits);
    }
    return 0;
  }

  // Issues the prefetches for `object`.
  void issue(const void* object) const noexcept {
    switch (temporality()) {
      case prefetch_temporality::temporal: issue_with<prefetch_hint::t0>(object); break;
      case prefetch_temporality::non_temporal: issue_with<prefetch_hint::nta>(object); break;
      case prefetch_temporality::write: issue_with<prefetch_hint::write>(object); break;
    }
  }

  friend constexpr bool operator==(prefetch_descriptor, prefetch_descriptor) noexcept = default;

 private:
  static constexpr unsigned payload_bits = 60;
  static constexpr std::uint64_t payload_mask = (std::uint64_t{1} << payload_bits) - 1;
  static constexpr unsigned callback_address_bits = 52;

  constexpr prefetch_descriptor(kind shape, prefetch_temporality temporality, std::uint64_t payload) noexcept
      : bits_((std::uint64_t{static_cast<std::uint8_t>(shape)} << 62) |
              (std::uint64_t{static_cast<std::uint8_t>(temporality)} << payload_bits) | payload) {}

  template <prefetch_hint Hint>
  void issue_with(const void* object) const noexcept {
    const auto* base = static_cast<const std::byte*>(object);
    switch (shape()) {
      case kind::none: return;
      case kind::size: prefetch_lines<Hint>(object, static_cast<std::size_t>(payload())); return;
      case kind::mask:
        for (std::uint64_t mask = payload(); mask != 0; mask &= mask - 1) {
          prefetch<Hint>(base + static_cast<std::size_t>(std::countr_zero(mask)) * cache_line_bytes);
        }
        return;
      case kind::callback:
        reinterpret_cast<callback_function>(static_cast<std::uintptr_t>(payload() & ((std::uint64_t{1} << callback_address_bits) - 1)))(object);
        return;
    }
  }

  std::uint64_t bits_ = 0;
};
static_assert(sizeof(prefetch_descriptor) == 8);

}  // namespace braid::tasks
