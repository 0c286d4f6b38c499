// IMLP kernel: skip_list::scan, Cimple's range iteration (SLi, Listing 6): the down-and-right
// descent of skip_list_find to the first entry >= start, then the walk along level 0, up to
// `limit` entries, one Yield per node. Each entry goes to the shared visitor as
// (*visit)(request, key, value), in key order; the result is the count visited.
#include "imlp.hpp"

using namespace braid::imlp;

BRAID_IMLP_KERNEL(skip_list_scan) {
  return Coroutine("skip_list_scan")
      .Doc("skip_list range scan: the descent to the first entry >= start, then the walk along level 0, a Yield "
           "before each node it examines or visits.")
      .Template("class List, class Node, class Key, class Value, class Visitor")
      .Include("<cstddef>")
      .Result("std::size_t")
      .SharedArg("const Node*", "head")
      .SharedArg("std::size_t", "height")
      .SharedArg("Visitor*", "visit")
      .Arg("Key", "start")
      .Arg("std::size_t", "limit")
      .Arg("std::size_t", "request")  // passed to the visitor with each entry
      .Variable("const Node*", "predecessor")
      .Variable("const Node*", "known_greater")
      .Variable("const Node*", "candidate")
      .Variable("std::size_t", "level")
      .Variable("std::size_t", "visited")
      .Body(Assign("predecessor", "head").
            Assign("known_greater", "nullptr").
            Assign("level", "height").
            While("level-- > 0").Do(  // down
                Assign("candidate", "List::links_of(predecessor)[level]").
                While("candidate != nullptr && candidate != known_greater").Do(  // right
                    Prefetch("candidate").
                    Prefetch("&List::links_of(candidate)[level]").  // the link this level reads
                    Yield("at_candidate").
                    If("!(candidate->key < start)").Then(Assign("known_greater", "candidate").Break()).
                    Assign("predecessor", "candidate").
                    Assign("candidate", "List::links_of(candidate)[level]"))).
            // The first entry >= start was examined by the descent: no Yield before it.
            Assign("visited", "0").
            Assign("candidate", "limit == 0 ? nullptr : List::links_of(predecessor)[0]").
            While("candidate != nullptr").Do(
                Stmt("(*visit)(request, candidate->key, candidate->value);").
                Assign("visited", "visited + 1").
                If("visited == limit").Then(Break()).
                Assign("candidate", "List::links_of(candidate)[0]").
                If("candidate != nullptr").Then(Prefetch("candidate").Yield("at_entry"))).
            Return("visited"));
}
