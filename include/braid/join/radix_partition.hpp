// radix_partition: the classical radix partitioning of the hardware-conscious joins (Manegold
// et al., Balkesen et al.): tuple t goes to partition (t.key >> shift) & (2^bits - 1).
//
//   braid::join::partitioned_relation parts;
//   braid::join::radix_partition_into(relation, {.bits = 12, .write_combine = true, .threads = 2}, parts);
//   for (std::size_t p = 0; p < parts.fanout(); ++p) use(parts.partition(p));
//
// One pass = histogram (count per partition), prefix sum (where each partition starts), scatter
// (each tuple to its partition's next slot). Multi-threaded: each thread counts its contiguous
// share of the input, one prefix sum over all threads' histograms gives every thread its own
// range inside each partition, and each thread scatters its share into its ranges; partitions
// come out contiguous, threads' tuples in thread order, each thread's in input order.
//
// Software write-combine buffers (write_combine): the scatter fills one cache line per
// partition in a small buffer and writes a full line at a time, with non-temporal stores where
// available (detail/streaming_store.hpp): one line of store traffic per 4 tuples and no
// read-for-ownership of the output. A line shared with a neighbouring range (a partition's or a
// thread's first and last line) is written with plain stores of just this range's tuples.
//
// Two passes split the bits: the first pass partitions on the high bits - bits/2, then each of
// its partitions (handed to threads by an atomic counter) is partitioned on the low bits/2
// into the same region of the output, so the result is laid out as a one-pass partitioning.
// Fewer partitions per pass means fewer TLB entries and buffer lines in use at once.
//
// Complexity: O(n + fanout) per pass and thread; memory: the output (and, with two passes, a
// scratch copy), fanout counters per thread and, with write-combining, fanout lines per thread.
// Known limits: bits 1..20, passes 1..2 (two passes need bits >= 2), shift + bits <= 64.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "braid/join/detail/aligned_buffer.hpp"
#include "braid/join/detail/streaming_store.hpp"
#include "braid/join/detail/thread_team.hpp"
#include "braid/join/relation.hpp"

