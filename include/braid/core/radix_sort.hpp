// radix_sort: radix sorts for integer keys, the sort behind braid's bulk loads and the
// benchmark's key sets.
//
//   braid::radix_sort(std::span(keys));                                   // == std::sort
//   braid::radix_sort_by(std::span(items), [](const item& i) { return i.key; });   // stable
//   braid::sort_keys(std::span(keys));          // radix for integers, std::sort for the rest
//   braid::stable_sort_by_key(std::span(items), key_of);   // likewise, stable
//
// What: radix_sort_by is a least-significant-digit sort: one counting pass builds the
// histograms of every byte of the key, then one scatter pass per byte, from the least
// significant up, moves the items into a scratch array and back, through software
// write-combine buffers (a full cache line per non-temporal store) when the item is trivially
// copyable and divides the line. A byte that is the same in every key (the high bytes of small
// keys) is skipped. radix_sort (keys alone, where stability cannot be told) first splits in
// place on the most significant varying byte (American flag sort: every key swapped straight
// into its bucket), recursively, until a bucket fits in 2 MiB; the buckets are then sorted by
// the LSD sort with a scratch array of one bucket, so sorting a big key set allocates no second
// copy of it. Signed keys are ordered by flipping their sign bit, so the result is exactly
// std::sort's (for radix_sort_by, exactly a stable sort's by the same key).
//
// Complexity: n items, w-byte keys: O(w * n) time; radix_sort_by takes n items of extra
// memory, radix_sort one 2 MiB bucket's worth. Measured on a 2-core Xeon VM, three repetitions
// in one run, each sort interleaved with std::sort on the same input: 64 M random 64-bit keys,
// radix_sort 3.0-3.1 s against std::sort's 6.9-7.3 s (2.3x); 64 M 16-byte (key, position) items
// with repeated keys, radix_sort_by 7.2-7.6 s against 8.7-9.6 s (1.2-1.3x), most of its time
// the first touch of its 1 GiB scratch array.
//
// Invariants: radix_sort_by is stable (items with equal keys keep their input order); scratch
// memory is freed before return. Inputs of fewer than small_sort_input items go to std::sort /
// a stable merge sort, which are faster there than clearing 8 x 256 counters.
//
// Known limits: keys are built-in integers (bool excluded); items must be default
// constructible and movable (the scratch array holds them). std::pair is not trivially
// copyable, so pairs take the plain scatter; use an aggregate. Other key types (floating
// point, strings) take the comparison sort through sort_keys / stable_sort_by_key.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "braid/core/detail/streaming_store.hpp"
#include "braid/core/prefetch.hpp"

namespace braid {

// A key the radix sort orders: a built-in integer other than bool.
template <class T>
concept radix_key = std::integral<T> && !std::same_as<std::remove_cv_t<T>, bool>;

namespace detail {

inline constexpr std::size_t small_sort_input = 256;

// The unsigned image of `key` whose unsigned order is the key's order.
template <radix_key T>
constexpr std::make_unsigned_t<T> radix_image(T key) noexcept {
  using image = std::make_unsigned_t<T>;
  if constexpr (std::is_signed_v<T>) {
    return static_cast<image>(static_cast<image>(key) ^ (image{1} << (sizeof(image) * 8 - 1)));
  } else {
    return key;
  }
}

// A stable merge sort (insertion-sorted runs of 32, then bottom-up merges through a buffer of
// n items): the comparison sort behind radix_sort_by's small inputs and stable_sort_by_key's
// non-integer keys. (std::stable_sort would do, but libstdc++ 12's draws deprecation errors
// from Clang 19.) O(n log n) time, n items of extra memory.
template <class T, class Less>
void stable_merge_sort(std::span<T> items, Less less) {
  constexpr std::size_t run = 32;
  const std::size_t n = items.size();
  for (std::size_t start = 0; start < n; start += run) {
    const std::size_t end = std::min(n, start + run);
    for (std::size_t i = start + 1; i < end; ++i) {
      T item = std::move(items[i]);
      std::size_t j = i;
      for (; j > start && less(item, items[j - 1]); --j) items[j] = std::move(items[j - 1]);
      items[j] = std::move(item);
    }
  }
  if (n <= run) return;
  std::vector<T> buffer(n);
  T* from = items.data();
  T* to = buffer.data();
  for (std::size_t width = run; width < n; width *= 2) {
    for (std::size_t start = 0; start < n; start += 2 * width) {
      const std::size_t middle = std::min(n, start + width);
      const std::size_t end = std::min(n, start + 2 * width);
      std::merge(std::make_move_iterator(from + start), std::make_move_iterator(from + middle),
                 std::make_move_iterator(from + middle), std::make_move_iterator(from + end), to + start, less);
    }
    std::swap(from, to);
  }
  if (from != items.data()) std::move(from, from + n, items.data());
}

// Moves every item of from[0, n) to to[cursor[b]++], b = bucket_of(item): the plain scatter.
template <class T, class BucketOf>
void scatter_plain(T* from, T* to, std::size_t n, std::size_t* cursor, BucketOf& bucket_of) {
  for (std::size_t i = 0; i < n; ++i) to[cursor[bucket_of(from[i])]++] = std::move(from[i]);
}

// The scratch array and the write-combine lines of one sort, allocated on first use and
// reused by every bucket the sort hands to lsd_radix_sort.
template <class T>
struct radix_buffers {
  std::unique_ptr<T[]> scratch;
  std::size_t capacity = 0;
  std::unique_ptr<line_of<T>[]> lines;

