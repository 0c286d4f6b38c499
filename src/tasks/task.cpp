#include "braid/tasks/task.hpp"

#include <atomic>

namespace braid::tasks {

std::uint16_t next_task_type_id() noexcept {
  static std::atomic<std::uint16_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace braid::tasks
