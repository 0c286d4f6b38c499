// The multi_scan of the ordered indexes with range scans (skip list, B+-tree), beside the one
// multi_find of every index (detail/multi_find.hpp). An index with range scans provides
//   scan(start, limit, visitor)                         the plain scan: naive, and the oracle
//   scan_coroutine<M>(start, limit, visitor)            the interleavable scan: coro, adaptive
//       (a coro<> runs chained_with<H> on a chained_scheduler, each suspension handing over to
//       the next scan; a task<>, the B+-tree's nested descent, interleaved_with<H> on the ring)
//   scan_on_fiber<Hint>(fiber_context&, start, limit, visitor)                     fiber
// and, where it has them (visit below is the batch visitor, visit(request, key, value)),
//   template <prefetch_hint H> void scan_group_prefetching(requests, visited, group, visit)  gp
//   template <prefetch_hint H> void scan_amac(requests, visited, group, visit)               amac
//   template <prefetch_hint H, class V> using imlp_scan_kernel = <its generated scan kernel,
//       Args (start, limit, request index), result the count visited, calling the V it is
//       given with each entry>                                                    imlp-dynamic,
//   template <class Kernel, class V> Kernel::shared_args imlp_scan_shared(V& visit) const
//                                                                   imlp-static, imlp-hybrid
// and ordered_multi_scan runs many of them; a technique whose member is missing is rejected
// with std::invalid_argument naming the structure and what it has.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "braid/core/chained_scheduler.hpp"
#include "braid/core/fiber.hpp"
#include "braid/core/imlp_scheduler.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/prefetch.hpp"
#include "braid/core/scheduler.hpp"
#include "braid/index/detail/adaptive_lookups.hpp"
#include "braid/index/detail/batch_arguments.hpp"
#include "braid/index/detail/loads.hpp"
#include "braid/index/detail/multi_find.hpp"
#include "braid/index/technique.hpp"

