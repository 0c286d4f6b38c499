// The joins of braid-bench that run braid coroutines (the no-partition hash join and the index
// joins), for `braid-bench join`. Defined in experiments/hash_join.cpp, the translation unit
// that instantiates those coroutines for the join experiments: GCC 12 names a coroutine's
// actor with a counter of its translation unit, so the same coroutine instantiated in two
// units of one program can fail to link ("defined in discarded section").
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "braid/index/technique.hpp"
#include "braid/join/relation.hpp"

namespace braid::bench {

// R ⋈ S by `algorithm`: "no-partition" (build and probe by `how`, the probe on `threads`
// threads) or "index-bplus", "index-csb", "index-masstree" (S looked up by `how`). Throws
// std::invalid_argument for what the join refuses (a technique it lacks, repeated keys in R
// for an index) and for an unknown algorithm.
join::join_output run_coroutine_join(const std::string& algorithm, std::span<const join::tuple> build,
                                     std::span<const join::tuple> probe, technique how, std::size_t group,
                                     unsigned threads, bool materialize);

}  // namespace braid::bench
