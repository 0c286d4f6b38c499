// ordered_node_arena: node memory for braid's pointer-based ordered indexes (binary search
// tree, skip list, B+-tree).
//
// A bump allocator over chunks that never move, so node addresses stay valid for the life of
// the index. Chunks double in size as the index grows. Chunks below 2 MiB come from the global
// heap, so a small index costs little; from 2 MiB on, chunks are huge_buffers with the index's
// page size (2 MiB pages for DRAM-resident indexes, 4 KiB pages for the TLB comparison).
// reserve(bytes) allocates one chunk of that size up front, pre-faulted: bulk builds of large
// indexes use it so that their nodes are contiguous and page faults stay out of lookups.
//
// The arena never frees single nodes: each index recycles its own freed nodes (free lists per
// node size). Everything is released when the arena is destroyed or cleared.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "braid/core/huge_buffer.hpp"
#include "braid/core/prefetch.hpp"

namespace braid::detail {

class ordered_node_arena {
 public:
  static constexpr std::size_t first_chunk_bytes = std::size_t{16} << 10;
  static constexpr std::size_t largest_growth_chunk_bytes = std::size_t{256} << 20;
  static constexpr std::size_t mapped_chunk_threshold = huge_buffer::huge_page_bytes;

  explicit ordered_node_arena(page_size pages = page_size::huge_2m) noexcept : pages_(pages) {}

  ordered_node_arena(ordered_node_arena&& other) noexcept
      : pages_(other.pages_),
        chunks_(std::move(other.chunks_)),
        bump_(std::exchange(other.bump_, nullptr)),
        bump_end_(std::exchange(other.bump_end_, nullptr)),
        reserved_bytes_(std::exchange(other.reserved_bytes_, 0)) {}
  ordered_node_arena& operator=(ordered_node_arena&& other) noexcept {
    if (this != &other) {
      pages_ = other.pages_;
      chunks_ = std::move(other.chunks_);
      bump_ = std::exchange(other.bump_, nullptr);
      bump_end_ = std::exchange(other.bump_end_, nullptr);
      reserved_bytes_ = std::exchange(other.reserved_bytes_, 0);
    }
    return *this;
  }
  ordered_node_arena(const ordered_node_arena&) = delete;
  ordered_node_arena& operator=(const ordered_node_arena&) = delete;
  ~ordered_node_arena() = default;

  // `bytes` at an address aligned to `alignment` (a power of two, at most a 4 KiB page).
  [[nodiscard]] std::byte* allocate(std::size_t bytes, std::size_t alignment) {
    std::byte* start = align_up(bump_, alignment);
    if (bump_ == nullptr || start + bytes > bump_end_) {
      add_chunk(std::max(next_growth_bytes(), bytes + alignment), /*prefault=*/false);
      start = align_up(bump_, alignment);
    }
    bump_ = start + bytes;
    return start;
  }

  // Makes the next `bytes` of allocations come from one chunk, mapped and pre-faulted now.
  void reserve(std::size_t bytes) {
    if (bump_ != nullptr && static_cast<std::size_t>(bump_end_ - bump_) >= bytes) return;
    add_chunk(bytes + cache_line_bytes, /*prefault=*/true);
  }

  // Releases every chunk; all nodes handed out become invalid.
  void clear() noexcept {
    chunks_.clear();
    bump_ = bump_end_ = nullptr;
    reserved_bytes_ = 0;
  }

  [[nodiscard]] page_size pages() const noexcept { return pages_; }
  // Bytes of all chunks (what the index occupies, free space included).
  [[nodiscard]] std::size_t reserved_bytes() const noexcept { return reserved_bytes_; }

  // The page size that backs the largest chunk, as huge_buffer::describe_pages() says it;
  // "heap" when the index is small enough to live on the global heap.
  [[nodiscard]] std::string describe_pages() const {
    const chunk* largest = nullptr;
    for (const chunk& c : chunks_) {
      if (largest == nullptr || c.bytes > largest->bytes) largest = &c;
    }
    if (largest == nullptr) return "none";
    if (!largest->mapped.data()) return "heap (index below 2 MiB)";
    return largest->mapped.describe_pages();
  }

 private:
  struct heap_deleter {
    void operator()(std::byte* memory) const noexcept {
      ::operator delete(memory, std::align_val_t{cache_line_bytes});
    }
  };
  struct chunk {
    huge_buffer mapped;                                // chunks of 2 MiB and more
    std::unique_ptr<std::byte, heap_deleter> on_heap;  // smaller chunks
    std::size_t bytes = 0;
    [[nodiscard]] std::byte* data() const noexcept { return on_heap ? on_heap.get() : mapped.data(); }
  };

  static std::byte* align_up(std::byte* address, std::size_t alignment) noexcept {
    const auto value = reinterpret_cast<std::uintptr_t>(address);
    return reinterpret_cast<std::byte*>((value + alignment - 1) & ~(alignment - 1));
  }

  [[nodiscard]] std::size_t next_growth_bytes() const noexcept {
    if (chunks_.empty()) return first_chunk_bytes;
    return std::min(chunks_.back().bytes * 2, largest_growth_chunk_bytes);
  }

  void add_chunk(std::size_t bytes, bool prefault) {
    chunk fresh;
    fresh.bytes = bytes;
    if (bytes >= mapped_chunk_threshold) {
      fresh.mapped = huge_buffer(bytes, pages_, prefault);
    } else {
      fresh.on_heap.reset(static_cast<std::byte*>(::operator new(bytes, std::align_val_t{cache_line_bytes})));
    }
    bump_ = fresh.data();
    bump_end_ = bump_ + bytes;
    reserved_bytes_ += bytes;
    chunks_.push_back(std::move(fresh));
  }

  page_size pages_;
  std::vector<chunk> chunks_;
  std::byte* bump_ = nullptr;  // next free byte of the newest chunk
  std::byte* bump_end_ = nullptr;
  std::size_t reserved_bytes_ = 0;
};

}  // namespace braid::detail
