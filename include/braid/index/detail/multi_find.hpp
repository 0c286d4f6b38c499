// The one multi_find of every index: runs a `technique` over a batch of keys through the
// structure's own protocol members, results in input order.
//
// A structure `S` with key type `K` and result type `R` provides
//   R find(K) const                                       the plain lookup: naive, and the oracle
//   template <execution_mode M> coro<R> lookup(K) const   the coroutine lookup: coro (chained_with<H>
//                                                         on a chained_scheduler) and adaptive (its
//                                                         sequential and chained instantiations),
//                                                         unless the structure has
//   template <execution_mode M, class Inputs>             the same lookup written over a stream
//     stream_coro<Inputs> lookups(Inputs) const           of inputs (core/input_stream.hpp), of
//                                                         which lookup<M> is the single-input
//                                                         form: coro runs G long-lived ones over
//                                                         the batch, chained_with<H> on a
//                                                         chained_scheduler, and adaptive runs
//                                                         windows of them or of find
// and, where it has them,
//   template <execution_mode M> task<R> lookup_nested(K) const              coro_nested
//   template <prefetch_hint H> void find_group_prefetching(span<const K>, span<R>, size_t) const   gp
//   template <prefetch_hint H> void find_amac(span<const K>, span<R>, size_t) const               amac
//   template <prefetch_hint H> R find_on_fiber(fiber_context&, K) const     fiber
//   template <prefetch_hint H> using imlp_kernel = <its generated IMLP kernel>   imlp-dynamic,
//   template <class Kernel> Kernel::shared_args imlp_shared() const             imlp-static,
//                                                  imlp-hybrid (find_imlp below runs the kernel)
// A technique whose member is missing is rejected with std::invalid_argument naming the
// structure and what it has; so are an `out` shorter than `keys` and a group of 0.
//
// Cost: one check and one switch per batch; the lookups run as each technique runs them.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>

#include "braid/core/chained_scheduler.hpp"
#include "braid/core/coro.hpp"
#include "braid/core/fiber.hpp"
#include "braid/core/imlp_scheduler.hpp"
#include "braid/core/input_stream.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/prefetch.hpp"
#include "braid/core/scheduler.hpp"
#include "braid/index/detail/adaptive_lookups.hpp"
#include "braid/index/detail/batch_arguments.hpp"
#include "braid/index/technique.hpp"

