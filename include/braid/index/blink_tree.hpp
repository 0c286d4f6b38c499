// blink_tree: the B-link tree of MxTasking's dissertation (Ch. 5), 8-byte keys and values in
// 1 KiB nodes whose latch and version words are the task runtime's.
//
//   braid::tasks::runtime workers({.workers = 2});
//   braid::blink_tree tree(workers);
//   tree.insert(42, 7);                                  // adds: true
//   tree.insert(42, 8);                                  // present, kept: false
//   tree.insert_or_assign(42, 9);                        // overwrites: false
//   std::optional<std::uint64_t> v = tree.find(42);      // 9
//
// This header is the tree (blink_tree/tree.hpp: the class, its thread form and the coroutine
// lookup) with its nodes (blink_tree/node.hpp); the operations as tasks are in
// blink_tree/tasks.hpp. Structure, invariants and complexity are stated in tree.hpp and
// node.hpp.
#pragma once

#include "braid/index/blink_tree/node.hpp"
#include "braid/index/blink_tree/tree.hpp"
