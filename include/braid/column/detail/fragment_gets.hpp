// The get forms every fragment of a column has, written once over what a fragment provides:
// read<M, Operation>(row) (the whole read in one coroutine frame of type Operation),
// code_at<M>(row, context...) and extract_task<M>(code, context...) (the two helpers of the
// nested form). Fragments derive from fragment_gets<Fragment, Value> (CRTP).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "braid/core/coro.hpp"
#include "braid/core/lookup_context.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/task.hpp"

namespace braid::detail {

template <class Fragment, class Value>
class fragment_gets {
 public:
  using value_type = Value;

  // get as one flat coro frame.
  template <execution_mode M>
  coro<Value> get_lookup(std::size_t row) const {
    return self().template read<M, coro<Value>>(row);
  }
  // get as one task frame (awaitable from a caller's task).
  template <execution_mode M>
  task<Value> get_task(std::size_t row) const {
    return self().template read<M, task<Value>>(row);
  }
  // get as the mechanical conversion of nested calls: code_at, then extract_task, each its own
  // task frame. Given a lookup_context (`get_nested<M>(row, context)`), every frame of the
  // chain comes from its arena.
  template <execution_mode M, class... Context>
    requires(std::is_same_v<Context, lookup_context> && ...)
  task<Value> get_nested(std::size_t row, Context&... context) const {
    const std::uint32_t code = co_await self().template code_at<M>(row, context...);
    co_return co_await self().template extract_task<M>(code, context...);
  }

 private:
  const Fragment& self() const noexcept { return static_cast<const Fragment&>(*this); }
};

}  // namespace braid::detail
