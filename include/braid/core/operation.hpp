// The contract between an operation (coro<T>, task<T>, fiber<T>) and a scheduler.
//
// An operation is a movable handle to a suspended computation:
//   done()         — has it returned (or thrown)?
//   resume()       — run it to its next suspension;
//   take_result()  — its return value, or rethrow its exception (once, after done());
//   starts_eagerly — whether creating it already ran it to its first suspension (coro, fiber)
//                    or it waits for a first resume() (task).
#pragma once

#include <concepts>
#include <cstddef>
#include <type_traits>

namespace braid {

template <class Op>
concept operation = std::movable<Op> && requires(Op& op) {
  typename Op::result_type;
  { Op::starts_eagerly } -> std::convertible_to<bool>;
  { op.done() } -> std::same_as<bool>;
  op.resume();
  op.take_result();
};

// The operation a launcher creates for an input index.
template <class Launch>
using launched_operation_t = std::remove_cvref_t<std::invoke_result_t<Launch&, std::size_t>>;

namespace detail {

// Runs a freshly created operation to its first suspension.
template <operation Op>
inline void start(Op& op) {
  if constexpr (!Op::starts_eagerly) op.resume();
}

// Hands a finished operation's result (or its absence, for void) to the caller's sink.
template <operation Op, class Deliver>
inline void deliver_result(Op& op, std::size_t index, Deliver& deliver) {
  if constexpr (std::is_void_v<typename Op::result_type>) {
    op.take_result();
    deliver(index);
  } else {
    deliver(index, op.take_result());
  }
}

}  // namespace detail
}  // namespace braid
