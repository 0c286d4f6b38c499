// huge_buffer: alignment, zero fill, reporting of the page size actually obtained.
#include <gtest/gtest.h>

#include <cstdint>

#include "braid/core/huge_buffer.hpp"

namespace braid {
namespace {

TEST(HugeBuffer, IsAlignedZeroedAndWritable) {
  for (page_size pages : {page_size::small_4k, page_size::huge_2m}) {
    huge_array<std::uint64_t> array(3 * 1024 * 1024 / 8 + 5, pages);  // not a multiple of 2 MiB
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(array.data()) % huge_buffer::huge_page_bytes, 0u);
    for (std::uint64_t value : array) ASSERT_EQ(value, 0u);
    for (std::size_t i = 0; i < array.size(); ++i) array[i] = i;
    EXPECT_EQ(array[array.size() - 1], array.size() - 1);
    EXPECT_EQ(array.buffer().requested_pages(), pages);
    EXPECT_LE(array.buffer().obtained_huge_bytes(), 4u * 1024 * 1024);
    EXPECT_FALSE(array.buffer().describe_pages().empty());
  }
}

TEST(HugeBuffer, SmallPagesAreNeverHuge) {
  huge_buffer buffer(8 << 20, page_size::small_4k);
  EXPECT_EQ(buffer.obtained_huge_bytes(), 0u) << "MADV_NOHUGEPAGE forbids THP";
  EXPECT_EQ(buffer.obtained_pages(), page_size::small_4k);
}

TEST(HugeBuffer, ReportMatchesWhatTheKernelGave) {
  huge_buffer buffer(16 << 20, page_size::huge_2m);
  const std::size_t huge = buffer.obtained_huge_bytes();
  EXPECT_EQ(huge % huge_buffer::huge_page_bytes, 0u);
  EXPECT_EQ(buffer.obtained_pages() == page_size::huge_2m, huge * 2 >= buffer.size());
  if (huge == 0) {
    EXPECT_NE(buffer.describe_pages().find("did not provide"), std::string::npos);
  }
}

TEST(HugeBuffer, EmptyAndMoved) {
  huge_buffer empty(0);
  EXPECT_EQ(empty.data(), nullptr);
  EXPECT_EQ(empty.obtained_huge_bytes(), 0u);
  huge_buffer source(1 << 20);
  std::byte* data = source.data();
  huge_buffer target = std::move(source);
  EXPECT_EQ(target.data(), data);
  EXPECT_EQ(source.data(), nullptr);
}

}  // namespace
}  // namespace braid
