// IMLP kernel: sorted_array::find, the branch-free lower bound (Cimple's Listing 4 with the
// structure's own shortcuts): the first eight levels with plain loads (every search reads them,
// they stay cached), then one Yield per probe, and once the range fits in a line or two, one
// Yield for both lines and no more.
#include "imlp.hpp"

using namespace braid::imlp;

BRAID_IMLP_KERNEL(sorted_array_find) {
  return Coroutine("sorted_array_find")
      .Doc("sorted_array lookup, branch-free: the range halves with a conditional move.")
      .Template("class Key")
      .Include("<optional>")
      .Result("std::optional<std::size_t>")
      .SharedArg("const Key*", "keys")
      .SharedArg("std::size_t", "size")
      .SharedArg("std::size_t", "keys_per_line")
      .Arg("Key", "key")
      .Variable("std::size_t", "low")
      .Variable("std::size_t", "remaining")
      .Variable("std::size_t", "level")
      .Body(If("size == 0").Then(Return("std::nullopt")).
            Assign("low", "0").
            Assign("remaining", "size").
            Assign("level", "0").
            While("remaining > 1").Do(
                If("level >= 8 && remaining > keys_per_line").Then(
                    Prefetch("&keys[low + remaining / 2]").Yield("at_probe")).  // the probe's line
                If("level >= 8 && remaining <= keys_per_line && level < size").Then(
                    Prefetch("&keys[low]").
                    Prefetch("keys + low + remaining").  // may be one past the end: never faults
                    Assign("level", "size").             // the last lines: no more Yields
                    Yield("in_last_lines")).
                Stmt("const std::size_t half = remaining / 2;\n"
                     "low = keys[low + half] < key ? low + half : low;\n"
                     "remaining -= half;").
                Assign("level", "level + 1")).
            Assign("low", "low + (keys[low] < key ? 1 : 0)").  // the lower bound
            If("low < size && keys[low] == key").Then(Return("low")).
            Return("std::nullopt"));
}
