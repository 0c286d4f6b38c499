#include "braid/tasks/descriptor_allocator.hpp"

#include <new>

#include "braid/core/detail/asan.hpp"

namespace braid::tasks {

namespace {

// A free block keeps its two link words addressable; the rest is poisoned, so a task that runs
// (or is read) after it was freed is reported by AddressSanitizer.
constexpr std::size_t link_bytes = sizeof(descriptor_heap::free_block);

void poison_body(void* block) noexcept {
  BRAID_POISON(static_cast<std::byte*>(block) + link_bytes, descriptor_heap::block_bytes - link_bytes);
}
void unpoison_body(void* block) noexcept {
  BRAID_UNPOISON(static_cast<std::byte*>(block) + link_bytes, descriptor_heap::block_bytes - link_bytes);
}

}  // namespace

descriptor_heap::free_block* descriptor_heap::carve_batch() {
  constexpr std::size_t batch_bytes = batch_blocks * block_bytes;
  if (arenas_.empty() || carved_in_last_arena_ + batch_bytes > arena_bytes) {
    arenas_.emplace_back(arena_bytes, page_size::huge_2m);
    carved_in_last_arena_ = 0;
    ++statistics_.arenas;
  }
  std::byte* first = arenas_.back().data() + carved_in_last_arena_;
  carved_in_last_arena_ += batch_bytes;
  for (std::size_t index = 0; index < batch_blocks; ++index) {
    auto* block = reinterpret_cast<free_block*>(first + index * block_bytes);
    block->next = index + 1 < batch_blocks ? reinterpret_cast<free_block*>(first + (index + 1) * block_bytes) : nullptr;
    block->next_batch = nullptr;
    poison_body(block);
  }
  return reinterpret_cast<free_block*>(first);
}

descriptor_heap::free_block* descriptor_heap::take_batch() {
  std::lock_guard lock(latch_);
  ++statistics_.batches_handed_out;
  if (free_block* batch = batches_) {
    batches_ = batch->next_batch;
    batch->next_batch = nullptr;
    return batch;
  }
  return carve_batch();
}

void descriptor_heap::give_batch(free_block* first) {
  std::lock_guard lock(latch_);
  ++statistics_.batches_taken_back;
  first->next_batch = batches_;
  batches_ = first;
}

void* descriptor_heap::allocate_one() {
  std::lock_guard lock(latch_);
  if (loose_ == nullptr) {
    if (batches_ != nullptr) {
      loose_ = batches_;
      batches_ = batches_->next_batch;
      loose_->next_batch = nullptr;
    } else {
      loose_ = carve_batch();
    }
  }
  free_block* block = loose_;
  loose_ = block->next;
  unpoison_body(block);
  return block;
}

void descriptor_heap::free_one(void* memory) noexcept {
  auto* block = static_cast<free_block*>(memory);
  std::lock_guard lock(latch_);
  block->next = loose_;
  block->next_batch = nullptr;
  poison_body(block);
  loose_ = block;
}

descriptor_heap_statistics descriptor_heap::statistics() const {
  std::lock_guard lock(latch_);
  return statistics_;
}

descriptor_cache::~descriptor_cache() {
  while (count_ >= descriptor_heap::batch_blocks) give_back_batch();
  while (head_ != nullptr) {
    descriptor_heap::free_block* block = head_;
    head_ = block->next;
    unpoison_body(block);
    heap_->free_one(block);
  }
  count_ = 0;
}

void* descriptor_cache::allocate() {
  if (head_ == nullptr) [[unlikely]] {
    head_ = heap_->take_batch();
    count_ = descriptor_heap::batch_blocks;
  }
  descriptor_heap::free_block* block = head_;
  head_ = block->next;
  --count_;
  unpoison_body(block);
  return block;
}

void descriptor_cache::free(void* memory) noexcept {
  auto* block = static_cast<descriptor_heap::free_block*>(memory);
  block->next = head_;
  block->next_batch = nullptr;
  poison_body(block);
  head_ = block;
  if (++count_ > descriptor_heap::kept_batches * descriptor_heap::batch_blocks) [[unlikely]] give_back_batch();
}

void descriptor_cache::give_back_batch() noexcept {
  descriptor_heap::free_block* first = head_;
  descriptor_heap::free_block* last = first;
  for (std::size_t index = 1; index < descriptor_heap::batch_blocks; ++index) last = last->next;
  head_ = last->next;
  last->next = nullptr;
  count_ -= descriptor_heap::batch_blocks;
  heap_->give_batch(first);
}

}  // namespace braid::tasks
