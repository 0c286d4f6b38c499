// The B-link tree's operations as tasks (MxTasking dissertation Ch. 5, Fig. 5.1).
//
// Each operation is one descriptor that re-annotates itself with the next node and returns
// itself as its successor, so the runtime prefetches the node a few tasks ahead (the tree's
// prefetch hints) and wraps the node's primitive around every step:
//
//   lookup_task    reader all the way; at the leaf a search step finds the key's slot, then a
//                  value step, annotated with exactly the value's cache line, reads it;
//   write_task     insert (upsert), update, erase: readers down to the branch level, which
//                  annotates the leaf step as a writer (the branch node type exists for this:
//                  the writer decision is known one level up, without touching the leaf).
//                  update is a reader search step then a writer value step on the value's
//                  line. A full leaf splits and spawns a separator_task;
//   separator_task inserts a split's separator one level up (splitting further up if needed);
//   scan_task      collects up to n entries along the leaf chain, one leaf per step.
//
// Every step re-checks the high key and moves right. Results go to a completion_sink on the
// worker that finished the operation; readers deliver through when_validated, so a result is
// only ever reported from a validated read.
#pragma once

#include <cstdint>

#include "braid/tasks/blink_tree/tree.hpp"
#include "braid/tasks/task.hpp"
#include "braid/tasks/worker.hpp"

namespace braid::tasks::blink {

enum class operation_status : std::uint8_t { found, absent, inserted, updated, erased, scanned };

struct operation_result {
  operation_status status = operation_status::absent;
  value_type value = 0;     // found: the value; scanned: the sum of the values seen
  std::uint32_t count = 0;  // scanned: entries seen
};

class completion_sink {
 public:
  virtual void complete(worker& on, std::uint64_t request, const operation_result& result) = 0;

 protected:
  ~completion_sink() = default;
};

// Annotates `task` with the tree's root: as a writer when it is a write that meets a leaf root.
void start_at_root(task_descriptor& task, const blink_tree& tree, bool writes);

class lookup_task : public annotated_task<lookup_task> {
 public:
  lookup_task(const blink_tree& tree, key_type key, completion_sink& sink, std::uint64_t request) noexcept
      : tree_(&tree), sink_(&sink), request_(request), key_(key) {
    start_at_root(*this, tree, false);
  }
  task_result execute(worker& self);

 private:
  static void deliver(task_descriptor& task, worker& on);

  const blink_tree* tree_;
  completion_sink* sink_;
  std::uint64_t request_;
  key_type key_;
  value_type value_ = 0;
  std::uint16_t index_ = 0;
  bool value_step_ = false;
  operation_status status_ = operation_status::absent;
};

class write_task : public annotated_task<write_task> {
 public:
  enum class kind : std::uint8_t { upsert, update, erase };

  write_task(blink_tree& tree, kind operation, key_type key, value_type value, completion_sink& sink,
             std::uint64_t request) noexcept
      : tree_(&tree), sink_(&sink), request_(request), key_(key), value_(value), operation_(operation) {
    start_at_root(*this, tree, operation != kind::update || !tree.options().value_step);
  }
  task_result execute(worker& self);

 private:
  static void deliver(task_descriptor& task, worker& on);
  task_result write_leaf(worker& self);

  blink_tree* tree_;
  completion_sink* sink_;
  std::uint64_t request_;
  key_type key_;
  value_type value_;
  resource_ptr parent_{};  // the branch node the leaf was reached from
  std::uint16_t index_ = 0;
  kind operation_;
  bool value_step_ = false;
  operation_status status_ = operation_status::absent;
};

class separator_task : public annotated_task<separator_task> {
 public:
  // Inserts `separator` with `right` (the new node right of it) at `level`, starting at
  // `start` (the parent the split node was reached from, or the root).
  separator_task(blink_tree& tree, std::uint8_t level, key_type separator, resource_ptr right, resource_ptr start) noexcept;
  task_result execute(worker& self);

 private:
  blink_tree* tree_;
  key_type separator_;
  resource_ptr right_;
  std::uint8_t level_;
};

class scan_task : public annotated_task<scan_task> {
 public:
  scan_task(const blink_tree& tree, key_type from, std::uint32_t limit, completion_sink& sink, std::uint64_t request) noexcept
      : tree_(&tree), sink_(&sink), request_(request), from_(from), limit_(limit) {
    start_at_root(*this, tree, false);
  }
  task_result execute(worker& self);

 private:
  static void deliver(task_descriptor& task, worker& on);

  const blink_tree* tree_;
  completion_sink* sink_;
  std::uint64_t request_;
  key_type from_;  // the next key wanted
  value_type checksum_ = 0;
  std::uint32_t limit_;
  std::uint32_t count_ = 0;
};

}  // namespace braid::tasks::blink
