// micro_partition_block: micro partitioning (MxTasks, Mühlig 2023, Ch. 6): radix partitioning
// with no histogram pass. Tuple t goes to partition (t.key >> shift) & (2^bits - 1), written
// into that partition's current micro fragment, a slice of `fragment_tuples` tuples (128 or
// 256: 2 or 4 KiB) of one big contiguous block. A full fragment takes the next free one from
// an atomic fragment counter (the only synchronization the scheme needs); a partition is its
// directory of full fragments plus its last, partly filled one.
//
//   braid::join::micro_partition_block block({.bits = 12, .fragment_tuples = 128}, relation.size());
//   block.add(relation, [](std::size_t partition, const braid::join::tuple* full_fragment) { ... });
//   block.finish();
//   block.for_each_fragment(p, [](std::span<const braid::join::tuple> fragment) { ... });
//
// Why: a classical scatter writes to 2^bits places spread over the whole output, one page
// each; fragments of all partitions are handed out in ascending order from one block, so the
// pages being written at once are few (fewer STLB misses), and nothing is counted up front.
// The cost is the space of the partly filled fragments: at most fanout fragments.
//
// Software write-combine buffers (write_combine): one cache line per partition, written a
// line at a time with non-temporal stores where available; finish() writes the partial lines.
// Fragments are line-aligned and hold a multiple of 4 tuples, so every flush is a whole line.
//
// Layout invariant: the block is aligned to a fragment's size, every partition's cursor is a
// pointer into its current fragment, and a cursor on a fragment boundary after a write means
// that fragment is full (then it moves at once to a fresh fragment, so a cursor is never on a
// boundary between two adds unless its fragment is empty). Each partition starts with a
// fragment of its own (fragment p), so a block of n tuples needs at most n / fragment_tuples +
// fanout fragments, which is what it reserves (memory is only touched where written).
//
// Threads: a block belongs to one thread at a time (its partitions' cursors are plain memory);
// for multi-threaded partitioning each thread (core) fills its own block, and a partition is
// the union of its fragments in all blocks (micro_partition_parallel). on_full is called on
// the filling thread; with write-combining the stores of an add() are fenced before it returns.
//
// Complexity: O(1) per tuple, O(fanout) per reset and finish. Known limits: bits 1..20,
// fragment_tuples a power of two in 4..65536, at most max_tuples tuples between resets.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "braid/join/detail/aligned_buffer.hpp"
#include "braid/join/detail/streaming_store.hpp"
#include "braid/join/detail/thread_team.hpp"
#include "braid/join/radix_partition.hpp"
#include "braid/join/relation.hpp"

namespace braid::join {

inline constexpr std::size_t max_fragment_tuples = 65536;

struct micro_partition_options {
  unsigned bits = 10;
  unsigned shift = 0;
  std::size_t fragment_tuples = 256;  // a power of two, 4..65536
  bool write_combine = false;
};

inline void check_micro_partition_options(const micro_partition_options& options, const char* who) {
  check_radix_bits(options.bits, options.shift, who);
  const std::size_t capacity = options.fragment_tuples;
  if (capacity < detail::tuples_per_line || capacity > max_fragment_tuples || (capacity & (capacity - 1)) != 0) {
    throw std::invalid_argument(std::string(who) + ": fragment capacity must be a power of two in 4.." +
                                std::to_string(max_fragment_tuples) + " tuples, not " + std::to_string(capacity));
  }
}

class micro_partition_block {
 public:
  // A block for up to `max_tuples` tuples.
  micro_partition_block(const micro_partition_options& options, std::size_t max_tuples) : options_(options) {
    check_micro_partition_options(options, "micro_partition_block");
    reset(max_tuples);
  }
  micro_partition_block(micro_partition_block&& other) noexcept
      : options_(other.options_),
        block_(std::move(other.block_)),
        cursors_(std::move(other.cursors_)),
        directories_(std::move(other.directories_)),
        buffers_(std::move(other.buffers_)),
        next_fragment_(other.next_fragment_.load(std::memory_order_relaxed)),
        fragment_count_(other.fragment_count_),
        max_tuples_(other.max_tuples_),
        size_(other.size_) {}
  micro_partition_block& operator=(micro_partition_block&&) = delete;
  micro_partition_block(const micro_partition_block&) = delete;
  micro_partition_block& operator=(const micro_partition_block&) = delete;

