// libFuzzer target: the B+-tree with page-sized nodes (4 KiB, 255 keys a leaf) through the index
// protocol harness: inserts, upserts, erases with borrow and merge, scans, multi_scan and
// every multi_find technique, against std::map; the invariant check on demand and at the end.
#include "braid/index/bplus_tree.hpp"
#include "index_fuzz_harness.hpp"

namespace {
struct target {
  using structure = braid::bplus_tree<std::uint64_t, std::uint64_t, 4096>;
  using keys = braid::fuzzing::unsigned_keys;
  static constexpr std::size_t longest_run = 8192;  // two levels of 255-key leaves
  static structure make() { return structure(braid::page_size::small_4k); }
  static void check(const structure& tree) { tree.check_invariants(); }
  static constexpr const char* shape_names[] = {"height", "inner nodes", "leaves"};
  static std::array<std::size_t, 3> shape(const structure& tree) {
    const auto nodes = tree.describe_shape();
    return {tree.height(), nodes.inner_nodes, nodes.leaves};
  }
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return braid::fuzzing::fuzz_updatable<target>(data, size);
}
