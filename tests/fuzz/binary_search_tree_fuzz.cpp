// libFuzzer target: the unbalanced binary search tree through the index protocol harness:
// inserts, erases (nodes with two children included, freed nodes reused), scans and every
// multi_find technique, against std::map; find_branchy against find; invariants checked.
#include "braid/index/binary_search_tree.hpp"
#include "index_fuzz_harness.hpp"

namespace {
struct target {
  using structure = braid::binary_search_tree<std::uint64_t, std::uint64_t>;
  using keys = braid::fuzzing::unsigned_keys;
  static constexpr std::size_t longest_run = 256;  // a run is a list: quadratic to build
  static constexpr std::size_t extra_operations = 1;
  static structure make() { return structure(braid::page_size::small_4k); }
  static void check(const structure& tree) { tree.check_invariants(); }
  static constexpr const char* shape_names[] = {"depth"};
  static std::array<std::size_t, 1> shape(const structure& tree) { return {tree.depths().max_depth}; }
  static void extra(std::size_t, structure& tree, const auto& reference, braid::fuzzing::fuzz_input& input) {
    const std::uint64_t key = braid::fuzzing::decode_batch_key<keys>(input, reference);
    braid::fuzzing::fuzz_check(tree.find_branchy(key) == tree.find(key), "find_branchy");
  }
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return braid::fuzzing::fuzz_updatable<target>(data, size);
}
