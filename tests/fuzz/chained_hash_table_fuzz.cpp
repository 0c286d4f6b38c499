// libFuzzer target: the chained hash table through the index protocol harness: inserts (no
// erase, no scan: the table has neither) and every multi_find technique, against std::map.
// Few buckets, so chains are long and gp/amac meet empty, short and long chains in one batch.
#include "braid/index/chained_hash_table.hpp"
#include "index_fuzz_harness.hpp"

namespace {
struct target {
  using structure = braid::chained_hash_table<std::uint64_t, std::uint64_t>;
  using keys = braid::fuzzing::unsigned_keys;
  static constexpr std::size_t longest_run = 512;  // chains of ~40 in 13 buckets
  static structure make() { return structure(13, 0, braid::page_size::small_4k); }
  static constexpr const char* shape_names[] = {"entries"};  // over 13 buckets: the chains' length
  static std::array<std::size_t, 1> shape(const structure& table) { return {table.size()}; }
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return braid::fuzzing::fuzz_updatable<target>(data, size);
}
