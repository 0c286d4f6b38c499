// Scheduling lookups that each need a lookup_context (the interleaving thesis's
// `for_each(G, begin, end, fn(context_t&, elem&) -> root_task)`): every operation a
// scheduler has in flight owns a context; when the operation finishes, its frames are
// destroyed, its context is reset, and the next operation launched takes it. So a run of any
// length needs min(group, count) contexts (one for the sequential scheduler), made once per run.
//
//   std::vector<braid::value> tuple(columns.size());        // the thesis's Listing 3.7
//   braid::for_each(braid::interleaved_scheduler{8}, braid::context_arena{4096},
//                   column_ids.begin(), column_ids.end(),
//                   [&](braid::lookup_context& context, std::size_t& c) -> braid::task<void> {
//                     tuple[c] = co_await columns[c]->get_wrapped(context, row);
//                   });
//   std::vector<R> results = braid::run(braid::interleaved_scheduler{16}, braid::context_arena{4096},
//                                       keys, [&](braid::lookup_context& context, int key) {
//                                         return find<braid::interleaved>(context, t, key);
//                                       });
//
// Any scheduler of scheduler.hpp serves: sequential_scheduler (one context), interleaved
// and batched (a context per slot of the ring). The operation is whatever launch returns
// (a task that takes the context, so its chain's frames come from the arena; a coro; a
// fiber, which has no use for it); exceptions propagate as in scheduler.hpp, and every
// context is then reset and released.
//
// Complexity: on top of the scheduler's own, one reset (O(1)) per operation; at the start of
// a run, one arena per context from the frame pool (no heap once the pool is warm).
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <ranges>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "braid/core/detail/context_set.hpp"
#include "braid/core/lookup_context.hpp"
#include "braid/core/scheduler.hpp"

namespace braid {

// The arena size of every context of a run: a bound on one lookup's frame bytes (a lookup
// whose frames do not fit still runs, its extra frames from the frame pool).
struct context_arena {
  std::size_t bytes;
};

namespace detail {

inline std::size_t checked_arena(context_arena arena) {
  if (arena.bytes == 0) throw std::invalid_argument("context_arena: bytes must be at least 1");
  return arena.bytes;
}

// How many operations `sched` can have in flight over `count` inputs.
template <class S>
std::size_t operations_in_flight(const S& sched, std::size_t count) noexcept {
  if constexpr (requires { sched.group; }) return std::min(sched.group, count);
  else return std::min<std::size_t>(1, count);
}

}  // namespace detail

// Runs launch(index, context) for every index in [0, count) with `sched`, each operation with
// a context of its own while it runs, and hands every result to deliver as sched.run does.
template <scheduler S, class Launch, class Deliver>
void run_with_contexts(const S& sched, context_arena arena, std::size_t count, Launch&& launch, Deliver&& deliver) {
  using Op = std::remove_cvref_t<std::invoke_result_t<Launch&, std::size_t, lookup_context&>>;
  static_assert(operation<Op>, "launch(index, context) must return a braid operation (coro, task, fiber)");
  const std::size_t arena_bytes = detail::checked_arena(arena);
  if (count == 0) return;
  detail::context_set contexts(detail::operations_in_flight(sched, count), arena_bytes);
  sched.run(
      count,
      [&](std::size_t index) {
        lookup_context& context = contexts.acquire();
        try {
          return detail::context_operation<Op>(launch(index, context), context, contexts);
        } catch (...) {
          contexts.release(context);
          throw;
        }
      },
      deliver);
}

// The thesis's for_each: fn(context, element) for every element of [begin, end); the
// operations' results, if any, are dropped (the operation writes where it needs to).
template <scheduler S, std::random_access_iterator It, class Fn>
void for_each(const S& sched, context_arena arena, It begin, It end, Fn&& fn) {
  if (end < begin) throw std::invalid_argument("braid::for_each: end before begin");
  run_with_contexts(
      sched, arena, static_cast<std::size_t>(end - begin),
      [&](std::size_t index, lookup_context& context) { return fn(context, begin[static_cast<std::ptrdiff_t>(index)]); },
      [](std::size_t, auto&&...) {});
}

// Runs make_operation(context, inputs[i]) for every input and writes its result to out[i].
template <scheduler S, std::ranges::random_access_range Inputs, class MakeOperation, class R>
void run_into(const S& sched, context_arena arena, const Inputs& inputs, MakeOperation&& make_operation,
              std::span<R> out) {
  const auto count = static_cast<std::size_t>(std::ranges::size(inputs));
  if (out.size() < count) throw std::invalid_argument("run_into: output shorter than input");
  auto first = std::ranges::begin(inputs);
  run_with_contexts(
      sched, arena, count,
      [&](std::size_t index, lookup_context& context) { return make_operation(context, first[index]); },
      [&](std::size_t index, auto&& result) { out[index] = std::forward<decltype(result)>(result); });
}

// Runs make_operation(context, inputs[i]) for every input; returns the results in input order.
template <scheduler S, std::ranges::random_access_range Inputs, class MakeOperation>
auto run(const S& sched, context_arena arena, const Inputs& inputs, MakeOperation&& make_operation) {
  using Op = std::remove_cvref_t<
      std::invoke_result_t<MakeOperation&, lookup_context&, std::ranges::range_reference_t<const Inputs>>>;
  using R = typename Op::result_type;
  static_assert(std::is_default_constructible_v<R>, "braid::run collects into a vector");
  std::vector<R> results(static_cast<std::size_t>(std::ranges::size(inputs)));
  run_into(sched, arena, inputs, make_operation, std::span<R>(results));
  return results;
}

}  // namespace braid