  // Empties the block for another input of at most `max_tuples` tuples (memory is reused).
  void reset(std::size_t max_tuples) {
    const std::size_t fanout = this->fanout();
    const std::size_t capacity = options_.fragment_tuples;
    fragment_count_ = max_tuples / capacity + fanout;
    block_.ensure(fragment_count_ * capacity, capacity * sizeof(tuple));
    cursors_.resize(fanout);
    directories_.resize(fanout);
    for (std::size_t p = 0; p < fanout; ++p) {
      cursors_[p] = block_.data() + p * capacity;
      directories_[p].clear();
    }
    if (options_.write_combine) buffers_.ensure(fanout, detail::line_bytes);
    next_fragment_.store(fanout, std::memory_order_relaxed);
    max_tuples_ = max_tuples;
    size_ = 0;
  }

  // Appends `input`; on_full(partition, fragment) is called for each fragment that fills.
  template <class OnFull>
  void add(std::span<const tuple> input, OnFull&& on_full) {
    if (input.size() > max_tuples_ - size_) {
      throw std::length_error("micro_partition_block: more tuples than the block was reset for (" +
                              std::to_string(max_tuples_) + ")");
    }
    size_ += input.size();
    if (options_.write_combine) {
      add_write_combined(input, on_full);
    } else {
      add_plain(input, on_full);
    }
  }
  void add(std::span<const tuple> input) {
    add(input, [](std::size_t, const tuple*) noexcept {});
  }

  // Writes what the write-combine buffers still hold: afterwards every open fragment is
  // complete in memory. Adding may go on after it.
  void finish() noexcept {
    if (!options_.write_combine) return;
    for (std::size_t p = 0; p < fanout(); ++p) {
      tuple* cursor = cursors_[p];
      const std::size_t slot = line_slot(cursor);
      if (slot != 0) std::memcpy(cursor - slot, buffers_[p].slots, slot * sizeof(tuple));
    }
  }

