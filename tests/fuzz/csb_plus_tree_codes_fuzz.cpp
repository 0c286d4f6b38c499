// libFuzzer target: the CSB+-tree over codes (the Delta dictionary's index), built from a
// decoded dictionary in decoded order (its refusal of a repeated value checked first), then
// finds and every multi_find technique: find(value) is the value's code, its dictionary index.
#include <map>
#include <vector>

#include "braid/index/csb_plus_tree.hpp"
#include "built_fuzz_targets.hpp"

namespace {

using braid::fuzzing::fuzz_input;

struct target {
  using keys = braid::fuzzing::unsigned_keys;
  using structure = braid::csb_plus_tree_over_codes<std::uint64_t, 64>;
  using oracle = std::map<std::uint64_t, std::uint32_t>;

  static structure build(const std::vector<std::uint64_t>& decoded, oracle& codes, fuzz_input&) {
    std::vector<std::uint64_t> dictionary;
    for (const std::uint64_t value : decoded) {
      if (codes.emplace(value, static_cast<std::uint32_t>(dictionary.size())).second) dictionary.push_back(value);
    }
    braid::fuzzing::refused_as_documented(
        dictionary.size() != decoded.size(), [&] { structure(decoded, braid::page_size::small_4k); },
        "csb_plus_tree_over_codes refused or accepted repeated values against its contract");
    return structure(dictionary, braid::page_size::small_4k);
  }
  static bool matches(const structure&, const oracle& codes, std::uint64_t value, const std::optional<std::uint32_t>& found) {
    const auto code = codes.find(value);
    return code == codes.end() ? !found.has_value() : found == code->second;
  }
  static void check(const structure& tree) { tree.check_invariants(); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return braid::fuzzing::fuzz_built<target>(data, size);
}
