// The B-link tree's operations as tasks (MxTasking dissertation Ch. 5, Fig. 5.1): the task
// form of the index, the part that needs the runtime's tasks and workers.
//
// Each operation is one descriptor that re-annotates itself with the next node and returns
// itself as its successor, so the runtime prefetches the node a few tasks ahead (the tree's
// prefetch hints) and wraps the node's primitive around every step:
//
//   blink_tree_lookup_task     reader all the way; at the leaf a search step finds the key's
//                              slot, then a value step, annotated with exactly the value's
//                              cache line, reads it;
//   blink_tree_write_task      insert (add if absent), insert_or_assign, update, erase:
//                              readers down to the branch level, which annotates the leaf step
//                              as a writer (the branch node type exists for this: the writer
//                              decision is known one level up, without touching the leaf).
//                              update is a reader search step then a writer value step on the
//                              value's line. A full leaf splits and spawns a separator task;
//   blink_tree_separator_task  inserts a split's separator one level up (splitting further up
//                              if needed);
//   blink_tree_scan_task       collects up to n entries along the leaf chain, one leaf per step.
//
// Every step re-checks the high key and moves right. Results go to a completion sink on the
// worker that finished the operation; readers deliver through when_validated, so a result is
// only ever reported from a validated read. An insert decides "absent" and adds the key in
// one writer step on the leaf, so two inserts of one key add it once.
#pragma once

#include <cstdint>

#include "braid/index/blink_tree/completion.hpp"

namespace braid {

namespace detail::blink_tree {
// Annotates `task` with the tree's root: as a writer when it is a write that meets a leaf root.
void start_at_root(tasks::task_descriptor& task, const ::braid::blink_tree& tree, bool writes);
}  // namespace detail::blink_tree

class blink_tree_lookup_task : public detail::blink_tree::reporting_task<blink_tree_lookup_task, const blink_tree> {
 public:
  blink_tree_lookup_task(const blink_tree& tree, blink_tree::key_type key, blink_tree_completion_sink& sink,
                         std::uint64_t request) noexcept
      : reporting_task(tree, sink, request), key_(key) {
    detail::blink_tree::start_at_root(*this, tree, false);
  }
  tasks::task_result execute(tasks::worker& self);

 private:
  friend reporting_task;
  blink_tree_operation_result result() const noexcept { return {status_, value_, 0}; }

  blink_tree::key_type key_;
  blink_tree::value_type value_ = 0;
  std::uint16_t index_ = 0;
  bool value_step_ = false;
  blink_tree_operation_status status_ = blink_tree_operation_status::absent;
};

class blink_tree_write_task : public detail::blink_tree::reporting_task<blink_tree_write_task, blink_tree> {
 public:
  enum class kind : std::uint8_t { insert, insert_or_assign, update, erase };

  blink_tree_write_task(blink_tree& tree, kind operation, blink_tree::key_type key, blink_tree::value_type value,
                        blink_tree_completion_sink& sink, std::uint64_t request) noexcept
      : reporting_task(tree, sink, request), key_(key), value_(value), operation_(operation) {
    detail::blink_tree::start_at_root(*this, tree, operation != kind::update || !tree.options().value_step);
  }
  tasks::task_result execute(tasks::worker& self);

 private:
  friend reporting_task;
  blink_tree_operation_result result() const noexcept { return {status_, value_, 0}; }
  tasks::task_result write_leaf(tasks::worker& self);

  blink_tree::key_type key_;
  blink_tree::value_type value_;
  tasks::resource_ptr parent_{};  // the branch node the leaf was reached from
  std::uint16_t index_ = 0;
  kind operation_;
  bool value_step_ = false;
  blink_tree_operation_status status_ = blink_tree_operation_status::absent;
};

class blink_tree_separator_task : public tasks::annotated_task<blink_tree_separator_task> {
 public:
  // Inserts `separator` with `right` (the new node right of it) at `level`, starting at
  // `start` (the parent the split node was reached from, or the root).
  blink_tree_separator_task(blink_tree& tree, std::uint8_t level, blink_tree::key_type separator,
                            tasks::resource_ptr right, tasks::resource_ptr start) noexcept;
  tasks::task_result execute(tasks::worker& self);

 private:
  blink_tree* tree_;
  blink_tree::key_type separator_;
  tasks::resource_ptr right_;
  std::uint8_t level_;
};

class blink_tree_scan_task : public detail::blink_tree::reporting_task<blink_tree_scan_task, const blink_tree> {
 public:
  blink_tree_scan_task(const blink_tree& tree, blink_tree::key_type from, std::uint32_t limit,
                       blink_tree_completion_sink& sink, std::uint64_t request) noexcept
      : reporting_task(tree, sink, request), from_(from), limit_(limit) {
    detail::blink_tree::start_at_root(*this, tree, false);
  }
  tasks::task_result execute(tasks::worker& self);

 private:
  friend reporting_task;
  blink_tree_operation_result result() const noexcept {
    return {blink_tree_operation_status::scanned, checksum_, count_};
  }

  blink_tree::key_type from_;  // the next key wanted
  blink_tree::value_type checksum_ = 0;
  std::uint32_t limit_;
  std::uint32_t count_ = 0;
};

}  // namespace braid
