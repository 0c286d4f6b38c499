// The task runtime in one include: annotated run-to-completion tasks, workers with
// prefetching task buffers, synchronization chosen from annotations, epochs, squads, and the
// bridge that runs braid coroutines as tasks.
#pragma once

#include "braid/tasks/coroutine_bridge.hpp"
#include "braid/tasks/descriptor_allocator.hpp"
#include "braid/tasks/epoch.hpp"
#include "braid/tasks/prefetch_descriptor.hpp"
#include "braid/tasks/prefetch_distance.hpp"
#include "braid/tasks/resource.hpp"
#include "braid/tasks/runtime.hpp"
#include "braid/tasks/squad.hpp"
#include "braid/tasks/task.hpp"
#include "braid/tasks/task_queues.hpp"
#include "braid/tasks/worker.hpp"
