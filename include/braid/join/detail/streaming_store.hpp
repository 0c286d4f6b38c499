// A software write-combine buffer of tuples (one cache line for one partition) and its flush to
// the output with the non-temporal line store of core/detail/streaming_store.hpp.
#pragma once

#include <cstddef>

#include "braid/core/detail/streaming_store.hpp"
#include "braid/join/relation.hpp"

namespace braid::join::detail {

inline constexpr std::size_t line_bytes = braid::detail::streamed_line_bytes;
inline constexpr std::size_t tuples_per_line = line_bytes / sizeof(tuple);

// A write-combine buffer: one cache line of tuples for one partition.
struct alignas(line_bytes) line_buffer {
  tuple slots[tuples_per_line];
};
static_assert(sizeof(line_buffer) == line_bytes);

// Copies a full line; `target` is 64-byte aligned.
inline void stream_line(tuple* target, const line_buffer& source) noexcept {
  braid::detail::stream_line(target, source.slots);
}

using braid::detail::store_fence;

}  // namespace braid::join::detail
