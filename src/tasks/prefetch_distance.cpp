#include "braid/tasks/prefetch_distance.hpp"

namespace braid::tasks {

std::string prefetch_distance::describe() const {
  switch (kind_) {
    case mode::off: return "off";
    case mode::fixed: return "fixed:" + std::to_string(tasks_);
    case mode::automatic: return "automatic";
  }
  return "?";
}

}  // namespace braid::tasks