  T* scratch_for(std::size_t n) {
    if (capacity < n) {
      scratch.reset();
      scratch = std::make_unique_for_overwrite<T[]>(n);
      capacity = n;
    }
    return scratch.get();
  }
  line_of<T>* line_buffers() {
    if (!lines) lines = std::make_unique<line_of<T>[]>(256);
    return lines.get();
  }
};

// counts[d][b]: how many items have byte d (0 = least significant) of their image equal to b.
template <class T, class ImageOf>
auto byte_histograms(std::span<const T> items, ImageOf& image_of) {
  using image = std::invoke_result_t<ImageOf&, const T&>;
  std::array<std::array<std::size_t, 256>, sizeof(image)> counts{};
  for (const T& item : items) {
    const image key = image_of(item);
    for (std::size_t digit = 0; digit < sizeof(image); ++digit) ++counts[digit][(key >> (8 * digit)) & 0xff];
  }
  return counts;
}

// Sorts `items` stably by image_of(item), an unsigned integer; items.size() >= 1.
template <class T, class ImageOf>
void lsd_radix_sort(std::span<T> items, ImageOf image_of, radix_buffers<T>& buffers) {
  using image = std::invoke_result_t<ImageOf&, const T&>;
  constexpr std::size_t digits = sizeof(image);
  const std::size_t n = items.size();
  auto counts = byte_histograms(std::span<const T>(items), image_of);

  T* from = items.data();
  for (std::size_t digit = 0; digit < digits; ++digit) {
    std::array<std::size_t, 256>& cursor = counts[digit];
    const unsigned shift = static_cast<unsigned>(8 * digit);
    auto bucket_of = [&](const T& item) { return static_cast<std::size_t>((image_of(item) >> shift) & 0xff); };
    if (cursor[bucket_of(from[0])] == n) continue;  // one value of this byte: already in order
    T* to = from == items.data() ? buffers.scratch_for(n) : items.data();
    std::array<std::size_t, 256> begin;
    std::size_t next = 0;
    for (std::size_t bucket = 0; bucket < 256; ++bucket) {  // counts -> first slots
      begin[bucket] = next;
      next += std::exchange(cursor[bucket], next);
    }
    if constexpr (items_per_line<T> != 0) {
      if (lines_hold_whole_items(to)) {
        scatter_write_combined(from, to, n, begin.data(), cursor.data(), buffers.line_buffers(), 256, bucket_of);
        from = to;
        continue;
      }
    }
    scatter_plain(from, to, n, cursor.data(), bucket_of);
    from = to;
  }
  if (from != items.data()) std::move(from, from + n, items.data());
}

// Inputs up to this size are sorted by lsd_radix_sort directly; larger ones are first split in
// place on their most significant varying byte, until the pieces are this small.
inline constexpr std::size_t cache_resident_sort_bytes = std::size_t{2} << 20;

// Sorts keys ascending: in place on the most significant byte that varies (American flag
// sort: each key swapped straight into its bucket, no scratch), then each bucket the same way,
// until a bucket fits in the cache and lsd_radix_sort finishes it there with a scratch array
// of the bucket's size. Unstable, which keys alone cannot tell.
// (resident_bytes: the size lsd_radix_sort takes over at; the tests make it small.)
template <radix_key T>
void msd_radix_sort(std::span<T> keys, radix_buffers<T>& buffers,
                    std::size_t resident_bytes = cache_resident_sort_bytes) {
  auto image_of = [](T key) { return radix_image(key); };
  const std::size_t n = keys.size();
  if (n < small_sort_input) {
    std::sort(keys.begin(), keys.end());
    return;
  }
  if (n * sizeof(T) <= resident_bytes) {
    lsd_radix_sort(keys, image_of, buffers);
    return;
  }
  const auto counts = byte_histograms(std::span<const T>(keys), image_of);
  std::size_t digit = sizeof(T);
  do {
    if (digit == 0) return;  // every byte the same: all keys equal
    --digit;
  } while (counts[digit][(image_of(keys[0]) >> (8 * digit)) & 0xff] == n);
  const unsigned shift = static_cast<unsigned>(8 * digit);
  auto bucket_of = [&](T key) { return static_cast<std::size_t>((image_of(key) >> shift) & 0xff); };
  constexpr std::size_t ahead = 2 * cache_line_bytes / sizeof(T);  // each bucket's keys, two lines on

  std::array<std::size_t, 256> head;
  std::array<std::size_t, 256> end;
  std::size_t next = 0;
  for (std::size_t bucket = 0; bucket < 256; ++bucket) {
    head[bucket] = next;
    end[bucket] = next += counts[digit][bucket];
  }
  for (std::size_t bucket = 0; bucket < 256; ++bucket) {
    while (head[bucket] < end[bucket]) {  // [start, head) holds this bucket's keys
      T key = keys[head[bucket]];
      for (std::size_t target = bucket_of(key); target != bucket; target = bucket_of(key)) {
        prefetch<prefetch_hint::write>(keys.data() + std::min(head[target] + ahead, n - 1));
        std::swap(key, keys[head[target]++]);
      }
      keys[head[bucket]++] = key;
    }
  }
  for (std::size_t bucket = 0; bucket < 256; ++bucket) {
    const std::size_t size = counts[digit][bucket];
    if (size > 1) msd_radix_sort(keys.subspan(end[bucket] - size, size), buffers, resident_bytes);
  }
}

}  // namespace detail

// Sorts integer keys ascending: the same result as std::sort.
template <radix_key T>
void radix_sort(std::span<T> keys) {
  detail::radix_buffers<T> buffers;
  detail::msd_radix_sort(keys, buffers);
}

// Sorts items by an integer key, stably: the same result as std::stable_sort comparing
// key_of(a) < key_of(b).
template <class T, class KeyOf>
  requires radix_key<std::remove_cvref_t<std::invoke_result_t<KeyOf&, const T&>>>
void radix_sort_by(std::span<T> items, KeyOf key_of) {
  if (items.size() < detail::small_sort_input) {
    detail::stable_merge_sort(items, [&](const T& left, const T& right) { return key_of(left) < key_of(right); });
    return;
  }
  detail::radix_buffers<T> buffers;
  detail::lsd_radix_sort(items, [&](const T& item) { return detail::radix_image(key_of(item)); }, buffers);
}

// Sorts totally ordered keys ascending: by radix_sort for integers, by std::sort otherwise.
template <class T>
void sort_keys(std::span<T> keys) {
  if constexpr (radix_key<T>) {
    radix_sort(keys);
  } else {
    std::sort(keys.begin(), keys.end());
  }
}

// Sorts items stably by key_of(item): by radix_sort_by for integer keys, by a stable merge sort
// otherwise.
template <class T, class KeyOf>
void stable_sort_by_key(std::span<T> items, KeyOf key_of) {
  if constexpr (radix_key<std::remove_cvref_t<std::invoke_result_t<KeyOf&, const T&>>>) {
    radix_sort_by(items, key_of);
  } else {
    detail::stable_merge_sort(items, [&](const T& left, const T& right) { return key_of(left) < key_of(right); });
  }
}

}  // namespace braid
