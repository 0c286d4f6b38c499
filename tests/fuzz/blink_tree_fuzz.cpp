// libFuzzer target: the B-link tree in its thread form (optimistic lock coupling, on the
// calling thread) through the index protocol harness: insert, insert_or_assign, erase, scans
// and every multi_find technique against std::map, with runs long enough to split leaves and
// inner nodes (60 keys a leaf); the tree's consistency check on demand and at the end.
#include "braid/index/blink_tree.hpp"
#include "index_fuzz_harness.hpp"

namespace {

braid::tasks::runtime& owner() {
  static braid::tasks::runtime runtime([] {
    braid::tasks::runtime_config config;
    config.workers = 1;
    return config;
  }());
  return runtime;
}

struct target {
  using structure = braid::blink_tree;
  using keys = braid::fuzzing::unsigned_keys;
  static constexpr std::size_t longest_run = 4096;  // three levels of 60-key nodes
  static structure make() { return structure(owner()); }
  static constexpr const char* shape_names[] = {"height", "nodes"};
  static std::array<std::size_t, 2> shape(const structure& tree) { return {tree.height(), tree.node_count()}; }
  static void check(const structure& tree) {
    const braid::blink_tree::consistency_report report = tree.check();
    braid::fuzzing::fuzz_check(report.ok, "B-link tree consistency");
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return braid::fuzzing::fuzz_updatable<target>(data, size);
}
