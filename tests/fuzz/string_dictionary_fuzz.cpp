// libFuzzer target: the VARCHAR Main's front-coded string dictionary, built from decoded texts
// (its refusal of texts not strictly ascending checked first), then finds, extracts and every
// multi_find technique (gp and amac among them) against the texts' ranks.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "braid/column/string_dictionary.hpp"
#include "built_fuzz_targets.hpp"

namespace {

using braid::fuzzing::fuzz_input;

struct target {
  using keys = braid::fuzzing::binary_string_keys;
  using structure = braid::string_dictionary;
  using oracle = std::map<std::string, std::uint32_t>;

  static structure build(const std::vector<std::string>& decoded, oracle& ranks, fuzz_input&) {
    const std::vector<std::string_view> as_decoded(decoded.begin(), decoded.end());
    braid::fuzzing::refused_as_documented(
        !braid::fuzzing::strictly_increasing(decoded), [&] { (void)structure(as_decoded, braid::page_size::small_4k); },
        "string_dictionary refused or accepted texts against its contract");
    const std::vector<std::string> distinct = braid::fuzzing::sorted_distinct(decoded);
    for (std::size_t rank = 0; rank < distinct.size(); ++rank) ranks.emplace(distinct[rank], static_cast<std::uint32_t>(rank));
    const std::vector<std::string_view> sorted(distinct.begin(), distinct.end());
    return structure(sorted, braid::page_size::small_4k);
  }
  static bool matches(const structure&, const oracle& ranks, const std::string& key, const std::optional<std::uint32_t>& found) {
    const auto rank = ranks.find(key);
    return rank == ranks.end() ? !found.has_value() : found == rank->second;
  }
  static void other_finds(const structure& dictionary, const std::string& key) {
    if (const auto code = dictionary.find(key)) braid::fuzzing::fuzz_check(dictionary.extract(*code) == key, "extract");
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return braid::fuzzing::fuzz_built<target>(data, size);
}
