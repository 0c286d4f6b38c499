// huge_page_allocator<T>: an allocator for standard containers whose large arrays should sit on
// 2 MiB pages (a column's index vector, say): with transparent huge pages in "madvise" mode,
// memory from malloc never gets them, and a DRAM-resident array on 4 KiB pages costs a page
// walk on nearly every random access.
//
//   std::vector<std::uint64_t, braid::huge_page_allocator<std::uint64_t>> words(n);   // 2 MiB pages
//   std::vector<std::uint32_t, braid::huge_page_allocator<std::uint32_t>> codes{
//       braid::huge_page_allocator<std::uint32_t>(braid::page_size::small_4k)};       // 4 KiB pages
//
// An allocation of at least mapping_threshold_bytes (4 MiB) is its own 2 MiB-aligned mapping,
// advised for huge pages (huge_2m) or against them (small_4k) before anything touches it; a
// smaller one comes from operator new, whatever the page size asked. The kernel may still
// refuse huge pages (huge_buffer.hpp says how to see what a buffer got).
//
// Invariants: deallocate depends only on the size, so every instance can free what any other
// allocated and all compare equal; the page size travels with a container's copies and moves.
// Known limit: a mapping spans whole huge pages, so an array wastes less than 2 MiB of address
// space (and, with huge pages, of memory) past its end.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>

#include "braid/core/huge_buffer.hpp"

namespace braid {

template <class T>
class huge_page_allocator {
 public:
  using value_type = T;
  using propagate_on_container_copy_assignment = std::true_type;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;
  static constexpr std::size_t mapping_threshold_bytes = std::size_t{4} << 20;

  huge_page_allocator() noexcept = default;
  explicit huge_page_allocator(page_size pages) noexcept : pages_(pages) {}
  template <class U>
  huge_page_allocator(const huge_page_allocator<U>& other) noexcept : pages_(other.pages()) {}

  [[nodiscard]] page_size pages() const noexcept { return pages_; }

  [[nodiscard]] T* allocate(std::size_t count) {
    if (count > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = count * sizeof(T);
    if (bytes < mapping_threshold_bytes) return static_cast<T*>(::operator new(bytes, std::align_val_t{alignof(T)}));
    return reinterpret_cast<T*>(detail::map_2m_aligned(bytes, pages_));
  }

  void deallocate(T* data, std::size_t count) noexcept {
    const std::size_t bytes = count * sizeof(T);
    if (bytes < mapping_threshold_bytes) {
      ::operator delete(data, std::align_val_t{alignof(T)});
    } else {
      detail::unmap_2m_aligned(reinterpret_cast<std::byte*>(data), bytes);
    }
  }

  template <class U>
  friend bool operator==(const huge_page_allocator&, const huge_page_allocator<U>&) noexcept {
    return true;
  }

 private:
  page_size pages_ = page_size::huge_2m;
};

}  // namespace braid
