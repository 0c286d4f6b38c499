#include "braid/core/frame_pool.hpp"

#include <mutex>
#include <new>
#include <vector>

namespace braid::detail {

constinit thread_local frame_pool_thread_state frame_pool_state{};

static_assert(frame_class_index(64) == 0 && frame_class_index(65) == 1);
static_assert(frame_class_index(1024) == 15 && frame_class_index(1025) == 16);
static_assert(frame_class_index(2048) == 16 && frame_class_index(std::size_t{1} << 20) == 25);

namespace {

constexpr std::align_val_t block_alignment{frame_alignment};

// Owns every block until process exit, and the free frames of threads that have exited.
struct block_registry {
  std::mutex mutex;
  std::vector<void*> blocks;  // reachable to the end, so leak checkers do not count them
  std::array<free_frame*, frame_class_count> stash{};
};

// Never destroyed: a thread may exit (and hand its free frames over) during static
// destruction, after a registry with a destructor would be gone — the workers of a static
// thread pool built before the first frame do. The blocks go with the process.
block_registry& registry() {
  static block_registry* const instance = new block_registry;
  return *instance;
}

// Hands the exiting thread's free frames to the registry's stash.
struct thread_exit_hook {
  ~thread_exit_hook() {
    block_registry& shared = registry();
    std::lock_guard lock(shared.mutex);
    for (std::size_t index = 0; index < frame_class_count; ++index) {
      while (free_frame* frame = frame_pool_state.lists[index]) {
        BRAID_UNPOISON(frame, sizeof(free_frame));
        frame_pool_state.lists[index] = frame->next;
        frame->next = shared.stash[index];
        BRAID_POISON(frame, sizeof(free_frame));
        shared.stash[index] = frame;
      }
    }
  }
};

}  // namespace

void* frame_pool_allocate_slow(std::size_t bytes) {
  frame_pool_thread_state& state = frame_pool_state;
  if (bytes > frame_pool::largest_class_bytes) {
    ++state.statistics.large_allocations;
    return ::operator new(bytes, block_alignment);
  }
  thread_local thread_exit_hook exit_hook;
  (void)exit_hook;

  const std::size_t index = frame_class_index(bytes);
  const std::size_t reserved = frame_pool::class_bytes(bytes);
  block_registry& shared = registry();
  {
    std::lock_guard lock(shared.mutex);
    if (free_frame* frame = shared.stash[index]) {
      BRAID_UNPOISON(frame, reserved);
      shared.stash[index] = frame->next;
      return frame;
    }
  }
  if (state.bump == nullptr || state.bump + reserved > state.bump_end) {
    // The tail of the old block is abandoned (at most one largest-class frame's worth).
    void* block = ::operator new(frame_pool::block_bytes, block_alignment);
    BRAID_POISON(block, frame_pool::block_bytes);
    {
      std::lock_guard lock(shared.mutex);
      shared.blocks.push_back(block);
    }
    state.bump = static_cast<std::byte*>(block);
    state.bump_end = state.bump + frame_pool::block_bytes;
    ++state.statistics.block_allocations;
    state.statistics.reserved_bytes += frame_pool::block_bytes;
  }
  std::byte* frame = state.bump;
  state.bump += reserved;
  BRAID_UNPOISON(frame, reserved);
  return frame;
}

void frame_pool_deallocate_large(void* frame) noexcept { ::operator delete(frame, block_alignment); }

}  // namespace braid::detail
