// IMLP kernel: binary_search_tree::find (Cimple's Listing 1). Generated into
// braid/index/generated/binary_search_tree_find.hpp by braid-imlp at build time.
#include "imlp.hpp"

using namespace braid::imlp;

BRAID_IMLP_KERNEL(binary_search_tree_find) {
  return Coroutine("binary_search_tree_find")
      .Doc("binary_search_tree lookup: one Yield per node below the root (the root is hot), branch-free descent.")
      .Template("class Node, class Key, class Value")
      .Include("<optional>")
      .Result("std::optional<Value>")
      .SharedArg("const Node*", "root")
      .Arg("Key", "key")
      .Variable("const Node*", "n")
      .Body(If("root == nullptr").Then(Return("std::nullopt")).
            Assign("n", "root").  // the root is hot: examined at once
            While("true").Do(
                If("n->key == key").Then(Return("n->value")).
                Assign("n", "n->child[key > n->key]").  // no branch on the comparison
                If("n == nullptr").Then(Return("std::nullopt")).
                Prefetch("n").Yield("at_node")).  // other lookups run while the node's line arrives
            Return("std::nullopt"));  // not reached
}
