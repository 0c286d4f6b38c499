// The coroutine bridge: an operation written against `fetch<M>` runs as a chain of tasks, and
// `fetch<on_runtime>` reaches the runtime's awaiter whatever the include order. The operation
// below is defined before the bridge is included, as a structure header would be.
// braid-test: concurrent
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "braid/core/coro.hpp"
#include "braid/core/fetch.hpp"

namespace application {

struct link {
  const link* next;
  int value;
};

// Sums the values along a chain, one marked load per link.
template <braid::execution_mode M>
braid::coro<long> sum_chain(const link* first) {
  long sum = 0;
  for (const link* at = first; at != nullptr;) {
    const link& current = co_await braid::fetch<M>(at);
    sum += current.value;
    at = current.next;
  }
  co_return sum;
}

}  // namespace application

#include "tasks/task_test_support.hpp"  // brings the bridge in only now

namespace braid::tasks::testing {
namespace {

std::vector<application::link> make_chain(int length) {
  std::vector<application::link> chain(static_cast<std::size_t>(length));
  for (int index = 0; index < length; ++index) {
    chain[static_cast<std::size_t>(index)] = {index + 1 < length ? &chain[static_cast<std::size_t>(index) + 1] : nullptr,
                                             index + 1};
  }
  return chain;
}

TEST(CoroutineBridge, FetchFindsTheRuntimeAwaiterThroughTheMode) {
  std::vector<application::link> chain = make_chain(3);
  detail::last_fetch = {};
  auto operation = application::sum_chain<on_runtime>(chain.data());  // eager: runs to its first fetch
  EXPECT_FALSE(operation.done());
  EXPECT_EQ(detail::last_fetch.address, chain.data());
  EXPECT_EQ(detail::last_fetch.bytes, 1u);
  using non_temporal = on_runtime_with<prefetch_temporality::non_temporal>;
  auto lines = fetch_lines<non_temporal>(chain.data());
  EXPECT_EQ(lines.bytes, sizeof(application::link));
  EXPECT_EQ(lines.temporality, prefetch_temporality::non_temporal);
}

TEST(CoroutineBridge, TheSameOperationGivesTheSameResultInEveryMode) {
  for (int length : {0, 1, 2, 17, 500}) {
    std::vector<application::link> chain = make_chain(length);
    const application::link* first = length == 0 ? nullptr : chain.data();
    const long expected = static_cast<long>(length) * (length + 1) / 2;
    EXPECT_EQ(application::sum_chain<sequential>(first).take_result(), expected);

    runtime tasks(test_config(1));
    long on_tasks = -1;
    tasks.spawn(*tasks.allocate_lambda([&](worker& self) {
      spawn_coroutine(self, application::sum_chain<on_runtime>(first), [&](worker& done, long sum) {
        on_tasks = sum;
        done.stop();
      });
      return task_result::remove();
    }));
    tasks.run();
    EXPECT_EQ(on_tasks, expected) << "chain of " << length;
  }
}

}  // namespace
}  // namespace braid::tasks::testing
