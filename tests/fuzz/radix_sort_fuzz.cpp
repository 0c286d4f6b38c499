// libFuzzer target: the radix sorts against the comparison sorts. The input picks a key type,
// a key range (small ranges make repeats and constant bytes), an offset into the storage (spans
// that start off a cache line) and the size below which the in-place split hands over to the
// LSD sort; then radix_sort must equal std::sort, the split must too, and radix_sort_by over
// (key, position) items must equal the stable order.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "braid/core/radix_sort.hpp"
#include "fuzz_input.hpp"

namespace {

using braid::fuzzing::fuzz_check;
using braid::fuzzing::fuzz_input;

template <class Key>
struct keyed {
  Key key;
  std::uint32_t position;
};

template <class Key>
void check(fuzz_input& input) {
  const std::uint64_t range_bits = input.byte() % 65;
  const std::size_t offset = input.byte() % 8;
  const std::size_t resident_bytes = 1 + input.below(4096);
  std::vector<Key> keys;
  while (!input.empty() && keys.size() < 20'000) {
    std::uint64_t raw = input.u64();
    if (range_bits < 64) raw &= (std::uint64_t{1} << range_bits) - 1;
    keys.push_back(static_cast<Key>(raw));
  }
  std::vector<Key> expected = keys;
  std::sort(expected.begin(), expected.end());

  std::vector<Key> storage(offset, Key{});
  storage.insert(storage.end(), keys.begin(), keys.end());
  braid::radix_sort(std::span<Key>(storage).subspan(offset));
  fuzz_check(std::equal(storage.begin() + static_cast<std::ptrdiff_t>(offset), storage.end(), expected.begin(),
                        expected.end()),
             "radix_sort differs from std::sort");

  std::vector<Key> split = keys;
  braid::detail::radix_buffers<Key> buffers;
  braid::detail::msd_radix_sort(std::span<Key>(split), buffers, resident_bytes);
  fuzz_check(split == expected, "the in-place split differs from std::sort");

  std::vector<keyed<Key>> items(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) items[i] = {keys[i], static_cast<std::uint32_t>(i)};
  braid::radix_sort_by(std::span(items), [](const keyed<Key>& item) { return item.key; });
  for (std::size_t i = 0; i < items.size(); ++i) {
    fuzz_check(items[i].key == expected[i], "radix_sort_by's keys are out of order");
    fuzz_check(i == 0 || items[i - 1].key != items[i].key || items[i - 1].position < items[i].position,
               "radix_sort_by is not stable");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz_input input(data, size);
  switch (input.byte() % 6) {
    case 0: check<std::uint8_t>(input); break;
    case 1: check<std::int16_t>(input); break;
    case 2: check<std::int32_t>(input); break;
    case 3: check<std::uint32_t>(input); break;
    case 4: check<std::int64_t>(input); break;
    default: check<std::uint64_t>(input); break;
  }
  return 0;
}
