// The two queues of a worker's task pool, both intrusive (linked through the descriptors'
// `next` field, so queuing never allocates):
//
//  - local_task_queue: FIFO, unsynchronized. Only its worker pushes and pops: a task that the
//    worker's running task spawns for the worker itself never pays for an atomic (safe
//    because tasks run to completion: the worker never pushes and pops at the same time).
//  - remote_task_queue: multi-producer, single-consumer. Producers push with one CAS on the
//    head; the consumer takes the whole list with one exchange and reverses it into FIFO
//    order. One per (priority, NUMA region of the sender) in every worker, so producers of
//    different regions never share the head's cache line.
#pragma once

#include <atomic>
#include <cstddef>

#include "braid/tasks/task.hpp"

namespace braid::tasks {

class local_task_queue {
 public:
  local_task_queue() noexcept = default;
  local_task_queue(const local_task_queue&) = delete;
  local_task_queue& operator=(const local_task_queue&) = delete;

  [[nodiscard]] bool empty() const noexcept { return head_ == nullptr; }

  void push(task_descriptor& task) noexcept {
    task.next_ = nullptr;
    *tail_ = &task;
    tail_ = &task.next_;
  }

  // Appends a chain first -> ... -> last (last->next_ must be null).
  void push_chain(task_descriptor* first, task_descriptor* last) noexcept {
    if (first == nullptr) return;
    *tail_ = first;
    tail_ = &last->next_;
  }

  task_descriptor* pop() noexcept {
    task_descriptor* task = head_;
    if (task == nullptr) return nullptr;
    head_ = task->next_;
    if (head_ == nullptr) tail_ = &head_;
    return task;
  }

  // Moves every task of `other` to the end of this queue.
  void splice(local_task_queue& other) noexcept {
    if (other.head_ == nullptr) return;
    *tail_ = other.head_;
    tail_ = other.tail_;
    other.head_ = nullptr;
    other.tail_ = &other.head_;
  }

 private:
  task_descriptor* head_ = nullptr;
  task_descriptor** tail_ = &head_;
};

class alignas(64) remote_task_queue {
 public:
  remote_task_queue() noexcept = default;
  remote_task_queue(const remote_task_queue&) = delete;
  remote_task_queue& operator=(const remote_task_queue&) = delete;

  // Any thread.
  void push(task_descriptor& task) noexcept {
    task_descriptor* head = head_.load(std::memory_order_relaxed);
    do {
      task.next_ = head;
    } while (!head_.compare_exchange_weak(head, &task, std::memory_order_release, std::memory_order_relaxed));
  }

  // Pushes a chain first -> ... -> last with one CAS (last->next_ is overwritten).
  void push_chain(task_descriptor* first, task_descriptor* last) noexcept {
    // The queue is a stack: the chain must be reversed so that take_all's reversal restores it.
    task_descriptor* reversed = nullptr;
    task_descriptor* reversed_last = first;
    for (task_descriptor* task = first; task != nullptr;) {
      task_descriptor* next = (task == last) ? nullptr : task->next_;
      task->next_ = reversed;
      reversed = task;
      task = next;
    }
    task_descriptor* head = head_.load(std::memory_order_relaxed);
    do {
      reversed_last->next_ = head;
    } while (!head_.compare_exchange_weak(head, reversed, std::memory_order_release, std::memory_order_relaxed));
  }

  [[nodiscard]] bool maybe_nonempty() const noexcept { return head_.load(std::memory_order_relaxed) != nullptr; }

  // Consumer only: moves every queued task, in push order, to the end of `into`.
  void take_all(local_task_queue& into) noexcept {
    if (head_.load(std::memory_order_relaxed) == nullptr) return;
    task_descriptor* task = head_.exchange(nullptr, std::memory_order_acquire);
    task_descriptor* reversed = nullptr;
    task_descriptor* last = task;
    while (task != nullptr) {
      task_descriptor* next = task->next_;
      task->next_ = reversed;
      reversed = task;
      task = next;
    }
    into.push_chain(reversed, last);
  }

 private:
  std::atomic<task_descriptor*> head_{nullptr};
};

}  // namespace braid::tasks
