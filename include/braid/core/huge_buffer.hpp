// Page-backed buffers for the big arrays of DRAM-resident experiments.
//
// A huge_buffer is an anonymous mapping aligned to 2 MiB. With page_size::huge_2m it asks the
// kernel for transparent huge pages (madvise MADV_HUGEPAGE) before touching the memory; with
// page_size::small_4k it forbids them (MADV_NOHUGEPAGE). The kernel may refuse huge pages
// (THP disabled, memory fragmented), so the buffer measures what it actually got from
// /proc/self/smaps: obtained_huge_bytes() and describe_pages() say it, and reports print it.
//
// Memory is zero-filled and, by default, pre-faulted so that page faults stay out of timed
// regions. huge_array<T> is the typed view for implicit-lifetime element types.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <type_traits>

namespace braid {

enum class page_size { small_4k, huge_2m };

constexpr const char* to_string(page_size size) noexcept {
  return size == page_size::huge_2m ? "2m" : "4k";
}

class huge_buffer {
 public:
  static constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;

  huge_buffer() noexcept = default;
  // Throws std::bad_alloc when the mapping fails.
  explicit huge_buffer(std::size_t bytes, page_size pages = page_size::huge_2m, bool prefault = true);
  huge_buffer(huge_buffer&& other) noexcept;
  huge_buffer& operator=(huge_buffer&& other) noexcept;
  huge_buffer(const huge_buffer&) = delete;
  huge_buffer& operator=(const huge_buffer&) = delete;
  ~huge_buffer();

  [[nodiscard]] std::byte* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return bytes_; }
  [[nodiscard]] page_size requested_pages() const noexcept { return requested_; }

  // Bytes of this buffer currently backed by 2 MiB pages (read from /proc/self/smaps).
  [[nodiscard]] std::size_t obtained_huge_bytes() const;
  // Page size that backs most of the buffer: huge_2m when at least half is on huge pages.
  [[nodiscard]] page_size obtained_pages() const;
  // E.g. "2m (100% of 1024 MiB on 2 MiB pages)" or "4k (requested 2m; THP unavailable)".
  [[nodiscard]] std::string describe_pages() const;

 private:
  void release() noexcept;

  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
  std::size_t mapped_bytes_ = 0;
  page_size requested_ = page_size::huge_2m;
};

namespace detail {

// The bytes a 2 MiB-aligned mapping of `bytes` spans: whole huge pages.
constexpr std::size_t mapped_length(std::size_t bytes) noexcept {
  return (bytes + huge_buffer::huge_page_bytes - 1) / huge_buffer::huge_page_bytes * huge_buffer::huge_page_bytes;
}
// An anonymous mapping of mapped_length(bytes) bytes at a 2 MiB boundary, advised for huge
// pages (huge_2m) or against them (small_4k); untouched. Throws std::bad_alloc. Precondition:
// bytes > 0.
std::byte* map_2m_aligned(std::size_t bytes, page_size pages);
// Unmaps what map_2m_aligned(bytes, ...) returned.
void unmap_2m_aligned(std::byte* data, std::size_t bytes) noexcept;
// Bytes on 2 MiB pages (/proc/self/smaps) of the mappings that overlap [data, data + bytes):
// whole mappings, so a range inside one that is partly huge may be overcounted.
std::size_t huge_bytes_in(const void* data, std::size_t bytes);

}  // namespace detail

template <class T>
class huge_array {
  static_assert(std::is_trivially_default_constructible_v<T> && std::is_trivially_destructible_v<T>,
                "huge_array holds implicit-lifetime element types (zero-filled memory)");

 public:
  huge_array() noexcept = default;
  explicit huge_array(std::size_t count, page_size pages = page_size::huge_2m, bool prefault = true)
      : buffer_(count * sizeof(T), pages, prefault), count_(count) {}

  [[nodiscard]] T* data() const noexcept { return reinterpret_cast<T*>(buffer_.data()); }
  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  [[nodiscard]] bool empty() const noexcept { return count_ == 0; }
  T& operator[](std::size_t index) const noexcept { return data()[index]; }
  T* begin() const noexcept { return data(); }
  T* end() const noexcept { return data() + count_; }
  [[nodiscard]] std::span<T> span() const noexcept { return {data(), count_}; }
  [[nodiscard]] const huge_buffer& buffer() const noexcept { return buffer_; }

 private:
  huge_buffer buffer_;
  std::size_t count_ = 0;
};

}  // namespace braid
