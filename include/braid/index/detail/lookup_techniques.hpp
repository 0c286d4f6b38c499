// What the hand-written comparators of the lookup structures share: scratch state from the
// frame pool, the circular buffer that drives AMAC state machines, and (detail/loads.hpp) the
// loads their plain and fiber lookups are written against. The dispatch of multi_find is detail/multi_find.hpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "braid/core/coro.hpp"
#include "braid/core/fiber.hpp"
#include "braid/core/detail/scratch_array.hpp"
#include "braid/core/frame_pool.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/prefetch.hpp"
#include "braid/core/scheduler.hpp"
#include "braid/index/detail/adaptive_lookups.hpp"
#include "braid/index/detail/batch_arguments.hpp"
#include "braid/index/detail/loads.hpp"
#include "braid/index/detail/multi_find.hpp"
#include "braid/index/technique.hpp"

namespace braid::detail {

// AMAC's circular buffer: up to `group` lookups in flight, each an explicit state machine.
//   begin(state, index) starts the lookup of input `index` in `state`; it returns false when
//                       the lookup finished at once (its result already written);
//   advance(state)      runs the state's next stage; it returns false once the lookup has
//                       finished (its result written).
// A finished slot takes the next input at once; when the input runs out, the last live slot
// moves into the finished one, so the final drain visits live lookups only.
template <class State, class Begin, class Advance>
void run_state_machines(std::size_t count, std::size_t group, Begin&& begin, Advance&& advance) {
  if (count == 0) return;
  scratch_array<State> ring(std::min(group, count));
  std::size_t next = 0;
  std::size_t live = 0;
  auto start_next = [&](State& state) {
    while (next < count) {
      if (begin(state, next++)) return true;
    }
    return false;
  };
  while (live < ring.size() && start_next(ring[live])) ++live;
  while (live > 0) {
    for (std::size_t slot = 0; slot < live;) {
      State& state = ring[slot];
      if (advance(state) || start_next(state)) {
        ++slot;
        continue;
      }
      --live;  // input exhausted: the last live state takes this slot and runs next
      if (slot != live) state = std::move(ring[live]);
    }
  }
}

}  // namespace braid::detail
