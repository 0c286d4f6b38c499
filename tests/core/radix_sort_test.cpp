// radix_sort: the result equals std::sort's (radix_sort_by: the stable order by the same key)
// for every integer width and signedness, over many seeds and sizes around the small-input
// cut-over, and for key sets that skip bytes (small ranges, equal keys, only the top byte
// varying), extreme keys, sorted and reversed input, and spans that start off a cache line
// (the write-combined scatter's partial first and last lines) or off the item's alignment.
#include "braid/core/radix_sort.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace braid {
namespace {

const std::vector<std::size_t> sizes = {0, 1, 2, 3, 255, 256, 257, 1000, 4099};

enum class shape { random, small_range, all_equal, top_byte_only, extremes, ascending, descending };
const std::vector<shape> shapes = {shape::random,        shape::small_range, shape::all_equal, shape::top_byte_only,
                                   shape::extremes,      shape::ascending,   shape::descending};

template <class T>
std::vector<T> keys_of(shape kind, std::size_t n, std::mt19937_64& random) {
  using limits = std::numeric_limits<T>;
  std::vector<T> keys(n);
  const std::vector<T> extremes = {limits::min(), limits::max(), T(0), T(1), T(limits::max() - 1), T(-1),
                                   T(limits::min() + 1)};
  for (std::size_t i = 0; i < n; ++i) {
    switch (kind) {
      case shape::random:
      case shape::ascending:
      case shape::descending: keys[i] = static_cast<T>(random()); break;
      case shape::small_range: keys[i] = static_cast<T>(random() % 37); break;
      case shape::all_equal: keys[i] = static_cast<T>(0x5A); break;
      case shape::top_byte_only:
        keys[i] = static_cast<T>((random() & 0xff) << (8 * (sizeof(T) - 1)));
        break;
      case shape::extremes: keys[i] = extremes[random() % extremes.size()]; break;
    }
  }
  if (kind == shape::ascending) std::sort(keys.begin(), keys.end());
  if (kind == shape::descending) std::sort(keys.begin(), keys.end(), [](T a, T b) { return b < a; });
  return keys;
}

template <class T>
void check_radix_sort_equals_std_sort() {
  for (std::uint64_t seed = 0; seed < 12; ++seed) {
    std::mt19937_64 random(seed);
    for (shape kind : shapes) {
      for (std::size_t n : sizes) {
        // Sorted in place at offsets 0..3 of a larger vector: spans that start off the line.
        for (std::size_t offset = 0; offset < 4; ++offset) {
          std::vector<T> storage(n + offset, T(7));
          const std::vector<T> keys = keys_of<T>(kind, n, random);
          std::copy(keys.begin(), keys.end(), storage.begin() + static_cast<std::ptrdiff_t>(offset));
          std::vector<T> expected = keys;
          std::sort(expected.begin(), expected.end());
          radix_sort(std::span<T>(storage).subspan(offset));
          const std::vector<T> sorted(storage.begin() + static_cast<std::ptrdiff_t>(offset), storage.end());
          ASSERT_EQ(sorted, expected) << "seed " << seed << ", shape " << static_cast<int>(kind) << ", " << n
                                      << " keys at offset " << offset;
          for (std::size_t i = 0; i < offset; ++i) ASSERT_EQ(storage[i], T(7)) << "wrote before the span";
          // The in-place split on the top varying byte, taken here at every size above 64
          // bytes (radix_sort takes it above 2 MiB), recursing through skewed buckets.
          std::vector<T> split = keys;
          detail::radix_buffers<T> buffers;
          detail::msd_radix_sort(std::span<T>(split), buffers, 64);
          ASSERT_EQ(split, expected) << "in-place split: seed " << seed << ", shape " << static_cast<int>(kind) << ", "
                                     << n << " keys";
        }
      }
    }
  }
}

TEST(RadixSort, EqualsStdSortForEveryIntegerType) {
  check_radix_sort_equals_std_sort<std::uint8_t>();
  check_radix_sort_equals_std_sort<std::int8_t>();
  check_radix_sort_equals_std_sort<std::uint16_t>();
  check_radix_sort_equals_std_sort<std::int16_t>();
  check_radix_sort_equals_std_sort<std::uint32_t>();
  check_radix_sort_equals_std_sort<std::int32_t>();
  check_radix_sort_equals_std_sort<std::uint64_t>();
  check_radix_sort_equals_std_sort<std::int64_t>();
  check_radix_sort_equals_std_sort<char>();
}

// Above 2 MiB radix_sort splits in place first: random keys, and keys whose top bytes are
// constant or skewed (one bucket holding most keys, so the split recurses into it).
TEST(RadixSort, SortsKeySetsLargerThanTheCacheResidentSize) {
  std::mt19937_64 random(99);
  std::vector<std::function<std::uint64_t()>> draws = {
      [&] { return random(); },
      [&] { return random() % 1'000'000; },
      [&] { return random() % 8 == 0 ? random() : 0x00ff'0000'0000'0000ull | (random() % 5'000'000); }};
  for (auto& draw : draws) {
    std::vector<std::uint64_t> keys(400'000);
    for (std::uint64_t& key : keys) key = draw();
    std::vector<std::uint64_t> expected = keys;
    std::sort(expected.begin(), expected.end());
    radix_sort(std::span(keys));
    EXPECT_EQ(keys, expected);
  }
}

// 16 bytes, trivially copyable: the write-combined scatter, four items per line.
struct keyed_record {
  std::int64_t key;
  std::uint64_t position;
  bool operator==(const keyed_record&) const = default;
};

// 24 bytes: not a divisor of the line, so the plain scatter.
struct wide_record {
  std::uint32_t key;
  std::uint64_t position;
  std::uint64_t padding;
  bool operator==(const wide_record&) const = default;
};

// The stable order by key_of, by std::sort of positions with ties broken by position
// (std::stable_sort itself draws deprecation errors from Clang 19 with libstdc++ 12).
template <class Record, class KeyOf>
std::vector<Record> stably_sorted(const std::vector<Record>& input, KeyOf key_of) {
  std::vector<std::size_t> order(input.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return key_of(input[a]) < key_of(input[b]) || (!(key_of(input[b]) < key_of(input[a])) && a < b);
  });
  std::vector<Record> sorted;
  for (std::size_t i : order) sorted.push_back(input[i]);
  return sorted;
}

template <class Record, class KeyOf, class Make>
void check_stable(KeyOf key_of, Make make) {
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    std::mt19937_64 random(seed);
    for (std::size_t n : sizes) {
      for (std::size_t offset = 0; offset < 3; ++offset) {
        std::vector<Record> storage;
        for (std::size_t i = 0; i < n + offset; ++i) storage.push_back(make(random, i));
        const std::vector<Record> input(storage.begin() + static_cast<std::ptrdiff_t>(offset), storage.end());
        const std::vector<Record> expected = stably_sorted(input, key_of);
        radix_sort_by(std::span<Record>(storage).subspan(offset), key_of);
        const std::vector<Record> sorted(storage.begin() + static_cast<std::ptrdiff_t>(offset), storage.end());
        ASSERT_TRUE(sorted == expected) << "seed " << seed << ", " << n << " items at offset " << offset;
      }
    }
  }
}

TEST(RadixSortBy, IsStableAndEqualsStdStableSort) {
  // Few distinct keys, so most items tie: stability decides their order.
  check_stable<keyed_record>([](const keyed_record& r) { return r.key; },
                             [](std::mt19937_64& random, std::size_t i) {
                               const std::int64_t keys[] = {std::numeric_limits<std::int64_t>::min(), -3, 0, 5,
                                                            std::numeric_limits<std::int64_t>::max()};
                               return keyed_record{keys[random() % 5], i};
                             });
  check_stable<wide_record>([](const wide_record& r) { return r.key; },
                            [](std::mt19937_64& random, std::size_t i) {
                              return wide_record{static_cast<std::uint32_t>(random() % 300), i, i * 3};
                            });
  using pair = std::pair<std::uint64_t, std::size_t>;
  check_stable<pair>([](const pair& p) { return p.first; },
                     [](std::mt19937_64& random, std::size_t i) { return pair{random() % 1000 * 0x0101010101ull, i}; });
  using named = std::pair<std::int16_t, std::string>;  // not trivially copyable: moved, not copied
  check_stable<named>([](const named& p) { return p.first; },
                      [](std::mt19937_64& random, std::size_t i) {
                        return named{static_cast<std::int16_t>(random() % 64) - 32, "item " + std::to_string(i)};
                      });
}

TEST(SortKeys, TakesTheComparisonSortForOtherKeys) {
  std::vector<double> reals = {2.5, -1.0, 0.0, -0.5, 1e300, -1e300};
  std::vector<double> expected_reals = reals;
  std::sort(expected_reals.begin(), expected_reals.end());
  sort_keys(std::span(reals));
  EXPECT_EQ(reals, expected_reals);

  std::vector<std::string> words = {"pear", "apple", "", "fig", "apple"};
  sort_keys(std::span(words));
  EXPECT_EQ(words, (std::vector<std::string>{"", "apple", "apple", "fig", "pear"}));

  std::vector<std::pair<std::string, int>> by_name = {{"b", 0}, {"a", 1}, {"b", 2}, {"a", 3}};
  stable_sort_by_key(std::span(by_name), [](const auto& p) -> const std::string& { return p.first; });
  EXPECT_EQ(by_name, (std::vector<std::pair<std::string, int>>{{"a", 1}, {"a", 3}, {"b", 0}, {"b", 2}}));

  std::vector<std::int32_t> integers = {5, -7, 5, 0, std::numeric_limits<std::int32_t>::min()};
  sort_keys(std::span(integers));
  EXPECT_EQ(integers, (std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min(), -7, 0, 5, 5}));
}

}  // namespace
}  // namespace braid
