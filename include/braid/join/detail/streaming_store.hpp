// Writing one cache line of tuples from a software write-combine buffer to its place in the
// output (Balkesen et al.'s SWWC flush): with non-temporal stores where the target supports
// them (x86: MOVNTDQ, 4 x 16 bytes, or one 64-byte store with AVX-512), so the line goes to
// memory without being read for ownership first; a plain copy elsewhere. Non-temporal stores
// are weakly ordered: call store_fence() before another thread may read what was written.
#pragma once

#include <cstddef>
#include <cstring>

#include "braid/join/relation.hpp"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace braid::join::detail {

inline constexpr std::size_t line_bytes = 64;
inline constexpr std::size_t tuples_per_line = line_bytes / sizeof(tuple);

// A write-combine buffer: one cache line of tuples for one partition.
struct alignas(line_bytes) line_buffer {
  tuple slots[tuples_per_line];
};
static_assert(sizeof(line_buffer) == line_bytes);

// Copies a full line; `target` is 64-byte aligned.
inline void stream_line(tuple* target, const line_buffer& source) noexcept {
#if defined(__AVX512F__)
  _mm512_stream_si512(reinterpret_cast<__m512i*>(target), _mm512_load_si512(static_cast<const void*>(source.slots)));
#elif defined(__SSE2__)
  auto* to = reinterpret_cast<__m128i*>(target);
  const auto* from = reinterpret_cast<const __m128i*>(source.slots);
  for (std::size_t i = 0; i < tuples_per_line; ++i) _mm_stream_si128(to + i, _mm_load_si128(from + i));
#else
  std::memcpy(target, source.slots, line_bytes);
#endif
}

// Orders the non-temporal stores before every later store (a release of the data to others).
inline void store_fence() noexcept {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace braid::join::detail
