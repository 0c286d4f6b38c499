// `co_await fetch<M>(p)`: the one marker an operation places before a load that is likely to
// miss the cache. With M = sequential it is exactly `*p`; with an interleaved mode it issues
// a prefetch, suspends the operation (control returns to whoever resumed it: its scheduler),
// and on resumption returns `*p`, by then most likely in the L1.
//
// `fetch_lines<M>(p)` does the same for a node that spans several cache lines: every line of
// `*p` is prefetched before the single suspension.
//
// The awaiter is chosen through the mode type alone, never by overloading on it: a mode that
// satisfies `mode_with_own_load` (the task runtime's `on_runtime`) supplies its awaiter as
// `M::await_load(p, bytes)`; every other mode gets the ready load (sequential) or the
// prefetch-and-suspend load (interleaved) below. So which awaiter runs does not depend on
// which headers were included before the operation's source.
#pragma once

#include <coroutine>
#include <cstddef>

#include "braid/core/mode.hpp"
#include "braid/core/prefetch.hpp"

namespace braid {

namespace detail {

// Awaiter of the built-in modes, a load of `*address`. Sequential (`suspends` false): always
// ready, so the compiler removes the suspension and only the load remains. Interleaved: the
// prefetch is already issued when it is constructed; suspending returns control to the resumer
// of the operation (for a task chain, the resumer of its root).
template <class T, bool suspends>
struct load_awaiter {
  T* address;
  static constexpr bool await_ready() noexcept { return !suspends; }
  static constexpr void await_suspend(std::coroutine_handle<>) noexcept {}
  constexpr T& await_resume() const noexcept { return *address; }
};

}  // namespace detail

// A mode that brings its own awaiter: `M::await_load(p, bytes)` returns it for `bytes` bytes at
// `p` (1 for a single line).
template <class M>
concept mode_with_own_load = execution_mode<M> && requires(int* address, std::size_t bytes) {
  M::await_load(address, bytes);
};

// A suspending mode that brings its own suspension (chained_scheduler.hpp's chained_with):
// `M::load_awaiter<T>{p}` suspends and then loads `*p`, `M::yield_awaiter{}` only suspends;
// fetch<M> prefetches with `M::hint` before, as for the interleaved modes.
template <class M>
concept mode_with_own_suspension = execution_mode<M> && M::suspends && requires {
  typename M::yield_awaiter;
  typename M::template load_awaiter<int>;
};

namespace detail {

// The awaiter of a built-in or own-suspension mode for a load of `*address`.
template <execution_mode M, class T>
[[nodiscard]] constexpr auto load_awaiter_for(T* address) noexcept {
  if constexpr (mode_with_own_suspension<M>) return typename M::template load_awaiter<T>{address};
  else return detail::load_awaiter<T, M::suspends>{address};
}

}  // namespace detail

template <execution_mode M, class T>
[[nodiscard]] inline auto fetch(T* address) noexcept {
  if constexpr (mode_with_own_load<M>) {
    return M::await_load(address, 1);
  } else {
    if constexpr (M::suspends) prefetch<M::hint>(address);
    return detail::load_awaiter_for<M>(address);
  }
}

// Multi-line node: prefetches all sizeof(T) bytes of *address, then suspends once.
template <execution_mode M, class T>
[[nodiscard]] inline auto fetch_lines(T* address) noexcept {
  if constexpr (mode_with_own_load<M>) {
    return M::await_load(address, sizeof(T));
  } else {
    if constexpr (M::suspends) prefetch_lines<sizeof(T), M::hint, (alignof(T) >= cache_line_bytes)>(address);
    return detail::load_awaiter_for<M>(address);
  }
}

// Multi-line node whose size is known only at run time (variable-size nodes, pages).
template <execution_mode M, class T>
[[nodiscard]] inline auto fetch_lines(T* address, std::size_t bytes) noexcept {
  if constexpr (mode_with_own_load<M>) {
    return M::await_load(address, bytes);
  } else {
    if constexpr (M::suspends) prefetch_lines<M::hint>(address, bytes);
    return detail::load_awaiter_for<M>(address);
  }
}

// A bare suspension point with no load, for operations that want to yield between two
// independent stretches of work (and for measuring the switch machinery alone).
template <execution_mode M>
[[nodiscard]] inline auto yield_point() noexcept {
  if constexpr (mode_with_own_suspension<M>) return typename M::yield_awaiter{};
  else if constexpr (M::suspends) return std::suspend_always{};
  else return std::suspend_never{};
}

}  // namespace braid
