// Writing one 64-byte cache line from a software write-combine buffer to its place in memory
// (Balkesen et al.'s SWWC flush): with non-temporal stores where the target supports them
// (x86: one 64-byte store with AVX-512, else 4 x 16 bytes of MOVNTDQ), so the line goes to
// memory without being read for ownership first; a plain copy elsewhere. Non-temporal stores
// are weakly ordered: call store_fence() before another thread may read what was written (the
// writing thread itself always sees its own stores).
#pragma once

#include <cstddef>
#include <cstring>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace braid::detail {

inline constexpr std::size_t streamed_line_bytes = 64;

// Copies 64 bytes; both `target` and `source` are 64-byte aligned.
inline void stream_line(void* target, const void* source) noexcept {
#if defined(__AVX512F__)
  _mm512_stream_si512(static_cast<__m512i*>(target), _mm512_load_si512(source));
#elif defined(__SSE2__)
  auto* to = static_cast<__m128i*>(target);
  const auto* from = static_cast<const __m128i*>(source);
  for (std::size_t i = 0; i < streamed_line_bytes / 16; ++i) _mm_stream_si128(to + i, _mm_load_si128(from + i));
#else
  std::memcpy(target, source, streamed_line_bytes);
#endif
}

// Orders the non-temporal stores before every later store (a release of the data to others).
inline void store_fence() noexcept {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace braid::detail
