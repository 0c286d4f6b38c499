// libFuzzer target: the skip list through the index protocol harness: inserts, erases (nodes
// recycled for later inserts), scans, multi_scan and every multi_find technique, against
// std::map; the invariant check on demand and at the end.
#include "braid/index/skip_list.hpp"
#include "index_fuzz_harness.hpp"

namespace {
struct target {
  using structure = braid::skip_list<std::uint64_t, std::uint64_t>;
  using keys = braid::fuzzing::unsigned_keys;
  static constexpr std::size_t longest_run = 2048;
  static structure make() { return structure(braid::page_size::small_4k); }
  static void check(const structure& list) { list.check_invariants(); }
  static constexpr const char* shape_names[] = {"height"};
  static std::array<std::size_t, 1> shape(const structure& list) { return {list.height()}; }
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return braid::fuzzing::fuzz_updatable<target>(data, size);
}