namespace braid::detail {

template <class I, class R, prefetch_hint Hint, class V>
concept has_scan_group_prefetching = requires(const I& index, std::span<const R> requests, std::span<std::size_t> visited,
                                              V& visit) {
  index.template scan_group_prefetching<Hint>(requests, visited, std::size_t{1}, visit);
};
template <class I, class R, prefetch_hint Hint, class V>
concept has_scan_amac = requires(const I& index, std::span<const R> requests, std::span<std::size_t> visited, V& visit) {
  index.template scan_amac<Hint>(requests, visited, std::size_t{1}, visit);
};
template <class I, prefetch_hint Hint, class V>
concept has_imlp_scan_kernel = requires(const I& index, V& visit) {
  index.template imlp_scan_shared<typename I::template imlp_scan_kernel<Hint, V>>(visit);
};

// Whether index type I scans with `how` (naive, coro, fiber and adaptive: every one).
template <class I, class R, prefetch_hint Hint, class V>
constexpr bool implements_scan(technique how) noexcept {
  switch (how) {
    case technique::gp: return has_scan_group_prefetching<I, R, Hint, V>;
    case technique::amac: return has_scan_amac<I, R, Hint, V>;
    case technique::imlp_dynamic:
    case technique::imlp_static:
    case technique::imlp_hybrid: return has_imlp_scan_kernel<I, Hint, V>;
    case technique::coro_nested: return false;  // the scan coroutine is one form
    case technique::naive:
    case technique::coro:
    case technique::fiber:
    case technique::adaptive: return true;
  }
  return false;
}

// The generated scans: min(group, 128) contexts of the index's scan kernel under `schedule`,
// each started with (start, limit, request index); visited[i] the kernel's result for request i.
// The width is 16 for groups up to 16 and 128 above, as for imlp_map.
template <prefetch_hint Hint, imlp_layout Layout, imlp_dispatch Dispatch, class Index, class Request, class Visitor>
void run_imlp_scans(const Index& index, std::span<const Request> requests, std::span<std::size_t> visited,
                    std::size_t group, imlp_schedule schedule, Visitor& visit) {
  using kernel = typename Index::template imlp_scan_kernel<Hint, Visitor>;
  const typename kernel::shared_args shared = index.template imlp_scan_shared<kernel>(visit);
  auto start = [&requests](auto& slots, std::size_t slot, std::size_t request) {
    kernel::start(slots, slot, requests[request].start, requests[request].limit, request);
  };
  auto finish = [&visited](std::size_t request, std::size_t count) { visited[request] = count; };
  if (group <= 16) {
    imlp_run<kernel, 16, Layout, Dispatch>(schedule, shared, requests.size(), group, start, finish);
  } else {
    imlp_run<kernel, 128, Layout, Dispatch>(schedule, shared, requests.size(), group, start, finish);
  }
}

// Runs every scan request ({start, limit}) with `how`, calling visit(request index, key, value)
// for each entry (in key order within a request; requests interleave with each other), and
// writes how many entries each request visited to visited[i]. Throws std::invalid_argument for
// a technique the index lacks (coro_nested always: the scan coroutine is one form), a short
// `visited` or group 0.
template <prefetch_hint Hint, class Index, class Request, class Visitor>
void ordered_multi_scan(const Index& index, std::span<const Request> requests, std::span<std::size_t> visited,
                        technique how, std::size_t group, Visitor& visit, const char* structure) {
  check_batch_arguments(requests.size(), visited.size(), group, structure);
  auto visitor_of = [&visit](std::size_t request) {
    return [&visit, request](const auto& key, const auto& value) { visit(request, key, value); };
  };
  auto deliver = [&visited](std::size_t request, std::size_t count) { visited[request] = count; };
  // A scan written as a coro<> runs chained (each suspension hands over to the next scan of the
  // ring); one written as a task<> (a nested descent) runs on the interleaved ring.
  using chained_scan_op =
      decltype(index.template scan_coroutine<chained_with<Hint>>(requests[0].start, 0, visitor_of(0)));
  constexpr bool chains = chainable_operation<chained_scan_op>;
  using interleaved_mode = std::conditional_t<chains, chained_with<Hint>, interleaved_with<Hint>>;
  auto interleaved_scan = [&](std::size_t i) {
    return index.template scan_coroutine<interleaved_mode>(requests[i].start, requests[i].limit, visitor_of(i));
  };
  switch (how) {
    case technique::naive:
      for (std::size_t i = 0; i < requests.size(); ++i) {
        visited[i] = index.scan(requests[i].start, requests[i].limit, visitor_of(i));
      }
      return;
    case technique::coro:
      if constexpr (chains) chained_scheduler{group}.run(requests.size(), interleaved_scan, deliver);
      else interleaved_scheduler{group}.run(requests.size(), interleaved_scan, deliver);
      return;
    case technique::fiber:
      interleaved_scheduler{group}.run(
          requests.size(),
          [&](std::size_t i) {
            return fiber<std::size_t>([&index, &requests, &visitor_of, i](fiber_context& context) {
              return index.template scan_on_fiber<Hint>(context, requests[i].start, requests[i].limit, visitor_of(i));
            });
          },
          deliver);
      return;
    case technique::adaptive: {
      struct scans;  // scans learn apart from the lookups of the same structure
      adaptive_scheduler_for<std::pair<Index, scans>>(group).run(
          requests.size(),
          [&](std::size_t i) {
            return index.template scan_coroutine<sequential>(requests[i].start, requests[i].limit, visitor_of(i));
          },
          interleaved_scan, deliver);
      return;
    }
    case technique::gp:
      if constexpr (has_scan_group_prefetching<Index, Request, Hint, Visitor>) {
        index.template scan_group_prefetching<Hint>(requests, visited, group, visit);
        return;
      }
      break;
    case technique::amac:
      if constexpr (has_scan_amac<Index, Request, Hint, Visitor>) {
        index.template scan_amac<Hint>(requests, visited, group, visit);
        return;
      }
      break;
    case technique::imlp_dynamic:
    case technique::imlp_static:
    case technique::imlp_hybrid:
      if constexpr (has_imlp_scan_kernel<Index, Hint, Visitor>) {
        run_imlp_scans<Hint, imlp_layout::soa, imlp_dispatch::switch_table>(index, requests, visited, group,
                                                                            imlp_schedule_of(how), visit);
        return;
      }
      break;
    case technique::coro_nested:
      break;
  }
  std::string available;
  for (technique t : all_techniques) {
    if (!implements_scan<Index, Request, Hint, Visitor>(t)) continue;
    available += available.empty() ? "" : ", ";
    available += to_string(t);
  }
  throw std::invalid_argument(std::string(structure) + ": technique '" + std::string(to_string(how)) +
                              "' is not available (it has " + available + ")");
}

// A batch entry of multi_scan: up to `limit` entries from the first key >= `start`.
template <class Key>
struct scan_request {
  Key start;
  std::size_t limit;
};

// The multi_scan member of the ordered indexes with range scans: a structure derives from
//   detail::multi_scan_member<itself, key type>
// (and names itself as for multi_find) and has
//   multi_scan(requests, visited, technique, group, visit)        with its default_prefetch_hint
//   multi_scan<Hint>(requests, visited, technique, group, visit)  with another prefetch hint
// which run ordered_multi_scan: visit(request index, key, value) for each entry, in key order
// within a request (requests interleave with each other); visited[i] the entries request i
// visited; a technique the structure lacks, a short `visited` or group 0 refused with
// std::invalid_argument; and, for a structure that names an IMLP scan kernel,
//   scan_imlp<Hint, Layout, Dispatch>(requests, visited, group, schedule, visit)
// the generated scans in any layout and dispatch (run_imlp_scans), with the same checks.
template <class Structure, class Key>
class multi_scan_member {
 public:
  template <prefetch_hint Hint, imlp_layout Layout = imlp_layout::soa,
            imlp_dispatch Dispatch = imlp_dispatch::switch_table, class Visitor>
    requires has_imlp_scan_kernel<Structure, Hint, std::remove_reference_t<Visitor>>
  void scan_imlp(std::span<const scan_request<Key>> requests, std::span<std::size_t> visited, std::size_t group,
                 imlp_schedule schedule, Visitor&& visit) const {
    check_batch_arguments(requests.size(), visited.size(), group, std::string(Structure::structure_name) + "::scan_imlp");
    run_imlp_scans<Hint, Layout, Dispatch>(static_cast<const Structure&>(*this), requests, visited, group, schedule,
                                           visit);
  }

  template <class Visitor>
  void multi_scan(std::span<const scan_request<Key>> requests, std::span<std::size_t> visited, technique how,
                  std::size_t group, Visitor&& visit) const {
    multi_scan<Structure::default_prefetch_hint>(requests, visited, how, group, visit);
  }
  template <prefetch_hint Hint, class Visitor>
  void multi_scan(std::span<const scan_request<Key>> requests, std::span<std::size_t> visited, technique how,
                  std::size_t group, Visitor&& visit) const {
    ordered_multi_scan<Hint>(static_cast<const Structure&>(*this), requests, visited, how, group, visit,
                             (std::string(Structure::structure_name) + "::multi_scan").c_str());
  }
};

}  // namespace braid::detail
