// The braid core in one include (braid/core/all.hpp): prefetch, modes and fetch, coro and task, the frame pool,
// lookup contexts and wrapped<T>, schedulers (chained ones too), the thread runner, huge-page buffers and the
// fiber comparator.
#pragma once

#include "braid/core/chained_scheduler.hpp"
#include "braid/core/context_scheduler.hpp"
#include "braid/core/coro.hpp"
#include "braid/core/cycles.hpp"
#include "braid/core/fetch.hpp"
#include "braid/core/fiber.hpp"
#include "braid/core/frame_pool.hpp"
#include "braid/core/huge_buffer.hpp"
#include "braid/core/lookup_context.hpp"
#include "braid/core/memory_probe.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/operation.hpp"
#include "braid/core/prefetch.hpp"
#include "braid/core/scheduler.hpp"
#include "braid/core/task.hpp"
#include "braid/core/thread_runner.hpp"
#include "braid/core/wrapped.hpp"
