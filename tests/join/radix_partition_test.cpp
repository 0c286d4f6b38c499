// Radix partitioning and micro partitioning: every tuple lands exactly once, in the partition
// its bits name, in input order within its partition (both schemes are stable: each thread's
// share is a contiguous range of the input and lands in thread order), for bits 1..14, one and
// two passes, write-combine buffers on and off, awkward sizes and 1..3 threads; micro
// fragments' directories cover every tuple, full fragments are exactly full and reported once.
// braid-test: concurrent
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <span>
#include <stdexcept>
#include <vector>

#include "braid/join/micro_partition.hpp"
#include "braid/join/radix_partition.hpp"
#include "join/reference_join.hpp"

namespace braid::join {
namespace {

constexpr std::uint64_t max_key = std::numeric_limits<std::uint64_t>::max();

// Full-width random keys, with the extreme keys sprinkled in.
std::vector<tuple> input_of(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<tuple> input(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t draw = rng();
    const std::uint64_t key = i % 17 == 3 ? 0 : i % 17 == 5 ? max_key : draw;
    input[i] = {key, i};  // payload = input position: identifies each tuple
  }
  return input;
}

// Partition p's tuples in input order.
std::vector<std::vector<tuple>> expected_partitions(std::span<const tuple> input, unsigned bits, unsigned shift) {
  std::vector<std::vector<tuple>> expected(std::size_t{1} << bits);
  for (const tuple& t : input) expected[radix_of(t.key, shift, bits)].push_back(t);
  return expected;
}

void expect_partitioned(std::span<const tuple> input, const partitioned_relation& parts, unsigned bits, unsigned shift) {
  ASSERT_EQ(parts.fanout(), std::size_t{1} << bits);
  ASSERT_EQ(parts.size(), input.size());
  ASSERT_EQ(parts.offsets().front(), 0u);
  ASSERT_EQ(parts.offsets().back(), input.size());
  const auto expected = expected_partitions(input, bits, shift);
  for (std::size_t p = 0; p < parts.fanout(); ++p) {
    const std::span<const tuple> got = parts.partition(p);
    ASSERT_EQ(std::vector<tuple>(got.begin(), got.end()), expected[p]) << "partition " << p;
  }
}

TEST(RadixPartition, EveryTupleLandsOnceInItsPartitionInInputOrder) {
  for (unsigned bits = 1; bits <= 14; ++bits) {
    for (unsigned passes : {1u, 2u}) {
      if (passes == 2 && bits < 2) continue;
      for (bool write_combine : {false, true}) {
        for (unsigned threads : {1u, 2u, 3u}) {
          for (std::size_t size : {0u, 1u, 3u, 1001u, 4099u}) {
            SCOPED_TRACE(::testing::Message() << "bits " << bits << " passes " << passes << " wc " << write_combine
                                            << " threads " << threads << " size " << size);
            const std::vector<tuple> input = input_of(size, bits * 1000 + size);
            const radix_partition_options options{.bits = bits, .shift = 0, .passes = passes,
                                                  .write_combine = write_combine, .threads = threads};
            expect_partitioned(input, radix_partition(input, options), bits, 0);
          }
        }
      }
    }
  }
}

TEST(RadixPartition, ShiftSelectsHigherBitsAndTheBufferIsReused) {
  partitioned_relation parts;
  for (unsigned shift : {0u, 7u, 50u}) {
    for (bool write_combine : {false, true}) {
      for (std::size_t size : {5000u, 37u, 0u, 2000u}) {
        const std::vector<tuple> input = input_of(size, shift + size);
        radix_partition_into(input, {.bits = 14, .shift = shift, .passes = 2, .write_combine = write_combine, .threads = 2},
                             parts);
        expect_partitioned(input, parts, 14, shift);
      }
    }
  }
  const std::vector<tuple> input = input_of(300, 9);
  expect_partitioned(input, radix_partition(input, {.bits = 4, .shift = 60}), 4, 60);
}

TEST(RadixPartition, SkewedInputLandsInOnePartition) {
  std::vector<tuple> input = input_of(3001, 4);
  for (tuple& t : input) t.key <<= 14;  // low 14 bits all zero
  for (unsigned threads : {1u, 2u}) {
    for (bool write_combine : {false, true}) {
      const partitioned_relation parts = radix_partition(input, {.bits = 14, .passes = 2, .write_combine = write_combine,
                                                                 .threads = threads});
      expect_partitioned(input, parts, 14, 0);
      EXPECT_EQ(parts.partition(0).size(), input.size());
    }
  }
}

TEST(RadixPartition, RefusesBadArguments) {
  const std::vector<tuple> input = input_of(10, 1);
  EXPECT_THROW((void)radix_partition(input, {.bits = 0}), std::invalid_argument);
  EXPECT_THROW((void)radix_partition(input, {.bits = 21}), std::invalid_argument);
  EXPECT_THROW((void)radix_partition(input, {.bits = 8, .shift = 57}), std::invalid_argument);
  EXPECT_THROW((void)radix_partition(input, {.bits = 8, .passes = 0}), std::invalid_argument);
  EXPECT_THROW((void)radix_partition(input, {.bits = 8, .passes = 3}), std::invalid_argument);
  EXPECT_THROW((void)radix_partition(input, {.bits = 1, .passes = 2}), std::invalid_argument);
  EXPECT_THROW((void)radix_partition(input, {.bits = 8, .threads = 0}), std::invalid_argument);
  EXPECT_NO_THROW((void)radix_partition(input, {.bits = 20}));
}

// ---- micro partitioning --------------------------------------------------------------------

struct reported_fragment {
  std::size_t partition;
  const tuple* data;
  friend bool operator==(const reported_fragment&, const reported_fragment&) = default;
  friend bool operator<(const reported_fragment& a, const reported_fragment& b) {
    return a.partition != b.partition ? a.partition < b.partition : a.data < b.data;
  }
};

// Concatenates partition p's fragments over the blocks, checking the fragment invariants.
void expect_micro_partitioned(std::span<const tuple> input, const std::vector<micro_partition_block>& blocks,
                              const micro_partition_options& options, const std::set<reported_fragment>* reported) {
  const std::size_t fanout = std::size_t{1} << options.bits;
  const auto expected = expected_partitions(input, options.bits, options.shift);
  std::set<reported_fragment> in_directories;
  std::size_t total = 0;
  for (std::size_t p = 0; p < fanout; ++p) {
    std::vector<tuple> got;
    for (const micro_partition_block& block : blocks) {
      ASSERT_EQ(block.fanout(), fanout);
      ASSERT_LE(block.fragments_used(), block.fragments_reserved());
      for (std::uint32_t index : block.directory(p)) in_directories.insert({p, block.fragment(index)});
      EXPECT_LT(block.open_fragment(p).size(), options.fragment_tuples) << "a full fragment is never left open";
      std::size_t visited = 0;
      block.for_each_fragment(p, [&](std::span<const tuple> fragment) {
        EXPECT_FALSE(fragment.empty());
        EXPECT_LE(fragment.size(), options.fragment_tuples);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(fragment.data()) % (options.fragment_tuples * sizeof(tuple)), 0u);
        got.insert(got.end(), fragment.begin(), fragment.end());
        visited += fragment.size();
      });
      EXPECT_EQ(visited, block.partition_size(p));
      total += visited;
    }
    ASSERT_EQ(got, expected[p]) << "partition " << p;
  }
  EXPECT_EQ(total, input.size());
  if (reported != nullptr) {
    EXPECT_TRUE(*reported == in_directories) << "on_full reports exactly the directory's fragments";
  }
}

TEST(MicroPartition, DirectoriesCoverEveryTupleOnceInInputOrder) {
  for (unsigned bits = 1; bits <= 14; ++bits) {
    for (std::size_t capacity : {4u, 128u, 256u}) {
      for (bool write_combine : {false, true}) {
        for (std::size_t size : {0u, 1u, 1001u, 5000u}) {
          SCOPED_TRACE(::testing::Message() << "bits " << bits << " capacity " << capacity << " wc " << write_combine
                                          << " size " << size);
          const micro_partition_options options{.bits = bits, .shift = 0, .fragment_tuples = capacity,
                                                .write_combine = write_combine};
          const std::vector<tuple> input = input_of(size, bits * 7 + size);
          std::vector<micro_partition_block> blocks;
          blocks.emplace_back(options, size);
          std::set<reported_fragment> reported;
          // Added in uneven pieces: a block goes on where the last add stopped.
          std::size_t first = 0;
          for (std::size_t piece = 1; first < size; piece = piece * 3 + 1) {
            const std::size_t count = std::min(piece, size - first);
            blocks[0].add(std::span<const tuple>(input).subspan(first, count), [&](std::size_t p, const tuple* full) {
              EXPECT_TRUE(reported.insert({p, full}).second) << "reported twice";
            });
            first += count;
          }
          blocks[0].finish();
          EXPECT_EQ(blocks[0].size(), size);
          expect_micro_partitioned(input, blocks, options, &reported);
        }
      }
    }
  }
}

TEST(MicroPartition, PerThreadBlocks) {
  for (unsigned bits : {1u, 6u, 12u}) {
    for (std::size_t capacity : {128u, 256u}) {
      for (bool write_combine : {false, true}) {
        for (unsigned threads : {1u, 2u, 3u}) {
          for (std::size_t size : {0u, 1u, 4099u}) {
            SCOPED_TRACE(::testing::Message() << "bits " << bits << " capacity " << capacity << " wc " << write_combine
                                            << " threads " << threads << " size " << size);
            const micro_partition_options options{.bits = bits, .shift = 3, .fragment_tuples = capacity,
                                                  .write_combine = write_combine};
            const std::vector<tuple> input = input_of(size, size + threads);
            const std::vector<micro_partition_block> blocks = micro_partition_parallel(input, options, threads);
            ASSERT_EQ(blocks.size(), threads);
            expect_micro_partitioned(input, blocks, options, nullptr);
          }
        }
      }
    }
  }
}

TEST(MicroPartition, SkewFillsOnePartitionsFragmentsAndResetReuses) {
  std::vector<tuple> input = input_of(2000, 5);
  for (tuple& t : input) t.key <<= 10;
  micro_partition_options options{.bits = 10, .shift = 0, .fragment_tuples = 128, .write_combine = true};
  micro_partition_block block(options, input.size());
  block.add(input);
  block.finish();
  EXPECT_EQ(block.partition_size(0), input.size());
  EXPECT_EQ(block.directory(0).size(), input.size() / 128);
  EXPECT_EQ(block.open_fragment(0).size(), input.size() % 128);
  block.reset(300);
  const std::vector<tuple> again = input_of(300, 6);
  block.add(again);
  block.finish();
  std::vector<micro_partition_block> blocks;
  blocks.push_back(std::move(block));
  expect_micro_partitioned(again, blocks, options, nullptr);
}

TEST(MicroPartition, RefusesBadArguments) {
  EXPECT_THROW(micro_partition_block({.bits = 0}, 10), std::invalid_argument);
  EXPECT_THROW(micro_partition_block({.bits = 21}, 10), std::invalid_argument);
  EXPECT_THROW(micro_partition_block({.bits = 4, .fragment_tuples = 0}, 10), std::invalid_argument);
  EXPECT_THROW(micro_partition_block({.bits = 4, .fragment_tuples = 2}, 10), std::invalid_argument);
  EXPECT_THROW(micro_partition_block({.bits = 4, .fragment_tuples = 100}, 10), std::invalid_argument);
  EXPECT_THROW(micro_partition_block({.bits = 4, .fragment_tuples = 131072}, 10), std::invalid_argument);
  EXPECT_THROW((void)micro_partition_parallel({}, {.bits = 4}, 0), std::invalid_argument);
  micro_partition_block block({.bits = 4, .fragment_tuples = 128}, 10);
  const std::vector<tuple> input = input_of(11, 1);
  EXPECT_THROW(block.add(input), std::length_error) << "more than the block was sized for";
}

}  // namespace
}  // namespace braid::join
