// Operations with a known shape for scheduler tests: operation i suspends `suspensions(i)`
// times (on fetches of its own cell, so the values it reads are checked too) and returns
// `expected(i)`. The same logic is written as a coro, a nested task chain and a fiber.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "braid/core/all.hpp"
#include "braid/core/input_stream.hpp"

namespace braid::testing {

inline std::size_t suspensions(std::size_t index) { return (index * 7 + 3) % 6; }  // 0..5
inline std::int64_t expected(std::size_t index) { return static_cast<std::int64_t>(index) * 3 + 1; }

// Cells the operations fetch: cell[i] == i.
inline const std::vector<std::int64_t>& cells() {
  static const std::vector<std::int64_t> values = [] {
    std::vector<std::int64_t> v(1024);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>(i);
    return v;
  }();
  return values;
}

// Counts its own destruction: a local of an operation that shows its frame or stack unwound.
struct destruction_counter {
  int* counter;
  ~destruction_counter() { ++*counter; }
};

struct failure_at {
  std::size_t index;  // operation that throws after its suspensions; SIZE_MAX for none
};

// The counted operation as a coroutine of type Coroutine (coro or task).
template <template <class...> class Coroutine, execution_mode M>
Coroutine<std::int64_t> counted_steps(std::size_t index, failure_at failure) {
  std::int64_t sum = 0;
  for (std::size_t step = 0; step < suspensions(index); ++step) {
    sum += co_await fetch<M>(&cells()[step]);
  }
  if (index == failure.index) throw std::runtime_error("operation failed");
  const std::int64_t steps = static_cast<std::int64_t>(suspensions(index));
  if (sum != steps * (steps - 1) / 2) throw std::logic_error("fetch returned a wrong value");
  co_return expected(index);
}

template <execution_mode M>
coro<std::int64_t> counted_coro(std::size_t index, failure_at failure = {SIZE_MAX}) {
  return counted_steps<coro, M>(index, failure);
}

template <execution_mode M>
task<std::int64_t> counted_leaf(std::size_t index, failure_at failure) {
  return counted_steps<task, M>(index, failure);
}

// A chain of `depth` tasks (depth 1 = the leaf alone) whose leaf does the suspensions.
template <execution_mode M>
task<std::int64_t> counted_chain(std::size_t index, std::size_t depth, failure_at failure = {SIZE_MAX}) {
  if (depth <= 1) co_return co_await counted_leaf<M>(index, failure);
  co_return co_await counted_chain<M>(index, depth - 1, failure);
}

inline std::int64_t counted_fiber_body(fiber_context& context, std::size_t index, failure_at failure) {
  std::int64_t sum = 0;
  for (std::size_t step = 0; step < suspensions(index); ++step) {
    sum += fiber_fetch(context, &cells()[step]);
  }
  if (index == failure.index) throw std::runtime_error("operation failed");
  const std::int64_t steps = static_cast<std::int64_t>(suspensions(index));
  if (sum != steps * (steps - 1) / 2) throw std::logic_error("fetch returned a wrong value");
  return expected(index);
}

inline fiber<std::int64_t> counted_fiber(std::size_t index, failure_at failure = {SIZE_MAX}) {
  return fiber<std::int64_t>(
      [index, failure](fiber_context& context) { return counted_fiber_body(context, index, failure); });
}

// The counted operation written over a stream of inputs (braid/core/input_stream.hpp): each
// input key k suspends suspensions(k) times and is answered expected(k). Counts the coroutines
// that started and those whose frames were destroyed, where given counters.
struct counted_stream_operation {
  int* started = nullptr;
  int* destroyed = nullptr;
  failure_at failure{SIZE_MAX};

  template <execution_mode M, class Inputs>
  stream_coro<Inputs> answers(Inputs inputs) const {
    int unused = 0;
    const destruction_counter gone{destroyed != nullptr ? destroyed : &unused};
    if (started != nullptr) ++*started;
    while (const auto input = inputs.next()) {
      std::int64_t sum = 0;
      for (std::size_t step = 0; step < suspensions(input.key); ++step) sum += co_await fetch<M>(&cells()[step]);
      if (input.key == failure.index) throw std::runtime_error("operation failed");
      const auto steps = static_cast<std::int64_t>(suspensions(input.key));
      if (sum != steps * (steps - 1) / 2) throw std::logic_error("fetch returned a wrong value");
      inputs.deliver(input, expected(input.key));
    }
    co_return inputs.finish();
  }
};

}  // namespace braid::testing
