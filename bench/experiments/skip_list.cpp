// skip-list: point lookups and 1,000-entry range scans in a folly-like skip list (Cimple's SL
// and SLi, PACT'18 Fig. 1: 2.7x for lookups, 4.1x for range iteration, single thread).
//
// The list holds distinct random 64-bit keys inserted in random order (nodes in insertion
// order on huge pages, towers geometric with p = 1/e). Lookups: all keys present, drawn by
// --dist. Scans: --keys / 100 scans of 1,000 entries from present start keys; each scan finds
// its first entry (the descent) and walks level 0, suspending at every entry when
// interleaved. Per technique and group: ns per operation, speedup over the plain algorithm,
// roofline fraction, frame bytes. Peers: std::map and absl::btree_map (find, and
// lower_bound + 1,000 increments) on the same keys.
#include <absl/container/btree_map.h>

#include <cmath>
#include <map>

#include "braid/index/skip_list.hpp"
#include "figures.hpp"
#include "headline.hpp"
#include "ordered_experiment.hpp"

namespace braid::bench {
namespace {

using list_type = skip_list<std::uint64_t, std::uint64_t>;
using namespace ordered;

constexpr std::size_t scan_length = 1000;

// Expected arena bytes per node: node sizes weighted by the height distribution.
double expected_node_bytes() {
  const double p = std::exp(-1.0);
  double bytes = 0;
  for (std::size_t height = 1; height <= list_type::max_height; ++height) {
    const double stride = std::ceil(static_cast<double>(list_type::links_offset + height * 8) / 32.0) * 32.0;
    bytes += (1 - p) * std::pow(p, static_cast<double>(height - 1)) * stride;
  }
  return bytes;
}

template <class Map>
auto peer_scans(const Map& map, std::span<const list_type::scan_request> requests) {
  return [&map, requests](std::span<std::optional<std::uint64_t>> out) {
    for (std::size_t i = 0; i < requests.size(); ++i) {
      std::uint64_t sum = 0;
      std::size_t visited = 0;
      for (auto it = map.lower_bound(requests[i].start); it != map.end() && visited < requests[i].limit; ++it) {
        sum += it->second;
        ++visited;
      }
      out[i] = sum ^ visited;
    }
  };
}

void run_skip_list(run_context& context) {
  const bool quick = context.quick();
  const std::vector<std::size_t> sizes = context.sizes_or({quick ? std::size_t{16} << 20 : dram_resident_bytes()});
  const std::vector<std::size_t> groups = context.groups_or(quick ? std::vector<std::size_t>{16}
                                                                  : std::vector<std::size_t>{8, 16, 32, 64});
  const std::size_t lookup_count = context.keys_or(quick ? 20'000 : 200'000);
  const std::size_t scan_count = std::max<std::size_t>(lookup_count / 100, 10);
  const unsigned repetitions = context.repetitions_or(quick ? 3 : 5);
  const page_size pages = context.pages_or(page_size::huge_2m);
  const bool with_std_map = context.selected("std-map");
  const bool with_absl = context.selected("absl-btree");

  for (std::size_t size : sizes) {
    const auto count = std::max<std::size_t>(static_cast<std::size_t>(static_cast<double>(size) / expected_node_bytes()), 1);
    context.require_memory(size + count * 50 + (with_std_map ? count * 64 : 0) + (with_absl ? count * 24 : 0),
                           "skip list of " + format_bytes(size) + " with its build buffers and peers");
    context.progress("building a skip list of " + std::to_string(count) + " nodes");
    const std::vector<std::uint64_t> keys = distinct_random_keys(count, context.seed());
    std::optional<list_type> built;
    {
      std::vector<std::uint64_t> values(count);
      for (std::size_t i = 0; i < count; ++i) values[i] = value_of(keys[i]);
      built.emplace(keys, values, pages, context.seed());
    }
    const list_type& list = *built;
    context.note("skip_list_pages", list.describe_pages());
    const std::vector<std::uint64_t> lookups = lookup_keys(context, keys, lookup_count);
    std::vector<list_type::scan_request> requests;
    for (std::uint64_t start : lookup_keys(context, keys, scan_count)) requests.push_back({start, scan_length});

    std::map<std::uint64_t, std::uint64_t> std_map;
    absl::btree_map<std::uint64_t, std::uint64_t> absl_map;
    if (with_std_map || with_absl) {
      context.progress("building the peers");
      std::vector<std::uint64_t> sorted_keys = keys;
      std::sort(sorted_keys.begin(), sorted_keys.end());
      if (with_std_map) std_map = sorted_peer<std::map<std::uint64_t, std::uint64_t>>(sorted_keys);
      if (with_absl) absl_map = sorted_peer<absl::btree_map<std::uint64_t, std::uint64_t>>(sorted_keys);
    }

    const std::vector<std::pair<std::string, field_value>> shared_fields = {
        {"nodes", static_cast<std::int64_t>(list.size())},
        {"levels", static_cast<std::int64_t>(list.height())},
        {"pages", obtained_pages(list.describe_pages())},
        {"distribution", context.distribution_or({}).describe()}};

    // ---- point lookups ----
    {
      const std::span<const std::uint64_t> lookup_span(lookups);
      auto multi_find_with = [&list, lookup_span](technique how, std::size_t group) {
        return [&list, lookup_span, how, group](std::span<std::optional<std::uint64_t>> out) {
          list.multi_find(lookup_span, out, how, group);
        };
      };
      const auto frame_bytes = static_cast<std::int64_t>(
          pool_bytes_per_operation([&] { return list.lookup<interleaved>(lookups.front()); }));
      std::vector<variant> variants;
      variants.push_back({"naive", 0, true, multi_find_with(technique::naive, 1), {}});
      for (std::size_t group : groups) {
        if (context.selected("coro")) {
          variants.push_back({"coro", group, false, multi_find_with(technique::coro, group), {{"frame_bytes", frame_bytes}}});
        }
        if (context.selected("coro-nta")) {
          variants.push_back({"coro-nta", group, false,
                              [&list, lookup_span, group](std::span<std::optional<std::uint64_t>> out) {
                                list.multi_find<prefetch_hint::nta>(lookup_span, out, technique::coro, group);
                              },
                              {{"frame_bytes", frame_bytes}}});
        }
        if (context.selected("fiber")) variants.push_back({"fiber", group, false, multi_find_with(technique::fiber, group), {}});
      }
      if (with_std_map) variants.push_back({"std-map", 0, false, peer_fill(std_map, lookup_span), {}});
      if (with_absl) variants.push_back({"absl-btree", 0, false, peer_fill(absl_map, lookup_span), {}});

      run_description run;
      run.structure = "skip_list";
      run.size_bytes = list.memory_bytes();
      run.operations = lookups.size();
      run.repetitions = repetitions;
      run.lines_per_operation = suspensions_per_operation(
          lookup_span.first(std::min<std::size_t>(lookups.size(), 20'000)),
          [&](std::uint64_t key) { return list.lookup<interleaved>(key); });
      run.descent_node_bytes = static_cast<std::size_t>(expected_node_bytes());
      run.extra = shared_fields;
      run.extra.emplace_back("operation", "lookup");
      context.progress("measuring lookups");
      measure_and_emit(context, run, variants);
    }

    // ---- range scans ----
    {
      const std::span<const list_type::scan_request> request_span(requests);
      auto multi_scan_with = [&list, request_span](technique how, std::size_t group, auto hint) {
        return [&list, request_span, how, group](std::span<std::optional<std::uint64_t>> out) {
          std::vector<std::uint64_t> sums(request_span.size(), 0);
          std::vector<std::size_t> visited(request_span.size(), 0);
          list.multi_scan<decltype(hint)::value>(request_span, std::span(visited), how, group,
                                                 [&sums](std::size_t request, std::uint64_t, std::uint64_t value) {
                                                   sums[request] += value;
                                                 });
          for (std::size_t i = 0; i < out.size(); ++i) out[i] = sums[i] ^ visited[i];
        };
      };
      using t0 = std::integral_constant<prefetch_hint, prefetch_hint::t0>;
      using nta = std::integral_constant<prefetch_hint, prefetch_hint::nta>;
      const auto frame_bytes = static_cast<std::int64_t>(pool_bytes_per_operation([&] {
        return list.scan_coroutine<interleaved>(requests.front().start, 3, [](std::uint64_t, std::uint64_t) {});
      }));
      std::vector<variant> variants;
      variants.push_back({"naive", 0, true, multi_scan_with(technique::naive, 1, t0{}), {}});
      for (std::size_t group : groups) {
        if (context.selected("coro")) {
          variants.push_back({"coro", group, false, multi_scan_with(technique::coro, group, t0{}), {{"frame_bytes", frame_bytes}}});
        }
        if (context.selected("coro-nta")) {
          variants.push_back({"coro-nta", group, false, multi_scan_with(technique::coro, group, nta{}), {{"frame_bytes", frame_bytes}}});
        }
        if (context.selected("fiber")) variants.push_back({"fiber", group, false, multi_scan_with(technique::fiber, group, t0{}), {}});
      }
      if (with_std_map) variants.push_back({"std-map", 0, false, peer_scans(std_map, request_span), {}});
      if (with_absl) variants.push_back({"absl-btree", 0, false, peer_scans(absl_map, request_span), {}});

      run_description run;
      run.structure = "skip_list";
      run.size_bytes = list.memory_bytes();
      run.operations = requests.size();
      run.repetitions = repetitions;
      {
        std::size_t resumptions = 0;
        using scan_op = decltype(list.scan_coroutine<interleaved>(0, 0, [](std::uint64_t, std::uint64_t) {}));
        interleaved_scheduler{16}.run(
            requests.size(),
            [&](std::size_t i) {
              return counting_operation<scan_op>{
                  list.scan_coroutine<interleaved>(requests[i].start, requests[i].limit, [](std::uint64_t, std::uint64_t) {}),
                  &resumptions};
            },
            [](std::size_t, std::size_t) {});
        run.lines_per_operation = static_cast<double>(resumptions) / static_cast<double>(requests.size());
      }
      run.extra = shared_fields;
      run.extra.emplace_back("operation", "scan-" + std::to_string(scan_length));
      context.progress("measuring range scans");
      measure_and_emit(context, run, variants);
    }
  }
}

const registration skip_list_experiment{experiment{
    .name = "skip-list",
    .reproduces = "Cimple (PACT'18) Fig. 1, skip list lookup 2.7x and iterator 4.1x",
    .summary = "skip list point lookups and 1,000-entry range scans: naive vs coro, fiber; std::map, absl peers",
    .techniques = {"naive", "coro", "coro-nta", "fiber", "std-map", "absl-btree"},
    .accepted = accepts_size | accepts_keys | accepts_group | accepts_technique | accepts_dist | accepts_pages,
    .run = run_skip_list,
}};

std::vector<std::string> quick_arguments(const std::string& size) {
  return {"--size", size, "--group", "16", "--keys", "5000", "--repetitions", "2"};
}

paper_number cimple_skip_list(const std::string& operation, double speedup, const std::string& claim) {
  return paper_claim("Cimple (PACT'18) §8.2, Fig. 1", claim, {{"technique", "coro"}, {"operation", operation}},
                     statistic::maximum, speedup, speedup, shape_rule::same_side_of(1),
                     "Cimple: folly's ConcurrentSkipList as the baseline, size not stated; ours: the plain algorithm on "
                     "the same list, 1 GiB");
}

const figure_registration skip_list_figure{figure{
    .name = "cimple-skip-list",
    .experiment = "skip-list",
    .reproduces = "Cimple (PACT'18) Fig. 1, skip list lookup (SL) and range iteration (SLi)",
    .summary = "lookup and 1,000-entry scan throughput against group size, 1 GiB list, with std::map and absl",
    .panels = {{.label = "DRAM", .arguments = {"--size", "dram", "--group", "4,8,16,32,48,64"},
                .quick_arguments = quick_arguments("16MiB")}},
    .axes = {.x = "group", .y = "speedup_vs_naive", .series = {"operation", "technique"}, .log_x = true,
             .y_label = "speedup over the plain algorithm"},
    .paper = {cimple_skip_list("lookup", 2.7, "skip list lookup: 2.7x single thread"),
              cimple_skip_list("scan-1000", 4.1, "skip list range iteration (1,000 nodes): 4.1x single thread")},
    .model = {},
}};

const headline_registration skip_list_headline{headline_entry{
    .name = "skip list",
    .figure = "cimple-skip-list",
    .panels = {{.label = "DRAM", .arguments = {"--size", "dram", "--group", "16,32"}, .quick_arguments = quick_arguments("16MiB")},
               {.label = "4 MiB", .arguments = {"--size", "4MiB", "--group", "8,16"}, .quick_arguments = quick_arguments("1MiB")}},
    .budget_seconds = 40,
    .summarize = compare_with_naive_and_peers({.peers = {"std-map", "absl-btree"}, .split_by = {"operation"}}),
}};

}  // namespace
}  // namespace braid::bench
