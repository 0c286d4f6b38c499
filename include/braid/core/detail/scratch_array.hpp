// scratch_array: a fixed array of states, default-constructed, taken from the calling thread's
// frame pool, so that a warm batch (multi_find's hand-written techniques, the chained
// scheduler's ring) never touches the global heap. Holds at least one element.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>

#include "braid/core/frame_pool.hpp"

namespace braid::detail {

template <class State>
class scratch_array {
  static_assert(alignof(State) <= frame_pool::alignment);

 public:
  explicit scratch_array(std::size_t count)
      : states_(static_cast<State*>(frame_pool::allocate(std::max<std::size_t>(count, 1) * sizeof(State)))),
        count_(std::max<std::size_t>(count, 1)) {
    std::uninitialized_default_construct_n(states_, count_);
  }
  scratch_array(const scratch_array&) = delete;
  scratch_array& operator=(const scratch_array&) = delete;
  ~scratch_array() {
    std::destroy_n(states_, count_);
    frame_pool::deallocate(states_, count_ * sizeof(State));
  }

  State& operator[](std::size_t index) noexcept { return states_[index]; }
  [[nodiscard]] std::size_t size() const noexcept { return count_; }

 private:
  State* states_;
  std::size_t count_;
};

}  // namespace braid::detail
