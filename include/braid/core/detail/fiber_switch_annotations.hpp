// Tells AddressSanitizer about fiber stack switches, which it cannot see inside
// Boost.Context's assembly; without it ASan mistakes the fiber's stack for a corrupted one.
// Compiles to nothing in ordinary builds.
//
// ThreadSanitizer is not annotated: a fiber's final jump out happens inside Boost.Context,
// after the last point where TSan could be told, so its shadow call stack would drift.
// Fibers are single-threaded by nature; the TSan build covers braid's concurrent code only.
//
// Protocol, per fiber: the resumer calls before_enter()/after_return() around every jump
// into the fiber; the fiber calls on_start() first, before_leave()/after_reenter() around
// every suspension, and before_exit() right before its final jump out.
#pragma once

#include <cstddef>

#include "braid/core/detail/asan.hpp"

#if defined(BRAID_HAS_ASAN)
#include <sanitizer/common_interface_defs.h>
#endif

namespace braid::detail {

class fiber_switch_annotations {
 public:
  void set_fiber_stack([[maybe_unused]] const void* bottom, [[maybe_unused]] std::size_t bytes) noexcept {
#if defined(BRAID_HAS_ASAN)
    fiber_bottom_ = bottom;
    fiber_bytes_ = bytes;
#endif
  }

  // ---- resumer side ----
  void before_enter([[maybe_unused]] void** fake_stack) noexcept {
#if defined(BRAID_HAS_ASAN)
    __sanitizer_start_switch_fiber(fake_stack, fiber_bottom_, fiber_bytes_);
#endif
  }
  void after_return([[maybe_unused]] void* fake_stack) noexcept {
#if defined(BRAID_HAS_ASAN)
    __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
#endif
  }

  // ---- fiber side ----
  void on_start() noexcept {
#if defined(BRAID_HAS_ASAN)
    __sanitizer_finish_switch_fiber(nullptr, &resumer_bottom_, &resumer_bytes_);
#endif
  }
  void before_leave([[maybe_unused]] void** fake_stack) noexcept {
#if defined(BRAID_HAS_ASAN)
    __sanitizer_start_switch_fiber(fake_stack, resumer_bottom_, resumer_bytes_);
#endif
  }
  void after_reenter([[maybe_unused]] void* fake_stack) noexcept {
#if defined(BRAID_HAS_ASAN)
    __sanitizer_finish_switch_fiber(fake_stack, &resumer_bottom_, &resumer_bytes_);
#endif
  }
  void before_exit() noexcept {
#if defined(BRAID_HAS_ASAN)
    __sanitizer_start_switch_fiber(nullptr, resumer_bottom_, resumer_bytes_);
#endif
  }

 private:
#if defined(BRAID_HAS_ASAN)
  const void* fiber_bottom_ = nullptr;
  std::size_t fiber_bytes_ = 0;
  const void* resumer_bottom_ = nullptr;
  std::size_t resumer_bytes_ = 0;
#endif
};

}  // namespace braid::detail
