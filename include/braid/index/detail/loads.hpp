// The loads a structure's plain lookup is written against, so that one body serves the plain
// lookup and the fiber comparator: `plain_load` reads where it is told; `fiber_load` prefetches
// every line of the object, yields to the fiber's scheduler, then reads; `fiber_line_load`
// does the same for the object's first line only (nodes that fit one line, or whose search
// reads one line at a time).
#pragma once

#include "braid/core/fiber.hpp"
#include "braid/core/prefetch.hpp"

namespace braid::detail {

struct plain_load {
  template <class T>
  T& operator()(T* address) const noexcept {
    return *address;
  }
};

template <prefetch_hint Hint>
struct fiber_load {
  fiber_context* context;
  template <class T>
  T& operator()(T* address) const {
    return fiber_fetch_lines<Hint>(*context, address);
  }
};

template <prefetch_hint Hint>
struct fiber_line_load {
  fiber_context& context;
  template <class T>
  T& operator()(T* address) const {
    return fiber_fetch<Hint>(context, address);
  }
};

}  // namespace braid::detail
