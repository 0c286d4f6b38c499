// libFuzzer target: the Masstree-style index through the index protocol harness, on binary
// keys built to share long prefixes, end on slice boundaries, differ only in length and hold
// NULs (so layers are created, and suffixes replaced and retired): insert, insert_or_assign,
// erase, scans and every multi_find technique against std::map, plus every form of put,
// remove and get (plain, flat coroutine, nested tasks) with the previous value each returns.
#include "braid/core/mode.hpp"
#include "braid/index/masstree.hpp"
#include "index_fuzz_harness.hpp"

namespace {

using braid::fuzzing::fuzz_check;
using braid::fuzzing::fuzz_input;

template <class Operation>
auto run_to_end(Operation operation) {
  if constexpr (!Operation::starts_eagerly) operation.resume();
  while (!operation.done()) operation.resume();
  return operation.take_result();
}

struct target {
  using structure = braid::masstree<std::uint64_t>;
  using keys = braid::fuzzing::binary_string_keys;
  static constexpr std::size_t extra_operations = 6;
  static structure make() { return structure(braid::page_size::small_4k); }
  // Node bytes grow with every split, new layer, grown layer root and suffix bag (removes free
  // no nodes; a replaced suffix bag is reclaimed by the epochs, rarely within one input).
  static constexpr const char* shape_names[] = {"node bytes"};
  static std::array<std::size_t, 1> shape(const structure& tree) { return {tree.memory_bytes()}; }

  template <class Map>
  static void extra(std::size_t which, structure& tree, Map& reference, fuzz_input& input) {
    const std::string key = braid::fuzzing::decode_batch_key<keys>(input, reference);
    const std::uint64_t value = input.byte();
    const auto found = reference.find(key);
    const std::optional<std::uint64_t> before =
        found == reference.end() ? std::nullopt : std::optional<std::uint64_t>(found->second);
    switch (which) {
      case 0: fuzz_check(tree.put(key, value) == before, "put"); reference[key] = value; break;
      case 1: fuzz_check(run_to_end(tree.put_flat<braid::interleaved>(key, value)) == before, "put_flat"); reference[key] = value; break;
      case 2: fuzz_check(run_to_end(tree.put_nested<braid::interleaved>(key, value)) == before, "put_nested"); reference[key] = value; break;
      case 3: fuzz_check(tree.remove(key) == before, "remove"); reference.erase(key); break;
      case 4: fuzz_check(run_to_end(tree.remove_flat<braid::interleaved>(key)) == before, "remove_flat"); reference.erase(key); break;
      default: fuzz_check(run_to_end(tree.lookup_nested<braid::interleaved>(key)) == before, "lookup_nested"); break;
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return braid::fuzzing::fuzz_updatable<target>(data, size);
}
