#include "braid/core/huge_buffer.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <new>
#include <sstream>
#include <utility>

namespace braid {

namespace {

std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

}  // namespace

namespace detail {

std::byte* map_2m_aligned(std::size_t bytes, page_size pages) {
  // Over-map by one huge page so the start can be aligned to 2 MiB, then trim the excess.
  const std::size_t length = mapped_length(bytes);
  const std::size_t over = length + huge_buffer::huge_page_bytes;
  void* raw = ::mmap(nullptr, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  auto* start = static_cast<std::byte*>(raw);
  auto* aligned = reinterpret_cast<std::byte*>(
      round_up(reinterpret_cast<std::uintptr_t>(start), huge_buffer::huge_page_bytes));
  if (aligned > start) ::munmap(start, static_cast<std::size_t>(aligned - start));
  std::byte* tail = aligned + length;
  std::byte* map_end = start + over;
  if (map_end > tail) ::munmap(tail, static_cast<std::size_t>(map_end - tail));
  ::madvise(aligned, length, pages == page_size::huge_2m ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  return aligned;
}

void unmap_2m_aligned(std::byte* data, std::size_t bytes) noexcept { ::munmap(data, mapped_length(bytes)); }

}  // namespace detail

huge_buffer::huge_buffer(std::size_t bytes, page_size pages, bool prefault)
    : bytes_(bytes), requested_(pages) {
  if (bytes == 0) return;
  data_ = detail::map_2m_aligned(bytes, pages);
  mapped_bytes_ = detail::mapped_length(bytes);
  if (prefault) {
    // Every 4 KiB page of the buffer, even when huge pages were asked for: if the kernel falls
    // back to small pages, none of them may fault later inside a timed region. With huge pages
    // the first touch maps 2 MiB and the other 511 touches are plain cached stores. The tail of
    // the mapping past the buffer (up to 2 MiB) is never read, so it is not touched: a small
    // buffer costs a few page faults, not 512.
    for (std::size_t offset = 0; offset < bytes_; offset += 4096) {
      *reinterpret_cast<volatile std::byte*>(data_ + offset) = std::byte{0};
    }
  }
}

huge_buffer::huge_buffer(huge_buffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      mapped_bytes_(std::exchange(other.mapped_bytes_, 0)),
      requested_(other.requested_) {}

huge_buffer& huge_buffer::operator=(huge_buffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    mapped_bytes_ = std::exchange(other.mapped_bytes_, 0);
    requested_ = other.requested_;
  }
  return *this;
}

huge_buffer::~huge_buffer() { release(); }

void huge_buffer::release() noexcept {
  if (data_ != nullptr) ::munmap(data_, mapped_bytes_);
  data_ = nullptr;
  bytes_ = mapped_bytes_ = 0;
}

std::size_t huge_buffer::obtained_huge_bytes() const {
  if (data_ == nullptr) return 0;
  return detail::huge_bytes_in(data_, mapped_bytes_);
}

std::size_t detail::huge_bytes_in(const void* data, std::size_t bytes) {
  // smaps lists each mapping as "start-end perms ..." followed by "Key: value kB" lines. THP
  // may split our mapping into several VMAs (some huge, some not): sum all that overlap it.
  std::ifstream smaps("/proc/self/smaps");
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const auto end = begin + bytes;
  std::string line;
  bool inside = false;
  std::size_t huge_kib = 0;
  while (std::getline(smaps, line)) {
    std::uintptr_t low = 0, high = 0;
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR " ", &low, &high) == 2 &&
        line.find(':') > line.find(' ')) {
      inside = low < end && high > begin;
      continue;
    }
    unsigned long long kib = 0;
    if (inside && std::sscanf(line.c_str(), "AnonHugePages: %llu kB", &kib) == 1) huge_kib += kib;
  }
  return huge_kib * 1024;
}

page_size huge_buffer::obtained_pages() const {
  return obtained_huge_bytes() * 2 >= mapped_bytes_ && mapped_bytes_ > 0 ? page_size::huge_2m
                                                                          : page_size::small_4k;
}

std::string huge_buffer::describe_pages() const {
  const std::size_t huge = obtained_huge_bytes();
  std::ostringstream text;
  const double percent = mapped_bytes_ == 0 ? 0.0 : 100.0 * static_cast<double>(huge) /
                                                        static_cast<double>(mapped_bytes_);
  text << to_string(obtained_pages()) << " (" << static_cast<int>(percent + 0.5) << "% of "
       << (mapped_bytes_ >> 20) << " MiB on 2 MiB pages";
  if (requested_ == page_size::huge_2m && obtained_pages() != page_size::huge_2m) {
    text << "; requested 2m, the kernel did not provide them";
  }
  text << ")";
  return text.str();
}

}  // namespace braid
