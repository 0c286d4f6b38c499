// huge_page_allocator: large arrays are their own 2 MiB-aligned mappings with the page size
// asked for, small ones come from operator new, and contents and the page size survive
// growth, copies and moves.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "braid/core/huge_page_allocator.hpp"

namespace braid {
namespace {

using words = std::vector<std::uint64_t, huge_page_allocator<std::uint64_t>>;
constexpr std::size_t large_count = huge_page_allocator<std::uint64_t>::mapping_threshold_bytes / 8 + 3;

bool on_a_2m_boundary(const void* data) { return reinterpret_cast<std::uintptr_t>(data) % huge_buffer::huge_page_bytes == 0; }

TEST(HugePageAllocator, LargeArraysAreMappedWithThePagesAsked) {
  for (page_size pages : {page_size::small_4k, page_size::huge_2m}) {
    words w(large_count, 7, huge_page_allocator<std::uint64_t>(pages));
    EXPECT_TRUE(on_a_2m_boundary(w.data()));
    EXPECT_EQ(w.get_allocator().pages(), pages);
    for (std::uint64_t v : w) ASSERT_EQ(v, 7u);
    const std::size_t huge = detail::huge_bytes_in(w.data(), w.size() * sizeof(std::uint64_t));
    if (pages == page_size::small_4k) {
      EXPECT_EQ(huge, 0u) << "MADV_NOHUGEPAGE forbids THP";
    } else {
      EXPECT_LE(huge, detail::mapped_length(w.size() * sizeof(std::uint64_t)));  // what the kernel gave
    }
  }
}

TEST(HugePageAllocator, GrowthCopiesAndMovesKeepValuesAndPages) {
  words w{huge_page_allocator<std::uint64_t>(page_size::small_4k)};
  for (std::uint64_t i = 0; i < large_count * 2; ++i) w.push_back(i * 3);  // crosses the threshold
  EXPECT_TRUE(on_a_2m_boundary(w.data()));
  words copy = w;
  EXPECT_EQ(copy, w);
  EXPECT_EQ(copy.get_allocator().pages(), page_size::small_4k);
  words assigned;
  assigned = copy;
  EXPECT_EQ(assigned.get_allocator().pages(), page_size::small_4k);
  words moved = std::move(copy);
  EXPECT_EQ(moved, w);
  w.resize(5);
  w.shrink_to_fit();  // back under the threshold: operator new
  EXPECT_EQ(w, (words{0, 3, 6, 9, 12}));
  std::uint64_t sum = std::accumulate(moved.begin(), moved.end(), std::uint64_t{0});
  EXPECT_EQ(sum, 3 * (large_count * 2) * (large_count * 2 - 1) / 2);
}

TEST(HugePageAllocator, SmallArraysAndEmptyVectors) {
  words empty;
  EXPECT_TRUE(empty.empty());
  words small(100, 1);
  EXPECT_EQ(std::accumulate(small.begin(), small.end(), std::uint64_t{0}), 100u);
  EXPECT_TRUE(huge_page_allocator<int>() == huge_page_allocator<std::uint64_t>(page_size::small_4k));
  EXPECT_THROW((void)huge_page_allocator<std::uint64_t>().allocate(std::size_t(-1) / 4), std::bad_array_new_length);
}

}  // namespace
}  // namespace braid
