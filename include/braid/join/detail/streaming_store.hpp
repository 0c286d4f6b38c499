// A software write-combine buffer of tuples (one cache line for one partition) and its flush to
// the output: core/detail/streaming_store.hpp's line buffer and non-temporal line store.
#pragma once

#include <cstddef>

#include "braid/core/detail/streaming_store.hpp"
#include "braid/join/relation.hpp"

namespace braid::join::detail {

inline constexpr std::size_t line_bytes = braid::detail::streamed_line_bytes;
inline constexpr std::size_t tuples_per_line = line_bytes / sizeof(tuple);

// A write-combine buffer: one cache line of tuples for one partition.
using line_buffer = braid::detail::line_of<tuple>;
static_assert(sizeof(line_buffer) == line_bytes && braid::detail::items_per_line<tuple> == tuples_per_line);

// Copies a full line; `target` is 64-byte aligned.
inline void stream_line(tuple* target, const line_buffer& source) noexcept {
  braid::detail::stream_line(target, source.slots);
}

using braid::detail::store_fence;

}  // namespace braid::join::detail
