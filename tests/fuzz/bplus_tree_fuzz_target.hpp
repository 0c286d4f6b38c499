// The target of fuzz_updatable (index_fuzz_harness.hpp) for the B+-tree, shared by its node
// sizes: NodeBytes-byte nodes, runs of up to LongestRun keys (enough for several levels of
// them), the invariant check, and the tree's shape for the harness's reports.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "braid/index/bplus_tree.hpp"
#include "index_fuzz_harness.hpp"

namespace braid::fuzzing {

template <std::size_t NodeBytes, std::size_t LongestRun>
struct bplus_tree_target {
  using structure = bplus_tree<std::uint64_t, std::uint64_t, NodeBytes>;
  using keys = unsigned_keys;
  static constexpr std::size_t longest_run = LongestRun;
  static structure make() { return structure(page_size::small_4k); }
  static void check(const structure& tree) { tree.check_invariants(); }
  static constexpr const char* shape_names[] = {"height", "inner nodes", "leaves"};
  static std::array<std::size_t, 3> shape(const structure& tree) {
    const auto nodes = tree.describe_shape();
    return {tree.height(), nodes.inner_nodes, nodes.leaves};
  }
};

}  // namespace braid::fuzzing
