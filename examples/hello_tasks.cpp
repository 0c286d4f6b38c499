// The task runtime in one page: a task walks a linked list one node per run. Each run it
// re-annotates itself with the next node and returns itself as its own successor, so the
// worker prefetches that node a few tasks ahead while other walks run. Nothing blocks.
#include <braid/tasks/all.hpp>

#include <cstdio>
#include <vector>

namespace tasks = braid::tasks;

struct node { long value; const node* next; };

struct sum_list : tasks::annotated_task<sum_list> {
  const node* at;
  long* total;
  int* lists_left;  // the last walk to finish stops the runtime
  sum_list(const node* head, long* out, int* left) : at(head), total(out), lists_left(left) {
    annotate_prefetch(head, hint());                           // prefetch the first node before the first run
  }
  static tasks::prefetch_descriptor hint() {
    return tasks::prefetch_descriptor::bytes(sizeof(node), tasks::prefetch_temporality::temporal);
  }

  tasks::task_result execute(tasks::worker&) {
    *total += at->value;                                       // the node is (likely) in cache by now
    if ((at = at->next) == nullptr) {                          // done: free the descriptor, or stop
      return --*lists_left == 0 ? tasks::task_result::stop() : tasks::task_result::remove();
    }
    annotate_prefetch(at, hint());                             // what to prefetch before the next run
    return tasks::task_result::succeed(*this);                 // run me again
  }
};

int main() {
  std::vector<node> nodes(4000);
  for (std::size_t i = 0; i < nodes.size(); ++i) {                 // 1000 lists of 4 nodes
    nodes[i] = {static_cast<long>(i), i % 4 == 3 ? nullptr : &nodes[i + 1]};
  }
  std::vector<long> totals(nodes.size() / 4, 0);
  tasks::runtime runtime({.workers = 1, .distance = tasks::prefetch_distance::fixed(2)});
  int lists_left = static_cast<int>(totals.size());          // one worker: no other thread touches it
  for (std::size_t list = 0; list < totals.size(); ++list) {
    runtime.spawn(*runtime.allocate<sum_list>(&nodes[4 * list], &totals[list], &lists_left));
  }
  runtime.run();  // until a task returns stop()
  long expected = 0, sum = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) expected += static_cast<long>(i);
  for (long each : totals) sum += each;
  std::printf("sum of %zu lists: %ld (expected %ld)\n", totals.size(), sum, expected);
  return sum == expected ? 0 : 1;
}
