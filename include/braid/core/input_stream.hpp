// Input streams: the inputs of an operation written once as a loop over them.
//
// An operation that suspends once or a few times per input spends a large share of its time
// creating, finishing and destroying one coroutine frame per input. Written as a loop over a
// stream of inputs, the same source runs both ways:
//   - over one input (single_input): it is the operation on that input, a coro<R>;
//   - over a batch shared by a group of G coroutines (shared_inputs): each of the G is a
//     long-lived coro<void> that takes the next input when it finishes one, so a batch costs
//     G frames instead of one per input (the interleaving thesis's Coro-S, its Listing 3.4).
//
//   template <execution_mode M, class Inputs>
//   stream_coro<Inputs> lookups(Inputs inputs) const {
//     while (const auto input = inputs.next()) {
//       std::optional<int> result = ...;         // co_await fetch<M>(...) where it may miss
//       inputs.deliver(input, std::move(result));
//     }
//     co_return inputs.finish();                 // the result (single_input) or nothing
//   }
//   template <execution_mode M>
//   coro<std::optional<int>> lookup(int key) const { return lookups<M>(single_input<int, std::optional<int>>{key}); }
//
// run_over_batch(scheduler, keys, out, make) runs min(group, |keys|) such coroutines over one
// batch under chained_scheduler (each suspension hands over to the next coroutine of the ring)
// or interleaved_scheduler; out[i] receives the result for keys[i].
//
// Invariants: a batch hands out every index in [0, |keys|) exactly once, in input order, to
// whichever coroutine asks next; deliver writes out[input.index]. A batch and its coroutines
// live on one thread (the cursor is not synchronized). single_input::finish() is called once,
// after exactly one deliver. Cost per input: a compare, an increment and two loads for next(),
// a store for deliver.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "braid/core/coro.hpp"

namespace braid {

// One input of a stream: its key and its position in the batch. False once the stream is exhausted.
template <class Key>
struct stream_input {
  Key key{};
  std::size_t index = 0;
  bool valid = false;
  explicit operator bool() const noexcept { return valid; }
};

// The one input of the single-input form; the coroutine over it is a coro<Result>.
template <class Key, class Result>
class single_input {
  static_assert(std::is_default_constructible_v<Result>, "the result of a stream operation is default-constructible");

 public:
  using key_type = Key;
  using result_type = Result;
  using coroutine_type = coro<Result>;

  explicit single_input(Key key) noexcept(std::is_nothrow_move_constructible_v<Key>) : key_(std::move(key)) {}

  stream_input<Key> next() noexcept(std::is_nothrow_copy_constructible_v<Key>) {
    if (taken_) return {};
    taken_ = true;
    return {key_, 0, true};
  }
  void deliver(const stream_input<Key>&, Result result) noexcept(std::is_nothrow_move_assignable_v<Result>) {
    result_ = std::move(result);
  }
  Result finish() noexcept(std::is_nothrow_move_constructible_v<Result>) { return std::move(result_); }

 private:
  Key key_;
  bool taken_ = false;
  Result result_{};
};

// A batch of inputs and the outputs they go to, shared by the coroutines of one group.
template <class Key, class Result>
class input_batch {
 public:
  input_batch(std::span<const Key> keys, std::span<Result> out) : keys_(keys), out_(out) {
    if (out.size() < keys.size()) throw std::invalid_argument("input_batch: output shorter than input");
  }
  input_batch(const input_batch&) = delete;
  input_batch& operator=(const input_batch&) = delete;

  [[nodiscard]] std::size_t size() const noexcept { return keys_.size(); }

  stream_input<Key> next() noexcept(std::is_nothrow_copy_constructible_v<Key>) {
    if (next_ == keys_.size()) return {};
    const std::size_t index = next_++;
    return {keys_[index], index, true};
  }
  void deliver(const stream_input<Key>& input, Result result) noexcept(std::is_nothrow_move_assignable_v<Result>) {
    out_[input.index] = std::move(result);
  }

 private:
  std::span<const Key> keys_;
  std::span<Result> out_;
  std::size_t next_ = 0;
};

// A coroutine's handle on the batch it shares with its group; the coroutine is a coro<void>.
template <class Key, class Result>
class shared_inputs {
 public:
  using key_type = Key;
  using result_type = Result;
  using coroutine_type = coro<void>;

  explicit shared_inputs(input_batch<Key, Result>& batch) noexcept : batch_(&batch) {}

  stream_input<Key> next() noexcept(noexcept(std::declval<input_batch<Key, Result>&>().next())) {
    return batch_->next();
  }
  void deliver(const stream_input<Key>& input, Result result) noexcept(std::is_nothrow_move_assignable_v<Result>) {
    batch_->deliver(input, std::move(result));
  }
  void finish() const noexcept {}

 private:
  input_batch<Key, Result>* batch_;
};

// The coroutine type of an operation over `Inputs`.
template <class Inputs>
using stream_coro = typename Inputs::coroutine_type;

// Runs min(group, |keys|) coroutines make(shared_inputs) over one batch on `scheduler`
// (chained_scheduler or interleaved_scheduler); out[i] receives the result for keys[i].
template <class Scheduler, class Key, class Result, class Make>
void run_over_batch(const Scheduler& scheduler, std::span<const Key> keys, std::span<Result> out, Make&& make) {
  input_batch<Key, Result> batch(keys, out);
  const std::size_t coroutines = std::min(scheduler.group, keys.size());
  scheduler.run(
      coroutines, [&](std::size_t) { return make(shared_inputs<Key, Result>(batch)); }, [](std::size_t) {});
}

}  // namespace braid
