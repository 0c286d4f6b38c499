// The awaiters behind braid::wrapped (braid/core/wrapped.hpp): how a way's nested awaitable is
// awaited, how its result becomes the wrapped call's, and the awaiter of a call that may go
// one of several ways.
#pragma once

#include <coroutine>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <variant>

namespace braid {

template <class Awaitable, class Transform>
struct transformed;

namespace detail {

// An awaitable that is its own awaiter (a fetch, a hand-written awaiter), reached through a
// pointer into the wrapped object that holds it.
template <class Awaiter>
struct awaiter_ref {
  Awaiter* awaiter;
  bool await_ready() { return awaiter->await_ready(); }
  template <class Promise>
  decltype(auto) await_suspend(std::coroutine_handle<Promise> caller) {
    return awaiter->await_suspend(caller);
  }
  decltype(auto) await_resume() { return awaiter->await_resume(); }
};

template <class Awaitable>
auto awaiter_of(Awaitable& awaitable) {
  if constexpr (requires { std::move(awaitable).operator co_await(); }) {
    return std::move(awaitable).operator co_await();
  } else {
    return awaiter_ref<Awaitable>{&awaitable};
  }
}

// A way is a nested awaitable, whose result is converted to T, or a transformed<> one.
template <class Way>
struct way_traits {
  static Way& nested(Way& way) noexcept { return way; }
  template <class T, class Awaiter>
  static T finish(Way&, Awaiter& awaiter) {
    if constexpr (std::is_void_v<T>) awaiter.await_resume();
    else return static_cast<T>(awaiter.await_resume());
  }
};

template <class Awaitable, class Transform>
struct way_traits<transformed<Awaitable, Transform>> {
  static Awaitable& nested(transformed<Awaitable, Transform>& way) noexcept { return way.nested; }
  template <class T, class Awaiter>
  static T finish(transformed<Awaitable, Transform>& way, Awaiter& awaiter) {
    if constexpr (std::is_void_v<decltype(awaiter.await_resume())>) {
      awaiter.await_resume();
      return static_cast<T>(way.transform());
    } else {
      return static_cast<T>(way.transform(awaiter.await_resume()));
    }
  }
};

template <class Way>
using way_awaiter_t = decltype(awaiter_of(way_traits<Way>::nested(std::declval<Way&>())));

// The awaiter of a call with one way: the nested awaiter's own suspension, no variant.
template <class T, class Way>
struct single_way_awaiter {
  Way* way;
  way_awaiter_t<Way> inner;

  explicit single_way_awaiter(Way& chosen) : way(&chosen), inner(awaiter_of(way_traits<Way>::nested(chosen))) {}
  bool await_ready() { return inner.await_ready(); }
  template <class Promise>
  decltype(auto) await_suspend(std::coroutine_handle<Promise> caller) {
    return inner.await_suspend(caller);
  }
  T await_resume() { return way_traits<Way>::template finish<T>(*way, inner); }
};

// What an awaiter's await_suspend returns, as the handle to transfer to (noop: suspend).
template <class Awaiter, class Promise>
std::coroutine_handle<> suspend_into(Awaiter& awaiter, std::coroutine_handle<Promise> caller) {
  using returned = decltype(awaiter.await_suspend(caller));
  if constexpr (std::is_void_v<returned>) {
    awaiter.await_suspend(caller);
    return std::noop_coroutine();
  } else if constexpr (std::is_same_v<returned, bool>) {
    if (awaiter.await_suspend(caller)) return std::noop_coroutine();
    return caller;
  } else {
    return awaiter.await_suspend(caller);
  }
}

// The awaiter of a call that went one of several ways: the chosen way's awaiter, found by
// the variant's index (one compare per way, no visitor table).
template <class T, class... Ways>
class chosen_way_awaiter {
 public:
  explicit chosen_way_awaiter(std::variant<Ways...>& ways) : ways_(&ways), inner_(start<0>(ways)) {}

  bool await_ready() {
    return on_chosen<0>([](auto&, auto& inner) { return inner.await_ready(); });
  }
  template <class Promise>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> caller) {
    return on_chosen<0>([caller](auto&, auto& inner) { return suspend_into(inner, caller); });
  }
  T await_resume() {
    return on_chosen<0>([]<class Way>(Way& way, auto& inner) { return way_traits<Way>::template finish<T>(way, inner); });
  }

 private:
  using inner_variant = std::variant<way_awaiter_t<Ways>...>;

  template <std::size_t I>
  static inner_variant start(std::variant<Ways...>& ways) {
    if constexpr (I + 1 < sizeof...(Ways)) {
      if (ways.index() != I) return start<I + 1>(ways);
    }
    auto& way = std::get<I>(ways);
    return inner_variant(std::in_place_index<I>, awaiter_of(way_traits<std::remove_reference_t<decltype(way)>>::nested(way)));
  }

  template <std::size_t I, class Action>
  decltype(auto) on_chosen(Action&& action) {
    if constexpr (I + 1 < sizeof...(Ways)) {
      if (ways_->index() != I) return on_chosen<I + 1>(std::forward<Action>(action));
    }
    return action(*std::get_if<I>(ways_), *std::get_if<I>(&inner_));
  }

  std::variant<Ways...>* ways_;
  inner_variant inner_;
};

// What a wrapped object holds: its one way as it is, or the way taken among several.
template <class... Ways>
struct way_storage {
  static_assert(sizeof...(Ways) >= 2);
  std::variant<Ways...> ways;

  template <class Way>
  explicit way_storage(Way&& way) : ways(std::in_place_type<std::remove_cvref_t<Way>>, std::forward<Way>(way)) {}
  template <class T>
  chosen_way_awaiter<T, Ways...> awaiter() {
    return chosen_way_awaiter<T, Ways...>(ways);
  }
};

template <class Way>
struct way_storage<Way> {
  Way way;

  template <class Given>
  explicit way_storage(Given&& given) : way(std::forward<Given>(given)) {}
  template <class T>
  single_way_awaiter<T, Way> awaiter() {
    return single_way_awaiter<T, Way>(way);
  }
};

}  // namespace detail
}  // namespace braid