  [[nodiscard]] const micro_partition_options& options() const noexcept { return options_; }
  [[nodiscard]] std::size_t fanout() const noexcept { return std::size_t{1} << options_.bits; }
  [[nodiscard]] std::size_t fragment_tuples() const noexcept { return options_.fragment_tuples; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  // Fragments handed out so far, the partitions' first ones included.
  [[nodiscard]] std::size_t fragments_used() const noexcept { return next_fragment_.load(std::memory_order_relaxed); }
  [[nodiscard]] std::size_t fragments_reserved() const noexcept { return fragment_count_; }

  // Indexes of partition p's full fragments, in the order they filled.
  [[nodiscard]] std::span<const std::uint32_t> directory(std::size_t partition) const noexcept {
    return directories_[partition];
  }
  [[nodiscard]] const tuple* fragment(std::uint32_t index) const noexcept {
    return block_.data() + std::size_t{index} * options_.fragment_tuples;
  }
  // Partition p's last, partly filled fragment (complete in memory after finish()).
  [[nodiscard]] std::span<const tuple> open_fragment(std::size_t partition) const noexcept {
    tuple* cursor = cursors_[partition];
    const tuple* start = fragment_start(cursor);
    return {start, static_cast<std::size_t>(cursor - start)};
  }
  [[nodiscard]] std::size_t partition_size(std::size_t partition) const noexcept {
    return directories_[partition].size() * options_.fragment_tuples + open_fragment(partition).size();
  }
  // visit(std::span<const tuple>) for each full fragment of the partition, then its open one if not empty.
  template <class Visit>
  void for_each_fragment(std::size_t partition, Visit&& visit) const {
    for (std::uint32_t index : directories_[partition]) {
      visit(std::span<const tuple>(fragment(index), options_.fragment_tuples));
    }
    if (const std::span<const tuple> open = open_fragment(partition); !open.empty()) visit(open);
  }

 private:
  [[nodiscard]] std::size_t fragment_bytes() const noexcept { return options_.fragment_tuples * sizeof(tuple); }
  // A local copy of the mask keeps the hot loops from reloading it after every tuple store
  // (a tuple's 64-bit fields may alias the options' sizes).
  static bool on_fragment_boundary(const tuple* cursor, std::uintptr_t boundary_mask) noexcept {
    return (reinterpret_cast<std::uintptr_t>(cursor) & boundary_mask) == 0;
  }
  [[nodiscard]] const tuple* fragment_start(const tuple* cursor) const noexcept {
    const std::size_t offset = static_cast<std::size_t>(cursor - block_.data());
    return block_.data() + (offset & ~(options_.fragment_tuples - 1));
  }
  static std::size_t line_slot(const tuple* cursor) noexcept {
    return (reinterpret_cast<std::uintptr_t>(cursor) / sizeof(tuple)) & (detail::tuples_per_line - 1);
  }

  // Partition p's cursor has just reached the end of its fragment: record the fragment, report
  // it, and take the next one from the counter.
  template <class OnFull>
  void take_next_fragment(std::size_t partition, OnFull& on_full) {
    tuple*& cursor = cursors_[partition];
    const tuple* full = cursor - options_.fragment_tuples;
    directories_[partition].push_back(
        static_cast<std::uint32_t>(static_cast<std::size_t>(full - block_.data()) / options_.fragment_tuples));
    const std::size_t next = next_fragment_.fetch_add(1, std::memory_order_relaxed);
    cursor = block_.data() + next * options_.fragment_tuples;
    on_full(partition, full);
  }

  template <class OnFull>
  void add_plain(std::span<const tuple> input, OnFull& on_full) {
    const unsigned shift = options_.shift;
    const std::uint64_t mask = fanout() - 1;
    const std::uintptr_t boundary_mask = fragment_bytes() - 1;
    tuple** cursors = cursors_.data();
    for (const tuple& t : input) {
      const std::size_t p = (t.key >> shift) & mask;
      tuple* cursor = cursors[p];
      *cursor++ = t;
      cursors[p] = cursor;
      if (on_fragment_boundary(cursor, boundary_mask)) [[unlikely]] take_next_fragment(p, on_full);
    }
  }

  template <class OnFull>
  void add_write_combined(std::span<const tuple> input, OnFull& on_full) {
    const unsigned shift = options_.shift;
    const std::uint64_t mask = fanout() - 1;
    const std::uintptr_t boundary_mask = fragment_bytes() - 1;
    tuple** cursors = cursors_.data();
    detail::line_buffer* buffers = buffers_.data();
    for (const tuple& t : input) {
      const std::size_t p = (t.key >> shift) & mask;
      tuple* cursor = cursors[p];
      const std::size_t slot = line_slot(cursor);
      buffers[p].slots[slot] = t;
      cursors[p] = ++cursor;
      if (slot == detail::tuples_per_line - 1) {
        detail::stream_line(cursor - detail::tuples_per_line, buffers[p]);
        if (on_fragment_boundary(cursor, boundary_mask)) [[unlikely]] take_next_fragment(p, on_full);
      }
    }
    detail::store_fence();
  }

  micro_partition_options options_;
  detail::aligned_buffer<tuple> block_;
  std::vector<tuple*> cursors_;  // per partition: where its next tuple goes
  std::vector<std::vector<std::uint32_t>> directories_;
  detail::aligned_buffer<detail::line_buffer> buffers_;
  std::atomic<std::size_t> next_fragment_{0};
  std::size_t fragment_count_ = 0;
  std::size_t max_tuples_ = 0;
  std::size_t size_ = 0;
};

// Micro-partitions `input` with `threads` threads, each filling its own block from its
// contiguous share of the input; the blocks come back finished.
inline std::vector<micro_partition_block> micro_partition_parallel(std::span<const tuple> input,
                                                                   const micro_partition_options& options,
                                                                   unsigned threads) {
  check_micro_partition_options(options, "micro_partition_parallel");
  if (threads == 0 || threads > max_partition_threads) {
    throw std::invalid_argument("micro_partition_parallel: threads must be 1.." +
                                std::to_string(max_partition_threads) + ", not " + std::to_string(threads));
  }
  const std::size_t n = input.size();
  auto share = [&](unsigned thread) {
    return input.subspan(n * thread / threads, n * (thread + 1) / threads - n * thread / threads);
  };
  std::vector<micro_partition_block> blocks;
  blocks.reserve(threads);
  for (unsigned thread = 0; thread < threads; ++thread) blocks.emplace_back(options, share(thread).size());
  detail::run_on_threads(threads, [&](unsigned thread) {
    blocks[thread].add(share(thread));
    blocks[thread].finish();
  });
  return blocks;
}

}  // namespace braid::join
