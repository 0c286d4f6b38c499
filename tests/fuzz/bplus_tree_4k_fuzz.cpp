// libFuzzer target: the B+-tree with page-sized nodes (4 KiB, 255 keys a leaf) through the index
// protocol harness: inserts, upserts, erases with borrow and merge, scans, multi_scan and
// every multi_find technique, against std::map; the invariant check on demand and at the end.
#include "bplus_tree_fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Runs of up to 8,192 keys: two levels of 255-key leaves.
  return braid::fuzzing::fuzz_updatable<braid::fuzzing::bplus_tree_target<4096, 8192>>(data, size);
}
