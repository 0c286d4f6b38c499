// libFuzzer target: the VARCHAR Delta (an arrival-order string arena under its CSB+-tree over
// string codes), filled by decoded texts with repeats in up to three appends (each rebuilds the
// tree), its (dictionary, codes) constructor's refusal of a repeated text checked first; then
// finds, the texts behind found codes, the tree's invariants and every multi_find technique
// against each text's first-arrival code.
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "braid/column/varchar_fragments.hpp"
#include "built_fuzz_targets.hpp"

namespace {

using braid::fuzzing::fuzz_input;

struct target {
  using keys = braid::fuzzing::binary_string_keys;
  using structure = braid::varchar_delta_fragment;
  using oracle = std::map<std::string, std::uint32_t>;

  static structure build(const std::vector<std::string>& decoded, oracle& codes, fuzz_input& input) {
    for (const std::string& text : decoded) codes.emplace(text, static_cast<std::uint32_t>(codes.size()));
    const std::vector<std::string_view> rows(decoded.begin(), decoded.end());
    braid::fuzzing::refused_as_documented(
        codes.size() != decoded.size(), [&] { (void)structure(rows, std::vector<std::uint32_t>{}, braid::page_size::small_4k); },
        "varchar_delta_fragment refused or accepted a repeated text against its contract");
    structure delta(braid::page_size::small_4k);
    const std::size_t first = input.below(rows.size() + 1);
    const std::size_t second = first + input.below(rows.size() - first + 1);
    const std::span<const std::string_view> all(rows);
    delta.append(all.subspan(0, first));
    delta.append(all.subspan(first, second - first));
    delta.append(all.subspan(second));
    braid::fuzzing::fuzz_check(delta.size() == rows.size() && delta.dictionary_size() == codes.size(), "sizes after appends");
    return delta;
  }
  static bool matches(const structure&, const oracle& codes, const std::string& key, const std::optional<std::uint32_t>& found) {
    const auto code = codes.find(key);
    return code == codes.end() ? !found.has_value() : found == code->second;
  }
  static void other_finds(const structure& delta, const std::string& key) {
    if (const auto code = delta.find(key)) braid::fuzzing::fuzz_check(delta.text(*code) == key, "text of a found code");
  }
  static void check(const structure& delta) { delta.check_invariants(); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return braid::fuzzing::fuzz_built<target>(data, size);
}
