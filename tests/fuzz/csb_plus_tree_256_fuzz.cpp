// libFuzzer target: the CSB+-tree with 256-byte nodes, bulk-loaded from a decoded key set
// (its refusal of unsorted keys and of a value count that differs checked first), then finds,
// scans and every multi_find technique against std::map; invariants checked after the build.
#include "built_fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return braid::fuzzing::fuzz_built<braid::fuzzing::csb_plus_tree_target<256>>(data, size);
}
