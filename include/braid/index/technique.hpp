// The techniques an index's multi_find can run, by the names the papers and braid-bench use.
//
//   naive  the plain lookup, one key after another (the baseline and the oracle)
//   gp     group prefetching: groups of G keys advance in lock step, stage by stage
//   amac   asynchronous memory access chaining: a ring of G hand-written state machines
//   coro   the lookup coroutine instantiated `chained` on a chained_scheduler, each suspension
//          handing over to the next coroutine directly: where the structure writes its lookup
//          over a stream of inputs (`lookups<M>`, braid/core/input_stream.hpp), G long-lived
//          coroutines that each take the next key when they finish one (the thesis's Coro-S);
//          otherwise `lookup<M>`, one coroutine frame per lookup (CoroBase's flattened operation)
//   coro_nested  the nested form, `lookup_nested<M>`: each helper function its own task<>
//          (the mechanical conversion), where a structure has one (B+-tree, Masstree)
//   fiber  the same lookup as a plain function yielding on a stackful fiber, G in flight
//   adaptive  the plain lookup or the interleaved coroutine lookup, and the group (at most G),
//          chosen window by window while it runs from the throughput it measures: windows of
//          `find` or of the long-lived chained coroutines of `coro` (on an adaptive_scheduler,
//          one coroutine per key, for a structure without the stream form)
//   imlp-dynamic, imlp-static, imlp-hybrid  the state machines tools/imlp generates from the
//          structure's kernel description (braid/index/kernels/), G contexts, run by the dynamic
//          refill, static batch or hybrid schedule of braid/core/imlp_scheduler.hpp
//
// Every technique must return exactly what `naive` returns, in input order. A structure that
// lacks one rejects it in multi_find with std::invalid_argument naming the structure, the
// technique and what it has.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace braid {

enum class technique { naive, gp, amac, coro, coro_nested, fiber, adaptive, imlp_dynamic, imlp_static, imlp_hybrid };

inline constexpr technique all_techniques[] = {technique::naive,       technique::gp,    technique::amac,
                                               technique::coro,        technique::coro_nested,
                                               technique::fiber,       technique::adaptive,
                                               technique::imlp_dynamic, technique::imlp_static,
                                               technique::imlp_hybrid};

constexpr std::string_view to_string(technique t) noexcept {
  switch (t) {
    case technique::naive: return "naive";
    case technique::gp: return "gp";
    case technique::amac: return "amac";
    case technique::coro: return "coro";
    case technique::coro_nested: return "coro_nested";
    case technique::fiber: return "fiber";
    case technique::adaptive: return "adaptive";
    case technique::imlp_dynamic: return "imlp-dynamic";
    case technique::imlp_static: return "imlp-static";
    case technique::imlp_hybrid: return "imlp-hybrid";
  }
  return "?";
}

// Throws std::invalid_argument naming the unknown technique.
inline technique parse_technique(std::string_view name) {
  for (technique t : all_techniques) {
    if (to_string(t) == name) return t;
  }
  throw std::invalid_argument("unknown technique '" + std::string(name) +
                              "' (naive, gp, amac, coro, coro_nested, fiber, adaptive, imlp-dynamic, imlp-static, "
                              "imlp-hybrid)");
}

}  // namespace braid
