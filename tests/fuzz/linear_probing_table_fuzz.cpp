// libFuzzer target: the linear-probing table through the index protocol harness: inserts (key
// 0, kept beside the slots, included; growth by rehashing from a tiny first capacity) and
// every multi_find technique, against std::map. No erase and no scan: the table has neither.
#include "braid/index/linear_probing_table.hpp"
#include "index_fuzz_harness.hpp"

namespace {
struct target {
  using structure = braid::linear_probing_table<std::uint64_t>;
  using keys = braid::fuzzing::unsigned_keys;
  static constexpr std::size_t longest_run = 4096;  // several doublings
  static structure make() { return structure(0, braid::page_size::small_4k); }
  static constexpr const char* shape_names[] = {"capacity"};
  static std::array<std::size_t, 1> shape(const structure& table) { return {table.capacity()}; }
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return braid::fuzzing::fuzz_updatable<target>(data, size);
}
