// libFuzzer target: the sorted array over fixed_string<15> keys, built from a decoded key set (repeats
// included; from_sorted's refusal of unsorted keys checked), then finds, find_branchy and
// every multi_find technique against the keys' ranks.
#include "built_fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return braid::fuzzing::fuzz_built<braid::fuzzing::sorted_array_target<braid::fuzzing::fixed_string_keys>>(data, size);
}
