// wrapped<T>: awaiting a wrapped call gives what the un-elided task gives (transform applied,
// converted, void), with one frame fewer; a call may branch between nested types and
// transforms; parameters moved into the nested task survive the wrapped function's return
// (a reference would dangle: AddressSanitizer builds report it); exceptions pass through.
#include "braid/core/wrapped.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "braid/core/fetch.hpp"
#include "braid/core/lookup_context.hpp"
#include "braid/core/scheduler.hpp"
#include "braid/core/task.hpp"

namespace braid {
namespace {

template <class T>
T drive(task<T>& root) {
  root.resume();
  while (!root.done()) root.resume();
  return root.take_result();
}

std::int64_t live_pool_frames() { return frame_pool::statistics().live_frames; }

// The tasks whose frames are counted are not inlined: inlined, Clang may place a child's frame
// inside its caller's (coroutine elision) and the counts would be the compiler's.

// The nested call: suspends once, then returns the key's length times 10.
[[gnu::noinline]] task<long> measure(std::string key) {
  co_await yield_point<interleaved>();
  if (key == "throw") throw std::invalid_argument("bad key");
  co_return static_cast<long>(key.size()) * 10;
}

struct halve {
  int operator()(long v) const { return static_cast<int>(v / 2); }
};

// The un-elided form: a task that only awaits one child.
[[gnu::noinline]] task<int> halved_task(std::string key) { co_return halve{}(co_await measure(std::move(key))); }
// The elided form: a function, no frame.
wrapped<int, transformed<task<long>, halve>> halved(std::string key) {
  return transformed{measure(std::move(key)), halve{}};
}

TEST(Wrapped, AppliesTheTransformLikeTheTaskItReplaces) {
  for (const std::string key : {"", "a", "abcdef", "a longer key than any small-string buffer holds"}) {
    auto elided = [](std::string k) -> task<int> { co_return co_await halved(std::move(k)); }(key);
    auto plain = [](std::string k) -> task<int> { co_return co_await halved_task(std::move(k)); }(key);
    EXPECT_EQ(drive(elided), drive(plain)) << key;
  }
}

[[gnu::noinline]] task<int> halved_root(std::string key) { co_return co_await halved(std::move(key)); }
[[gnu::noinline]] task<int> halved_task_root(std::string key) { co_return co_await halved_task(std::move(key)); }

TEST(Wrapped, ChainsAreOneFrameShorterWhileSuspended) {
  const std::int64_t before = live_pool_frames();
  auto elided = halved_root("abcd");
  elided.resume();
  const std::int64_t elided_frames = live_pool_frames() - before;
  auto plain = halved_task_root("abcd");
  plain.resume();
  const std::int64_t plain_frames = live_pool_frames() - before - elided_frames;
  EXPECT_EQ(elided_frames, 2);
  EXPECT_EQ(plain_frames, 3);
  EXPECT_EQ(drive(elided), 20);
  EXPECT_EQ(drive(plain), 20);
}

// No transform: a task<T> handed on, or a task<U> whose result converts to T.
task<int> seven() {
  co_await yield_point<interleaved>();
  co_return 7;
}
wrapped<int> seven_wrapped() { return seven(); }
wrapped<long long, task<int>> seven_widened() { return seven(); }

task<void> touch(int* cell) {
  co_await yield_point<interleaved>();
  ++*cell;
}
wrapped<void, task<void>> touch_wrapped(int* cell) { return touch(cell); }

TEST(Wrapped, WithoutATransformHandsTheResultOn) {
  auto root = []() -> task<long long> {
    const int plain = co_await seven_wrapped();
    co_return plain + co_await seven_widened();
  }();
  EXPECT_EQ(drive(root), 14);
  int cell = 0;
  auto void_root = [](int* c) -> task<int> {
    co_await touch_wrapped(c);
    co_return *c;
  }(&cell);
  EXPECT_EQ(drive(void_root), 1);
}

// A branch over different nested types: a task<long> with a transform, a task<std::string>
// with another, or a bare fetch of a cell (an awaiter, not a task).
struct length_of {
  long operator()(const std::string& s) const { return static_cast<long>(s.size()); }
};
struct negate {
  long operator()(long v) const { return -v; }
};
task<std::string> spell(long n) {
  co_await yield_point<interleaved>();
  co_return std::string(static_cast<std::size_t>(n), 'x');
}
using fetch_of_long = decltype(fetch<interleaved>(static_cast<const long*>(nullptr)));
using branching =
    wrapped<long, transformed<task<long>, negate>, transformed<task<std::string>, length_of>, fetch_of_long>;

branching pick(int way, std::string key, const long* cell) {
  if (way == 0) return transformed{measure(std::move(key)), negate{}};
  if (way == 1) return transformed{spell(static_cast<long>(key.size()) + 1), length_of{}};
  return fetch<interleaved>(cell);
}

TEST(Wrapped, BranchesBetweenNestedTypes) {
  const long cell = 99;
  std::vector<long> got;
  for (int way = 0; way < 3; ++way) {
    auto root = [](int w, const long* c) -> task<long> { co_return co_await pick(w, "abc", c); }(way, &cell);
    got.push_back(drive(root));
  }
  EXPECT_EQ(got, (std::vector<long>{-30, 4, 99}));
}

// Parameters moved in: the key's storage belongs to the nested frame, not to the wrapped
// function's (already returned) parameter. With `const std::string&` in measure(), this reads
// freed memory.
TEST(Wrapped, MovedParametersOutliveTheWrappedFunction) {
  std::vector<task<int>> roots;
  for (int i = 0; i < 8; ++i) {
    roots.push_back([](int n) -> task<int> {
      co_return co_await halved(std::string(static_cast<std::size_t>(40 + n), 'k'));  // a heap string
    }(i));
  }
  for (auto& root : roots) root.resume();  // every wrapped function has returned; keys live on
  for (int i = 0; i < 8; ++i) {
    while (!roots[static_cast<std::size_t>(i)].done()) roots[static_cast<std::size_t>(i)].resume();
    EXPECT_EQ(roots[static_cast<std::size_t>(i)].take_result(), (40 + i) * 5);
  }
}

TEST(Wrapped, ExceptionsOfTheNestedTaskReachTheAwaiter) {
  auto root = []() -> task<int> { co_return co_await halved("throw"); }();
  EXPECT_THROW(drive(root), std::invalid_argument);
  auto caught = []() -> task<int> {
    int result = 0;
    try {
      result = co_await halved("throw");
    } catch (const std::invalid_argument&) {
      result = -1;
    }
    co_return result;
  }();
  EXPECT_EQ(drive(caught), -1);
}

// With a lookup context: the nested task's frame comes from the arena, the wrapper takes none.
[[gnu::noinline]] task<long> measure_in(lookup_context&, std::string key) { co_return static_cast<long>(key.size()); }
wrapped<long, task<long>> measure_wrapped(lookup_context& context, std::string key) {
  return measure_in(context, std::move(key));
}

[[gnu::noinline]] task<long> measure_wrapped_root(lookup_context& context) {
  co_return co_await measure_wrapped(context, "abcde");
}

TEST(Wrapped, NestedTasksTakeTheirFramesFromTheContext) {
  lookup_context context(4096);
  const std::int64_t before = live_pool_frames();
  auto root = measure_wrapped_root(context);
  EXPECT_EQ(drive(root), 5);
  EXPECT_EQ(live_pool_frames(), before);
  EXPECT_EQ(context.live_frames(), 1u) << "the root; the nested frame is gone";
  root.reset();
  context.reset();
}

}  // namespace
}  // namespace braid
