// mask_if(condition): all ones when `condition` holds, zero otherwise, as a value the optimizer
// cannot see through — the building block of a select that stays branch-free.
//
//   low += half & mask_if<std::size_t>(keys[low + half] < key);   // low + half, or low
//
// Why: a plain `c ? a : b` leaves the choice between a conditional move and a jump to the
// compiler, and Clang's x86 back end (its cmov converter) turns the conditional moves of a
// binary search's loop into data-dependent jumps: half of them mispredicted, each a pipeline
// flush. `__builtin_unpredictable` does not stop it (Clang 19). The empty asm statement below
// hides where the mask comes from, so no pass can rebuild the select and branch on it; the
// cost is the mask's materialisation (one `sbb` or `setcc` + `neg`) and one `and`.
//
// Known limit: GNU inline asm (GCC and Clang); the asm emits no instruction on any target.
#pragma once

#include <concepts>

namespace braid::detail {

template <std::unsigned_integral T>
[[nodiscard, gnu::always_inline]] inline T mask_if(bool condition) noexcept {
  T mask = T{0} - static_cast<T>(condition);
  asm("" : "+r"(mask));  // opaque: the optimizer knows nothing about mask's value
  return mask;
}

}  // namespace braid::detail
