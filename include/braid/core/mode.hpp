// Execution modes: the compile-time switch between the plain algorithm and its interleaved
// form. An operation written once as `template <execution_mode M> coro<R> op(...)` is the
// ordinary algorithm when instantiated with `sequential` (no prefetch, no suspension: every
// `co_await fetch<M>(p)` is a plain load) and hides its misses when instantiated with
// `interleaved` (prefetch, suspend, load on resume).
#pragma once

#include <concepts>

#include "braid/core/prefetch.hpp"

namespace braid {

// The plain algorithm: loads happen where they are written, nothing is prefetched.
struct sequential {
  static constexpr bool suspends = false;
  static constexpr const char* name = "sequential";
};

// Interleaved execution: every marked load is prefetched with `Hint` and the operation
// suspends so its scheduler can run a peer while the line is in flight.
template <prefetch_hint Hint>
struct interleaved_with {
  static constexpr bool suspends = true;
  static constexpr prefetch_hint hint = Hint;
  static constexpr const char* name = "interleaved";
};

// The default interleaved mode prefetches into every cache level (T0). The papers used NTA
// for tight microbenchmarks and T0 for applications; `interleaved_with<prefetch_hint::nta>`
// selects the former.
using interleaved = interleaved_with<prefetch_hint::t0>;

template <class M>
concept execution_mode = requires {
  { M::suspends } -> std::convertible_to<bool>;
  { M::name } -> std::convertible_to<const char*>;
};

}  // namespace braid