namespace braid::detail {

template <class S, class K, class R, prefetch_hint Hint>
concept has_group_prefetching = requires(const S& s, std::span<const K> keys, std::span<R> out) {
  s.template find_group_prefetching<Hint>(keys, out, std::size_t{1});
};
template <class S, class K, class R, prefetch_hint Hint>
concept has_amac = requires(const S& s, std::span<const K> keys, std::span<R> out) {
  s.template find_amac<Hint>(keys, out, std::size_t{1});
};
template <class S, class K, prefetch_hint Hint>
concept has_fiber_lookup = requires(const S& s, fiber_context& context, const K& key) {
  s.template find_on_fiber<Hint>(context, key);
};
template <class S, prefetch_hint Hint>
concept has_imlp_kernel = requires(const S& s) {
  s.template imlp_shared<typename S::template imlp_kernel<Hint>>();
};
template <class S, class K, class R, prefetch_hint Hint>
concept has_imlp = has_imlp_kernel<S, Hint> && requires(const S& s, std::span<const K> keys, std::span<R> out) {
  s.template find_imlp<Hint>(keys, out, std::size_t{1}, imlp_schedule::dynamic);
};
// The lookup written once as a loop over a stream of inputs (braid/core/input_stream.hpp).
template <class S, class K, class R>
concept has_stream_lookup = requires(const S& s, input_batch<K, R>& batch) {
  { s.template lookups<chained>(shared_inputs<K, R>(batch)) } -> std::same_as<coro<void>>;
};
template <class S, class K>
concept has_nested_lookup = requires(const S& s, const K& key) { s.template lookup_nested<sequential>(key); };

// Whether `S` implements `how` (naive, coro and adaptive: every structure).
template <class S, class K, class R, prefetch_hint Hint>
constexpr bool implements(technique how) noexcept {
  switch (how) {
    case technique::gp: return has_group_prefetching<S, K, R, Hint>;
    case technique::amac: return has_amac<S, K, R, Hint>;
    case technique::coro_nested: return has_nested_lookup<S, K>;
    case technique::fiber: return has_fiber_lookup<S, K, Hint>;
    case technique::imlp_dynamic:
    case technique::imlp_static:
    case technique::imlp_hybrid: return has_imlp<S, K, R, Hint>;
    case technique::naive:
    case technique::coro:
    case technique::adaptive: return true;
  }
  return false;
}

template <class S, class K, class R, prefetch_hint Hint>
[[noreturn]] void reject_technique(technique how, const char* structure) {
  std::string available;
  for (technique t : all_techniques) {
    if (!implements<S, K, R, Hint>(t)) continue;
    available += available.empty() ? "" : ", ";
    available += to_string(t);
  }
  throw std::invalid_argument(std::string(structure) + "::multi_find: technique '" + std::string(to_string(how)) +
                              "' is not implemented by this structure (it has " + available + ")");
}

// The schedule of an imlp technique (imlp_dynamic, imlp_static or imlp_hybrid).
constexpr imlp_schedule imlp_schedule_of(technique how) noexcept {
  return how == technique::imlp_dynamic ? imlp_schedule::dynamic
         : how == technique::imlp_static ? imlp_schedule::static_batch
                                         : imlp_schedule::hybrid;
}

template <prefetch_hint Hint, class S, class K, class R>
void run_multi_find(const S& structure, std::span<const K> keys, std::span<R> out, technique how, std::size_t group,
                    const char* name) {
  check_batch_arguments(keys.size(), out.size(), group, std::string(name) + "::multi_find");
  using hinted = interleaved_with<Hint>;
  switch (how) {
    case technique::naive:
      for (std::size_t i = 0; i < keys.size(); ++i) out[i] = structure.find(keys[i]);
      return;
    case technique::coro:
      if constexpr (has_stream_lookup<S, K, R>) {
        run_over_batch(chained_scheduler{group}, keys, out, [&structure](shared_inputs<K, R> inputs) {
          return structure.template lookups<chained_with<Hint>>(inputs);
        });
      } else {
        run_into(chained_scheduler{group}, keys,
                 [&structure](const K& key) { return structure.template lookup<chained_with<Hint>>(key); }, out);
      }
      return;
    case technique::adaptive:
      if constexpr (has_stream_lookup<S, K, R>) {
        run_adaptive_stream_lookups<S>(
            keys, out, group, [&structure](const K& key) { return structure.find(key); },
            [&structure](shared_inputs<K, R> inputs) { return structure.template lookups<chained_with<Hint>>(inputs); });
      } else {
        run_adaptive_lookups<S>(
            keys, out, group, [&structure](const K& key) { return structure.template lookup<sequential>(key); },
            [&structure](const K& key) { return structure.template lookup<chained_with<Hint>>(key); });
      }
      return;
    case technique::coro_nested:
      if constexpr (has_nested_lookup<S, K>) {
        run_into(interleaved_scheduler{group}, keys,
                 [&structure](const K& key) { return structure.template lookup_nested<hinted>(key); }, out);
        return;
      }
      break;
    case technique::gp:
      if constexpr (has_group_prefetching<S, K, R, Hint>) {
        structure.template find_group_prefetching<Hint>(keys, out, group);
        return;
      }
      break;
    case technique::amac:
      if constexpr (has_amac<S, K, R, Hint>) {
        structure.template find_amac<Hint>(keys, out, group);
        return;
      }
      break;
    case technique::imlp_dynamic:
    case technique::imlp_static:
    case technique::imlp_hybrid:
      if constexpr (has_imlp<S, K, R, Hint>) {
        structure.template find_imlp<Hint>(keys, out, group, imlp_schedule_of(how));
        return;
      }
      break;
    case technique::fiber:
      if constexpr (has_fiber_lookup<S, K, Hint>) {
        run_into(
            interleaved_scheduler{group}, keys,
            [&structure](const K& key) {
              return fiber<R>([&structure, key](fiber_context& context) {
                return structure.template find_on_fiber<Hint>(context, key);
              });
            },
            out);
        return;
      }
      break;
  }
  reject_technique<S, K, R, Hint>(how, name);
}

// The multi_find member of every index: a structure derives from
//   detail::multi_find_member<itself, key type, result type>
// and names itself (`static constexpr const char* structure_name`), and has
//   multi_find(keys, out, technique, group)          with its default_prefetch_hint
//   multi_find<Hint>(keys, out, technique, group)    with another prefetch hint
// which run run_multi_find: `group` lookups in flight, out[i] the result of keys[i], a
// technique the structure lacks, a short `out` or group 0 refused with std::invalid_argument;
// and, for a structure that names an IMLP kernel (imlp_kernel, imlp_shared above),
//   find_imlp<Hint, Layout, Dispatch>(keys, out, group, schedule)
// the generated lookup: min(group, 128) contexts of the kernel under `schedule`, the same checks.
template <class Structure, class Key, class Result>
class multi_find_member {
 public:
  void multi_find(std::span<const Key> keys, std::span<Result> out, technique how, std::size_t group) const {
    run_multi_find<Structure::default_prefetch_hint>(self(), keys, out, how, group, Structure::structure_name);
  }
  template <prefetch_hint Hint>
  void multi_find(std::span<const Key> keys, std::span<Result> out, technique how, std::size_t group) const {
    run_multi_find<Hint>(self(), keys, out, how, group, Structure::structure_name);
  }
  template <prefetch_hint Hint, imlp_layout Layout = imlp_layout::soa,
            imlp_dispatch Dispatch = imlp_dispatch::switch_table>
    requires has_imlp_kernel<Structure, Hint>
  void find_imlp(std::span<const Key> keys, std::span<Result> out, std::size_t group, imlp_schedule schedule) const {
    check_batch_arguments(keys.size(), out.size(), group, std::string(Structure::structure_name) + "::find_imlp");
    using kernel = typename Structure::template imlp_kernel<Hint>;
    imlp_map<kernel, Layout, Dispatch>(schedule, self().template imlp_shared<kernel>(), keys, out, group);
  }

 private:
  const Structure& self() const noexcept { return static_cast<const Structure&>(*this); }
};

}  // namespace braid::detail
