// IMLP kernel: skip_list::find (Cimple's Listing 5): down and right from the head, one Yield per
// node examined; the node a level stopped at is known to be greater and is not examined again
// one level down.
#include "imlp.hpp"

using namespace braid::imlp;

BRAID_IMLP_KERNEL(skip_list_find) {
  return Coroutine("skip_list_find")
      .Doc("skip_list lookup: down-and-right search, a Yield before each node it examines.")
      .Template("class List, class Node, class Key, class Value")
      .Include("<cstddef>")
      .Include("<optional>")
      .Result("std::optional<Value>")
      .SharedArg("const Node*", "head")
      .SharedArg("std::size_t", "height")
      .Arg("Key", "key")
      .Variable("const Node*", "predecessor")
      .Variable("const Node*", "known_greater")
      .Variable("const Node*", "candidate")
      .Variable("std::size_t", "level")
      .Body(Assign("predecessor", "head").
            Assign("known_greater", "nullptr").
            Assign("level", "height").
            While("level-- > 0").Do(  // down
                Assign("candidate", "List::links_of(predecessor)[level]").
                While("candidate != nullptr && candidate != known_greater").Do(  // right
                    Prefetch("candidate").
                    Prefetch("&List::links_of(candidate)[level]").  // the link this level reads
                    Yield("at_candidate").
                    If("candidate->key == key").Then(Return("candidate->value")).
                    If("key < candidate->key").Then(Assign("known_greater", "candidate").Break()).
                    Assign("predecessor", "candidate").
                    Assign("candidate", "List::links_of(candidate)[level]"))).
            Return("std::nullopt"));
}
