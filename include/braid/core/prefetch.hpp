// Software prefetch primitives.
//
// `prefetch<hint>(p)` asks the memory system to start bringing the cache line holding `p`
// towards the core and returns at once; it never faults, so it may be given any address,
// including null or one past the end of an array. `prefetch_lines<hint>(p, bytes)` covers
// every line of the range [p, p + bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace braid {

inline constexpr std::size_t cache_line_bytes = 64;

// Where the prefetched line should land, in the vocabulary of the x86 PREFETCH family.
enum class prefetch_hint : std::uint8_t {
  t0,     // all cache levels (temporal): the default for application code
  t1,     // L2 and below
  t2,     // L3 and below
  nta,    // non-temporal: closest level, minimal pollution of the others
  write,  // all levels, with the intent to write (PREFETCHW)
};

constexpr const char* to_string(prefetch_hint hint) noexcept {
  switch (hint) {
    case prefetch_hint::t0: return "t0";
    case prefetch_hint::t1: return "t1";
    case prefetch_hint::t2: return "t2";
    case prefetch_hint::nta: return "nta";
    case prefetch_hint::write: return "write";
  }
  return "?";
}

template <prefetch_hint Hint = prefetch_hint::t0>
inline void prefetch(const void* address) noexcept {
  // __builtin_prefetch(address, rw, locality): locality 3 = T0 ... 0 = NTA.
  if constexpr (Hint == prefetch_hint::t0) __builtin_prefetch(address, 0, 3);
  else if constexpr (Hint == prefetch_hint::t1) __builtin_prefetch(address, 0, 2);
  else if constexpr (Hint == prefetch_hint::t2) __builtin_prefetch(address, 0, 1);
  else if constexpr (Hint == prefetch_hint::nta) __builtin_prefetch(address, 0, 0);
  else __builtin_prefetch(address, 1, 3);
}

// Prefetches every cache line that overlaps [address, address + bytes).
template <prefetch_hint Hint = prefetch_hint::t0>
inline void prefetch_lines(const void* address, std::size_t bytes) noexcept {
  const auto first = reinterpret_cast<std::uintptr_t>(address) & ~(cache_line_bytes - 1);
  const auto end = reinterpret_cast<std::uintptr_t>(address) + bytes;
  for (auto line = first; line < end; line += cache_line_bytes) {
    prefetch<Hint>(reinterpret_cast<const void*>(line));
  }
}

// Compile-time-sized variant: the loop is fully unrolled for node types of a few lines. With
// `Aligned` (the object starts on a line: a type of alignment >= cache_line_bytes) it issues
// exactly ceil(Bytes / line) prefetches and tests nothing at run time.
template <std::size_t Bytes, prefetch_hint Hint = prefetch_hint::t0, bool Aligned = false>
inline void prefetch_lines(const void* address) noexcept {
  if constexpr (Aligned) {
    const auto* line = static_cast<const std::byte*>(address);
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (prefetch<Hint>(line + I * cache_line_bytes), ...);
    }(std::make_index_sequence<(Bytes + cache_line_bytes - 1) / cache_line_bytes>{});
  } else {
    const auto base = reinterpret_cast<std::uintptr_t>(address);
    const auto first = base & ~(cache_line_bytes - 1);
    // Lines touched: depends on the misalignment, at most Bytes / line + 1.
    constexpr std::size_t max_lines = (Bytes + cache_line_bytes - 1) / cache_line_bytes + 1;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((first + I * cache_line_bytes < base + Bytes
            ? prefetch<Hint>(reinterpret_cast<const void*>(first + I * cache_line_bytes))
            : void()),
       ...);
    }(std::make_index_sequence<max_lines>{});
  }
}

}  // namespace braid
