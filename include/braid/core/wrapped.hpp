// wrapped<T>: manual coroutine elision (the interleaving thesis §3.2.4, Listing 3.8). A task
// whose whole body is `co_return transform(co_await g(...))` costs a frame and two transfers
// for nothing; written as an ordinary function returning wrapped<T>, it has no frame at all:
// the wrapped object holds g's task (or another awaitable) and the transform, and awaiting it
// awaits g directly and hands back transform(result).
//
//   braid::task<int> f(braid::lookup_context& context, std::string key) {   // a frame
//     co_return to_int(co_await g(context, std::move(key)));
//   }
//   braid::wrapped<int, braid::transformed<braid::task<long>, to_int_t>>      // no frame
//   f(braid::lookup_context& context, std::string key) {
//     return {braid::transformed{g(context, std::move(key)), to_int_t{}}};
//   }
//   int v = co_await f(context, "k");    // inside a task: the same result, one frame fewer
//
// The forms:
//   wrapped<T>                        a task<T>, no transform (the thesis's "return the nested
//                                     coroutine directly", still awaitable as a wrapped<T>);
//   wrapped<T, A>                     an awaitable A (a task<U>, a fetch, any awaiter) whose
//                                     result is converted to T;
//   wrapped<T, transformed<A, F>>     A's result passed through F (F() for a void result);
//   wrapped<T, Way1, Way2, ...>       a call that goes one of several ways (a branch over
//                                     nested types or transforms): it holds the one taken in a
//                                     std::variant, and awaiting it picks that way's awaiter by
//                                     the index — no type erasure, no heap, no virtual call.
//
// Lifetime: a wrapped function returns before its nested task starts (tasks start lazily), so
// its parameters must be *moved* into the nested call or the transform, never referred to —
// the thesis's rule; what a wrapped object holds lives until the co_await that consumes it
// finishes (the temporary lives in the awaiting frame). A wrapped is awaited once, as an
// rvalue. Awaiting one whose way is a task<U> is allowed inside a task<> only (as for task<U>).
//
// Complexity: awaiting adds no frame and no allocation; with several ways, one compare per
// way at each of ready / suspend / resume.
#pragma once

#include <coroutine>
#include <type_traits>
#include <utility>

#include "braid/core/detail/wrapped_awaiter.hpp"
#include "braid/core/task.hpp"

namespace braid {

// A way whose result goes through `transform` before it is the wrapped call's result.
template <class Awaitable, class Transform>
struct transformed {
  Awaitable nested;
  Transform transform;
};
template <class Awaitable, class Transform>
transformed(Awaitable, Transform) -> transformed<Awaitable, Transform>;

template <class T, class... Ways>
class [[nodiscard]] wrapped {
  static_assert(sizeof...(Ways) >= 1, "wrapped<T> alone is wrapped<T, task<T>>");

 public:
  using result_type = T;

  // The way the call took; Way is one of Ways.
  template <class Way>
    requires(std::is_same_v<std::remove_cvref_t<Way>, Ways> || ...)
  wrapped(Way&& way) : ways_(std::forward<Way>(way)) {}

  wrapped(wrapped&&) noexcept = default;
  wrapped& operator=(wrapped&&) noexcept = default;

  auto operator co_await() && { return ways_.template awaiter<T>(); }

 private:
  detail::way_storage<Ways...> ways_;
};

// No transform: a task<T> handed on as it is.
template <class T>
class [[nodiscard]] wrapped<T> : public wrapped<T, task<T>> {
 public:
  using wrapped<T, task<T>>::wrapped;
};

}  // namespace braid
