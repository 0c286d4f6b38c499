// libFuzzer target: the B+-tree with 256-byte nodes (15 keys a node) through the index
// protocol harness: inserts, upserts, erases with borrow and merge, scans, multi_scan and
// every multi_find technique, against std::map; the invariant check on demand and at the end.
#include "bplus_tree_fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Runs of up to 2,048 keys: four levels of 15-key nodes.
  return braid::fuzzing::fuzz_updatable<braid::fuzzing::bplus_tree_target<256, 2048>>(data, size);
}
