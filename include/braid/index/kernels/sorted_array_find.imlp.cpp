// IMLP kernel: sorted_array::find, the branch-free lower bound (Cimple's Listing 4 with the
// structure's own shortcuts, as lookup<M> takes them): the first eight levels with plain loads
// (every search reads them, they stay cached), then one Yield per probe while the range spans
// more than a line, and one Yield for the last line or two, which are then searched at once.
#include <string>

#include "imlp.hpp"

using namespace braid::imlp;

namespace {

// One level: the range [low, low + remaining] halves by a mask, without a jump. A `?:` here is
// compiled into a data-dependent jump by Clang (braid/core/detail/branch_free.hpp says why),
// which the generated state machines paid for in mispredictions on the hot and the probed
// levels. The last line's levels keep the `?:` of sorted_array's own descend.
constexpr const char* halve_lines[] = {
    "const std::size_t half = remaining / 2;",
    "low += half & ::braid::detail::mask_if<std::size_t>(keys[low + half] < key);", "remaining -= half;"};

// `head` (a loop's header, or nothing) over one halving.
std::string halving(const std::string& head, const char* select = halve_lines[1]) {
  std::string text = head.empty() ? "" : head + " {\n";
  for (const char* line : {halve_lines[0], select, halve_lines[2]}) {
    text += (head.empty() ? "" : "  ") + std::string(line) + "\n";
  }
  return head.empty() ? text : text + "}";
}

}  // namespace

BRAID_IMLP_KERNEL(sorted_array_find) {
  return Coroutine("sorted_array_find")
      .Doc("sorted_array lookup, branch-free: the range halves by a mask, without a jump.")
      .Template("class Key")
      .Include("<optional>")
      .Include("braid/core/detail/branch_free.hpp")
      .Result("std::optional<std::size_t>")
      .SharedArg("const Key*", "keys")
      .SharedArg("std::size_t", "size")
      .SharedArg("std::size_t", "keys_per_line")
      .Arg("Key", "key")
      .Variable("std::size_t", "low")
      .Variable("std::size_t", "remaining")
      .Body(If("size == 0").Then(Return("std::nullopt")).
            Assign("low", "0").
            Assign("remaining", "size").
            Stmt(halving("for (std::size_t level = 0; level < 8 && remaining > 1; ++level)")).  // the hot levels
            While("remaining > keys_per_line").Do(
                Prefetch("&keys[low + remaining / 2]").Yield("at_probe").  // the probe's line
                Stmt(halving(""))).
            If("remaining > 1").Then(
                Prefetch("&keys[low]").
                Prefetch("keys + low + remaining").  // may be one past the end: never faults
                Yield("in_last_lines").
                Stmt(halving("while (remaining > 1)", "low = keys[low + half] < key ? low + half : low;"))).
            Assign("low", "low + (keys[low] < key ? 1 : 0)").  // the lower bound
            If("low < size && keys[low] == key").Then(Return("low")).
            Return("std::nullopt"));
}
