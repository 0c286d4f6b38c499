// How the B-link tree's operation tasks (blink_tree/tasks.hpp) report what they did: a result
// per operation, handed to a completion sink on the worker that finished the operation, under
// the number of the request it answers. reporting_task is what every reporting task shares:
// its tree, its sink and request number, and deliver(), which reports Derived::result() (a
// when_validated effect for readers; writers call it when they are done).
#pragma once

#include <cstdint>

#include "braid/index/blink_tree/tree.hpp"
#include "braid/tasks/task.hpp"
#include "braid/tasks/worker.hpp"

namespace braid {

// What an operation did. `present`: an insert found the key and left its value as it was.
enum class blink_tree_operation_status : std::uint8_t { found, absent, inserted, updated, erased, scanned, present };

struct blink_tree_operation_result {
  blink_tree_operation_status status = blink_tree_operation_status::absent;
  blink_tree::value_type value = 0;  // found: the value; scanned: the sum of the values seen
  std::uint32_t count = 0;  // scanned: entries seen
};

// Receives each operation's result, on the worker that finished it.
class blink_tree_completion_sink {
 public:
  virtual void complete(tasks::worker& on, std::uint64_t request, const blink_tree_operation_result& result) = 0;

 protected:
  ~blink_tree_completion_sink() = default;
};

namespace detail::blink_tree {

// Tree: `const ::braid::blink_tree` for readers, `::braid::blink_tree` for writers. Derived
// befriends its base, which reads its result().
template <class Derived, class Tree>
class reporting_task : public tasks::annotated_task<Derived> {
 protected:
  reporting_task(Tree& tree, blink_tree_completion_sink& sink, std::uint64_t request) noexcept
      : tree_(&tree), sink_(&sink), request_(request) {}

  static void deliver(tasks::task_descriptor& task, tasks::worker& on) {
    const auto& self = static_cast<const Derived&>(task);
    self.sink_->complete(on, self.request_, self.result());
  }

  Tree* tree_;
  blink_tree_completion_sink* sink_;
  std::uint64_t request_;
};

}  // namespace detail::blink_tree
}  // namespace braid
