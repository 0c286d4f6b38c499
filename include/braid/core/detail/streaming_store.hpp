// Software write-combining (Balkesen et al.'s SWWC), shared by the radix sort and the joins'
// partitioning: stream_line writes one 64-byte cache line from a write-combine buffer to its
// place in memory with non-temporal stores where the target supports them (x86: one 64-byte
// store with AVX-512, else 4 x 16 bytes of MOVNTDQ), so the line goes to memory without being
// read for ownership first; a plain copy elsewhere. scatter_write_combined distributes items to
// buckets through one such line per bucket. Non-temporal stores are weakly ordered: call
// store_fence() before another thread may read what was written (the writing thread itself
// always sees its own stores).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

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

// Items of T per 64-byte line when T can be written a line at a time (trivially copyable, a
// divisor of the line in size); 0 when it cannot.
template <class T>
inline constexpr std::size_t items_per_line =
    std::is_trivially_copyable_v<T> && streamed_line_bytes % sizeof(T) == 0 ? streamed_line_bytes / sizeof(T) : 0;

template <class T>
struct alignas(streamed_line_bytes) line_of {
  T slots[std::max<std::size_t>(items_per_line<T>, 1)];  // used only when items_per_line<T> != 0
};

// A line of `to` holds whole items when its address is a multiple of the item's size.
template <class T>
bool lines_hold_whole_items(const T* to) noexcept {
  return reinterpret_cast<std::uintptr_t>(to) % sizeof(T) == 0;
}

// Copies every item of from[0, n) to to[cursor[b]++], b = bucket_of(item) < buckets, through
// one line buffer per bucket (software write-combining): a full line goes out with one
// non-temporal store, so the write streams cost no read for ownership and no store-buffer stall
// per line; the lines a bucket shares with its neighbours (its first and last) are written item
// by item. begin[b] is the first slot this writer owns in bucket b (cursor[b] starts there); `to`
// is a multiple of sizeof(T) (lines_hold_whole_items), not necessarily of the line.
template <class T, class BucketOf>
void scatter_write_combined(const T* from, T* to, std::size_t n, const std::size_t* begin, std::size_t* cursor,
                            line_of<T>* lines, std::size_t buckets, BucketOf&& bucket_of) {
  constexpr std::size_t per_line = items_per_line<T>;
  static_assert(per_line != 0, "scatter_write_combined: T must be trivially copyable and divide the line");
  const std::size_t phase = reinterpret_cast<std::uintptr_t>(to) % streamed_line_bytes / sizeof(T);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t bucket = bucket_of(from[i]);
    const std::size_t position = cursor[bucket]++;
    const std::size_t slot = (position + phase) % per_line;
    T* const line = lines[bucket].slots;
    line[slot] = from[i];
    if (slot != per_line - 1) continue;
    if (position >= begin[bucket] + slot) {
      stream_line(to + (position - slot), line);
    } else {
      const std::size_t first = begin[bucket];
      std::memcpy(to + first, line + (slot - (position - first)), (position - first + 1) * sizeof(T));
    }
  }
  for (std::size_t bucket = 0; bucket < buckets; ++bucket) {
    const std::size_t end = cursor[bucket];
    const std::size_t pending = std::min((end + phase) % per_line, end - begin[bucket]);
    if (pending != 0) {
      std::memcpy(to + (end - pending), lines[bucket].slots + ((end - pending + phase) % per_line), pending * sizeof(T));
    }
  }
  store_fence();
}

}  // namespace braid::detail
