// Task descriptor memory, in two levels (MxTasking dissertation §2.5):
//
//  - descriptor_cache: one per worker, unsynchronized. A LIFO free list of fixed-size blocks
//    (max_task_bytes, 64-byte aligned), so the block a finished task frees is the one the next
//    spawn gets, still hot in cache. A task is freed into the cache of the worker that ran
//    it, wherever it was allocated.
//  - descriptor_heap: shared by the runtime's workers, behind a latch. It hands out and takes
//    back batches of `batch_blocks` blocks, and carves fresh batches from 2 MiB arenas
//    (huge pages where the kernel grants them). The only latch on the allocation path, taken
//    once per batch.
//
// A cache that runs dry takes a batch from the heap; one that holds more than
// `kept_batches` batches (1024 descriptors: a worker's usual tasks in flight) gives one back. After warm-up, spawning and finishing tasks touches neither the heap's
// latch nor the global heap. (The machine class has one NUMA region; a per-region heap would
// sit between the two levels on a multi-socket machine.)
//
// Free blocks are poisoned for AddressSanitizer: running a freed task is reported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "braid/core/huge_buffer.hpp"
#include "braid/tasks/task.hpp"

namespace braid::tasks {

struct descriptor_heap_statistics {
  std::uint64_t arenas = 0;          // 2 MiB arenas taken from the system
  std::uint64_t batches_handed_out = 0;
  std::uint64_t batches_taken_back = 0;
};

class descriptor_heap {
 public:
  static constexpr std::size_t block_bytes = max_task_bytes;
  static constexpr std::size_t batch_blocks = 64;
  static constexpr std::size_t kept_batches = 16;
  static constexpr std::size_t arena_bytes = huge_buffer::huge_page_bytes;

  // A free block: the first two words link blocks and batches.
  struct free_block {
    free_block* next;        // next block of the same batch (or cache)
    free_block* next_batch;  // next batch, in the heap's list (first block of a batch only)
  };

  descriptor_heap() = default;
  descriptor_heap(const descriptor_heap&) = delete;
  descriptor_heap& operator=(const descriptor_heap&) = delete;

  // A chain of exactly batch_blocks blocks (last->next == nullptr).
  free_block* take_batch();
  // Takes back a chain of exactly batch_blocks blocks.
  void give_batch(free_block* first);

  // Single blocks, for threads that are not workers (spawning from outside the runtime).
  void* allocate_one();
  void free_one(void* block) noexcept;

  [[nodiscard]] descriptor_heap_statistics statistics() const;

 private:
  free_block* carve_batch();  // latch held

  mutable std::mutex latch_;
  free_block* batches_ = nullptr;  // full batches
  free_block* loose_ = nullptr;    // single blocks freed by non-workers
  std::vector<huge_buffer> arenas_;
  std::size_t carved_in_last_arena_ = 0;
  descriptor_heap_statistics statistics_;
};

class descriptor_cache {
 public:
  explicit descriptor_cache(descriptor_heap& heap) noexcept : heap_(&heap) {}
  descriptor_cache(const descriptor_cache&) = delete;
  descriptor_cache& operator=(const descriptor_cache&) = delete;
  ~descriptor_cache();  // returns every block to the heap

  [[nodiscard]] void* allocate();
  void free(void* block) noexcept;

  [[nodiscard]] std::size_t cached_blocks() const noexcept { return count_; }

 private:
  void give_back_batch() noexcept;

  descriptor_heap* heap_;
  descriptor_heap::free_block* head_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace braid::tasks
