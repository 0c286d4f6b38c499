// The multi_scan of the ordered indexes with range scans (skip list, B+-tree), beside the one
// multi_find of every index (detail/multi_find.hpp). An index with range scans provides
//   scan(start, limit, visitor)                         the plain scan
//   scan_coroutine<M>(start, limit, visitor)            the interleavable scan
//   scan_on_fiber<Hint>(fiber_context&, start, limit, visitor)
// and ordered_multi_scan runs many of them (naive, coro or fiber).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "braid/core/fiber.hpp"
#include "braid/core/mode.hpp"
#include "braid/core/prefetch.hpp"
#include "braid/core/scheduler.hpp"
#include "braid/index/detail/adaptive_lookups.hpp"
#include "braid/index/detail/batch_arguments.hpp"
#include "braid/index/detail/loads.hpp"
#include "braid/index/detail/multi_find.hpp"
#include "braid/index/technique.hpp"

namespace braid::detail {

// Runs every scan request ({start, limit}) with `how`, calling visit(request index, key, value)
// for each entry (in key order within a request; requests interleave with each other), and
// writes how many entries each request visited to visited[i]. Throws std::invalid_argument for
// gp, amac and coro_nested (no paper has them for scans; the scan coroutine is one form), a short `visited` or group 0.
template <prefetch_hint Hint, class Index, class Request, class Visitor>
void ordered_multi_scan(const Index& index, std::span<const Request> requests, std::span<std::size_t> visited,
                        technique how, std::size_t group, Visitor& visit, const char* structure) {
  check_batch_arguments(requests.size(), visited.size(), group, structure);
  auto visitor_of = [&visit](std::size_t request) {
    return [&visit, request](const auto& key, const auto& value) { visit(request, key, value); };
  };
  auto deliver = [&visited](std::size_t request, std::size_t count) { visited[request] = count; };
  auto interleaved_scan = [&](std::size_t i) {
    return index.template scan_coroutine<interleaved_with<Hint>>(requests[i].start, requests[i].limit, visitor_of(i));
  };
  switch (how) {
    case technique::naive:
      for (std::size_t i = 0; i < requests.size(); ++i) {
        visited[i] = index.scan(requests[i].start, requests[i].limit, visitor_of(i));
      }
      return;
    case technique::coro:
      interleaved_scheduler{group}.run(requests.size(), interleaved_scan, deliver);
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
    case technique::amac:
    case technique::coro_nested:
    case technique::imlp_dynamic:
    case technique::imlp_static:
    case technique::imlp_hybrid:
      break;
  }
  throw std::invalid_argument(std::string(structure) + ": technique '" + std::string(to_string(how)) +
                              "' is not available (naive, coro, fiber, adaptive)");
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
// visited; gp, amac, coro_nested, a short `visited` or group 0 refused with
// std::invalid_argument.
template <class Structure, class Key>
class multi_scan_member {
 public:
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