namespace braid::join {

inline constexpr unsigned max_radix_bits = 20;
inline constexpr unsigned max_partition_threads = 1024;

struct radix_partition_options {
  unsigned bits = 10;           // fan-out 2^bits, 1..20
  unsigned shift = 0;           // the partition bits start at this bit of the key
  unsigned passes = 1;          // 1 or 2
  bool write_combine = false;   // software write-combine buffers
  unsigned threads = 1;
};

// The partition of `key`.
constexpr std::size_t radix_of(std::uint64_t key, unsigned shift, unsigned bits) noexcept {
  return static_cast<std::size_t>((key >> shift) & ((std::uint64_t{1} << bits) - 1));
}

// Throws std::invalid_argument naming `who` when bits, shift, passes or threads are out of range.
inline void check_radix_bits(unsigned bits, unsigned shift, const char* who) {
  if (bits == 0 || bits > max_radix_bits) {
    throw std::invalid_argument(std::string(who) + ": radix bits must be 1.." + std::to_string(max_radix_bits) +
                                ", not " + std::to_string(bits));
  }
  if (shift + bits > 64) {
    throw std::invalid_argument(std::string(who) + ": shift " + std::to_string(shift) + " + bits " +
                                std::to_string(bits) + " exceeds the 64-bit key");
  }
}

inline void check_partition_options(const radix_partition_options& options, const char* who) {
  check_radix_bits(options.bits, options.shift, who);
  if (options.passes != 1 && options.passes != 2) {
    throw std::invalid_argument(std::string(who) + ": passes must be 1 or 2, not " + std::to_string(options.passes));
  }
  if (options.passes == 2 && options.bits < 2) {
    throw std::invalid_argument(std::string(who) + ": two passes need at least 2 radix bits");
  }
  if (options.threads == 0 || options.threads > max_partition_threads) {
    throw std::invalid_argument(std::string(who) + ": threads must be 1.." + std::to_string(max_partition_threads) +
                                ", not " + std::to_string(options.threads));
  }
}

// A relation laid out partition after partition, with the offsets of the partitions.
class partitioned_relation {
 public:
  [[nodiscard]] std::size_t fanout() const noexcept { return offsets_.empty() ? 0 : offsets_.size() - 1; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::span<const tuple> partition(std::size_t index) const noexcept {
    return {data_.data() + offsets_[index], offsets_[index + 1] - offsets_[index]};
  }
  [[nodiscard]] std::span<const tuple> tuples() const noexcept { return {data_.data(), size_}; }
  // fanout() + 1 entries: partition p is [offsets()[p], offsets()[p + 1]).
  [[nodiscard]] const std::vector<std::size_t>& offsets() const noexcept { return offsets_; }

 private:
  friend void radix_partition_into(std::span<const tuple>, const radix_partition_options&, partitioned_relation&);

  detail::aligned_buffer<tuple> data_;
  detail::aligned_buffer<tuple> scratch_;  // the first pass's output, with two passes
  std::vector<std::size_t> offsets_;
  std::size_t size_ = 0;
};

namespace detail {

inline void count_partitions(std::span<const tuple> input, unsigned shift, unsigned bits, std::size_t* counts) noexcept {
  const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
  for (const tuple& t : input) ++counts[(t.key >> shift) & mask];
}

// Each tuple to out[cursor[p]++].
inline void scatter_plain(std::span<const tuple> input, tuple* out, std::size_t* cursor, unsigned shift,
                          unsigned bits) noexcept {
  const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
  for (const tuple& t : input) out[cursor[(t.key >> shift) & mask]++] = t;
}

// As scatter_plain through one line buffer per partition (core/detail/streaming_store.hpp).
// `out` is 64-byte aligned; this writer owns [begin[p], end of its range) of partition p;
// cursor[p] starts at begin[p].
inline void scatter_write_combined(std::span<const tuple> input, tuple* out, std::size_t* cursor,
                                   const std::size_t* begin, unsigned shift, unsigned bits,
                                   line_buffer* buffers) noexcept {
  const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
  braid::detail::scatter_write_combined(input.data(), out, input.size(), begin, cursor, buffers, std::size_t{1} << bits,
                                        [mask, shift](const tuple& t) { return static_cast<std::size_t>((t.key >> shift) & mask); });
}

// One thread partitions out[region_begin, region_begin + input.size()) from `input`;
// offsets[0..fanout) receive the partitions' absolute starts.
inline void partition_region(std::span<const tuple> input, tuple* out, std::size_t region_begin, unsigned shift,
                             unsigned bits, bool write_combine, std::size_t* offsets,
                             std::vector<std::size_t>& cursor, aligned_buffer<line_buffer>& buffers) {
  const std::size_t fanout = std::size_t{1} << bits;
  cursor.assign(fanout, 0);
  count_partitions(input, shift, bits, cursor.data());
  std::size_t running = region_begin;
  for (std::size_t p = 0; p < fanout; ++p) {
    const std::size_t count = cursor[p];
    offsets[p] = cursor[p] = running;
    running += count;
  }
  if (write_combine) {
    buffers.ensure(fanout, line_bytes);
    scatter_write_combined(input, out, cursor.data(), offsets, shift, bits, buffers.data());
  } else {
    scatter_plain(input, out, cursor.data(), shift, bits);
  }
}

// One pass of `threads` threads over all of `input` into `out`; offsets[0..fanout] receive the
// partitions' starts and the end.
inline void partition_pass(std::span<const tuple> input, tuple* out, unsigned shift, unsigned bits,
                           bool write_combine, unsigned threads, std::size_t* offsets) {
  const std::size_t fanout = std::size_t{1} << bits;
  const std::size_t n = input.size();
  if (threads == 1) {
    std::vector<std::size_t> cursor;
    aligned_buffer<line_buffer> buffers;
    partition_region(input, out, 0, shift, bits, write_combine, offsets, cursor, buffers);
    offsets[fanout] = n;
    return;
  }
  auto share = [&](unsigned thread) {
    return input.subspan(n * thread / threads, n * (thread + 1) / threads - n * thread / threads);
  };
  std::vector<std::vector<std::size_t>> cursors(threads, std::vector<std::size_t>(fanout, 0));
  run_on_threads(threads, [&](unsigned thread) { count_partitions(share(thread), shift, bits, cursors[thread].data()); });
  std::size_t running = 0;
  for (std::size_t p = 0; p < fanout; ++p) {
    offsets[p] = running;
    for (unsigned thread = 0; thread < threads; ++thread) {
      const std::size_t count = cursors[thread][p];
      cursors[thread][p] = running;
      running += count;
    }
  }
  offsets[fanout] = n;
  run_on_threads(threads, [&](unsigned thread) {
    std::vector<std::size_t>& cursor = cursors[thread];
    if (!write_combine) {
      scatter_plain(share(thread), out, cursor.data(), shift, bits);
      return;
    }
    const std::vector<std::size_t> begin = cursor;
    aligned_buffer<line_buffer> buffers(fanout, line_bytes);
    scatter_write_combined(share(thread), out, cursor.data(), begin.data(), shift, bits, buffers.data());
  });
}

}  // namespace detail

// Partitions `input` into `out`, reusing out's memory when it is large enough.
inline void radix_partition_into(std::span<const tuple> input, const radix_partition_options& options,
                                 partitioned_relation& out) {
  check_partition_options(options, "radix_partition");
  const std::size_t n = input.size();
  const std::size_t fanout = std::size_t{1} << options.bits;
  out.data_.ensure(n, detail::line_bytes);
  out.offsets_.assign(fanout + 1, 0);
  out.size_ = n;
  if (options.passes == 1) {
    detail::partition_pass(input, out.data_.data(), options.shift, options.bits, options.write_combine,
                           options.threads, out.offsets_.data());
    return;
  }
  const unsigned low_bits = options.bits / 2;
  const unsigned high_bits = options.bits - low_bits;
  const std::size_t high_fanout = std::size_t{1} << high_bits;
  const std::size_t low_fanout = std::size_t{1} << low_bits;
  out.scratch_.ensure(n, detail::line_bytes);
  std::vector<std::size_t> first_offsets(high_fanout + 1);
  detail::partition_pass(input, out.scratch_.data(), options.shift + low_bits, high_bits, options.write_combine,
                         options.threads, first_offsets.data());
  std::atomic<std::size_t> next_partition{0};
  detail::run_on_threads(options.threads, [&](unsigned) {
    std::vector<std::size_t> cursor;
    detail::aligned_buffer<detail::line_buffer> buffers;
    for (std::size_t high = next_partition.fetch_add(1, std::memory_order_relaxed); high < high_fanout;
         high = next_partition.fetch_add(1, std::memory_order_relaxed)) {
      const std::size_t begin = first_offsets[high];
      const std::span<const tuple> region(out.scratch_.data() + begin, first_offsets[high + 1] - begin);
      detail::partition_region(region, out.data_.data(), begin, options.shift, low_bits, options.write_combine,
                               out.offsets_.data() + high * low_fanout, cursor, buffers);
    }
  });
  out.offsets_[fanout] = n;
}

inline partitioned_relation radix_partition(std::span<const tuple> input, const radix_partition_options& options) {
  partitioned_relation out;
  radix_partition_into(input, options, out);
  return out;
}

}  // namespace braid::join
