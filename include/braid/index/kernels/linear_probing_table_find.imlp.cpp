// IMLP kernel: linear_probing_table::find (Cimple's Listing 7, the hash-join probe) in three
// stages: the hash alone (a static stage: a for loop over every context, which the compiler
// may vectorize), the home line's prefetch (static too), then the probe, which yields each time
// it enters a new line (a dynamic stage: probes take different numbers of lines).
// The table's probe policy is the shared argument `probe`: its placement gives the home slot
// (a mask or a prime modulo) and the next slot (wrapping at the end), and probe.complete() ends
// every lookup (nothing, or a serializing instruction: Cimple §8.2's variants).
#include "imlp.hpp"

using namespace braid::imlp;

BRAID_IMLP_KERNEL(linear_probing_table_find) {
  return Coroutine("linear_probing_table_find")
      .Doc("linear_probing_table lookup: Murmur3 fmix64 home slot, linear probe to the key or a free slot.")
      .Template("class Slot, class Value, class Probe, std::size_t SlotsPerLine")  // a constant: % compiles to a mask
      .Include("<cstdint>")
      .Include("<optional>")
      .Include("braid/index/detail/murmur_hash.hpp")
      .Result("std::optional<Value>")
      .SharedArg("const Slot*", "slots")
      .SharedArg("Probe", "probe")
      .SharedArg("std::optional<Value>", "zero_key_value")
      .Arg("std::uint64_t", "key")
      .Variable("std::size_t", "position")
      .Body(If("key == 0").Then(Stmt("probe.complete();").Return("zero_key_value")).  // key 0: kept aside
            Assign("position", "static_cast<std::size_t>(::braid::detail::murmur3_fmix64(key))").
            YieldStatic("hashed").
            Assign("position", "probe.home(position)").
            Prefetch("&slots[position]").YieldStatic("at_home").
            While("true").Do(
                If("slots[position].key == key || slots[position].key == 0").Then(  // found, or a free slot: absent
                    Stmt("probe.complete();").
                    If("slots[position].key == key").Then(Return("slots[position].value")).
                    Return("std::nullopt")).
                Assign("position", "probe.next(position)").
                If("position % SlotsPerLine == 0").Then(
                    Prefetch("&slots[position]").Yield("at_next_line"))).
            Return("std::nullopt"));  // not reached: a free slot always ends the probe
}
