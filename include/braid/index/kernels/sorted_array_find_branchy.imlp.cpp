// IMLP kernel: sorted_array::find_branchy, classic binary search with an early exit (Cimple's
// branch variant): one Yield per probe, a branch on each comparison.
#include "imlp.hpp"

using namespace braid::imlp;

BRAID_IMLP_KERNEL(sorted_array_find_branchy) {
  return Coroutine("sorted_array_find_branchy")
      .Doc("sorted_array lookup with a branch per level and an early exit on equality.")
      .Template("class Key")
      .Include("<optional>")
      .Result("std::optional<std::size_t>")
      .SharedArg("const Key*", "keys")
      .SharedArg("std::size_t", "size")
      .Arg("Key", "key")
      .Variable("std::size_t", "low")
      .Variable("std::size_t", "high")
      .Variable("std::size_t", "middle")
      .Body(Assign("low", "0").
            Assign("high", "size").
            While("low < high").Do(
                Assign("middle", "low + (high - low) / 2").
                Prefetch("&keys[middle]").Yield("at_middle").
                If("keys[middle] == key").Then(Return("middle")).
                If("keys[middle] < key").Then(Assign("low", "middle + 1")).Else(Assign("high", "middle"))).
            Return("std::nullopt"));
}
