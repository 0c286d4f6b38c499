// skip-list: point lookups and 1,000-entry range scans in a folly-like skip list (Cimple's SL
// and SLi, PACT'18 Fig. 1: 2.7x for lookups, 4.1x for range iteration, single thread).
//
// The list holds distinct random 64-bit keys inserted in random order (nodes in insertion
// order on huge pages, towers geometric with p = 1/e). Lookups: all keys present, drawn by
// --dist. Scans: --keys / 100 scans of 1,000 entries from present start keys; each scan finds
// its first entry (the descent) and walks level 0, suspending at every entry when
// interleaved. Techniques, for lookups and scans alike: the hand-written gp and amac (the
// comparators Cimple lacks), coro, coro-nta, fiber, and the state machines generated from the
// kernels skip_list_find / skip_list_scan (imlp-dynamic, imlp-static, imlp-hybrid; the layout
// and dispatch ablations imlp-dynamic-aos, imlp-dynamic-goto, imlp-static-aos when --technique
// names them). Per technique and group: ns per operation, speedup over the plain algorithm,
// roofline fraction, frame bytes. Peers: std::map and absl::btree_map (find, and
// lower_bound + 1,000 increments) on the same keys.
#include <cmath>

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

const std::vector<std::string> interleaved_names = {"gp",           "amac",        "coro",       "coro-nta",
                                                     "fiber",        "imlp-dynamic", "imlp-static", "imlp-hybrid"};

void run_skip_list(run_context& context) {
  const run_settings settings = settings_of(context, {.groups = {8, 16, 32, 64}, .quick_groups = {16}, .lookups = 200'000});
  const std::size_t scan_count = std::max<std::size_t>(settings.lookups / 100, 10);

  for (std::size_t size : settings.sizes) {
    const auto count = std::max<std::size_t>(static_cast<std::size_t>(static_cast<double>(size) / expected_node_bytes()), 1);
    peer_maps peers(context);
    context.require_memory(size + count * 50 + count * peers.bytes_per_key(),
                           "skip list of " + format_bytes(size) + " with its build buffers and peers");
    context.progress("building a skip list of " + std::to_string(count) + " nodes");
    const std::vector<std::uint64_t> keys = distinct_random_keys(count, context.seed());
    const list_type list(keys, values_of(keys), settings.pages, context.seed());
    context.note("skip_list_pages", list.describe_pages());
    const std::vector<std::uint64_t> lookups = lookup_keys(context, keys, settings.lookups);
    std::vector<list_type::scan_request> requests;
    for (std::uint64_t start : lookup_keys(context, keys, scan_count)) requests.push_back({start, scan_length});
    peers.build(context, keys);

    const std::vector<std::pair<std::string, field_value>> shared_fields =
        run_fields(context, list.describe_pages(),
                   {{"nodes", static_cast<std::int64_t>(list.size())}, {"levels", static_cast<std::int64_t>(list.height())}});

    // ---- point lookups ----
    {
      const std::span<const std::uint64_t> lookup_span(lookups);
      std::vector<variant> variants = lookup_variants(context, list, lookup_span, settings, interleaved_names, peers);
      add_imlp_variants(variants, context, settings.groups, find_imlp_fills(list, lookup_span));
      run_description run = lookup_run("skip_list", list, lookup_span, settings);
      run.descent_node_bytes = static_cast<std::size_t>(expected_node_bytes());
      run.extra = shared_fields;
      run.extra.emplace_back("operation", "lookup");
      context.progress("measuring lookups");
      measure_and_emit(context, run, variants);
    }

    // ---- range scans ----
    {
      const std::span<const list_type::scan_request> request_span(requests);
      const auto multi_scan_with = multi_scan_fills(list, request_span);
      std::vector<variant> variants = {plain_variant("naive", multi_scan_with(technique::naive, 1, false))};
      const frame_sizes frames{.coro = static_cast<std::int64_t>(pool_bytes_per_operation([&] {
        return list.scan_coroutine<interleaved>(requests.front().start, 3, [](std::uint64_t, std::uint64_t) {});
      }))};
      add_interleaved(variants, context, settings.groups, interleaved_names, multi_scan_with, frames);
      add_imlp_variants(variants, context, settings.groups, scan_imlp_fills(list, request_span));
      peers.add_scans(variants, request_span);

      run_description run{.structure = "skip_list",
                          .size_bytes = list.memory_bytes(),
                          .operations = requests.size(),
                          .repetitions = settings.repetitions,
                          .extra = shared_fields};
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
      run.extra.emplace_back("operation", "scan-" + std::to_string(scan_length));
      context.progress("measuring range scans");
      measure_and_emit(context, run, variants);
    }
  }
}

const registration skip_list_experiment{experiment{
    .name = "skip-list",
    .reproduces = "Cimple (PACT'18) Fig. 1, skip list lookup 2.7x and iterator 4.1x",
    .summary = "skip list point lookups and 1,000-entry range scans: naive vs gp, amac, coro, fiber, the generated "
               "imlp lookups and scans; std::map, absl peers",
    .techniques = technique_names({}, with_imlp_variants(interleaved_names), {"std-map", "absl-btree"}),
    .accepted = accepted_options,
    .run = run_skip_list,
}};

paper_number cimple_skip_list(const std::string& operation, double speedup, const std::string& claim) {
  return paper_claim("Cimple (PACT'18) §8.2, Fig. 1", claim, {{"technique", "coro"}, {"operation", operation}},
                     statistic::maximum, speedup, speedup, shape_rule::same_side_of(1),
                     "Cimple: folly's ConcurrentSkipList as the baseline, size not stated; ours: the plain algorithm on "
                     "the same list, 1 GiB");
}

const figure_registration skip_list_figure{skip_list_experiment, figure{
    .name = "cimple-skip-list",
    .reproduces = "Cimple (PACT'18) Fig. 1, skip list lookup (SL) and range iteration (SLi)",
    .summary = "lookup and 1,000-entry scan throughput against group size, 1 GiB list, with std::map and absl",
    .panels = {dram_panel("4,8,16,32,48,64", "16")},
    .axes = {.x = "group", .y = "speedup_vs_naive", .series = {"operation", "technique"}, .log_x = true,
             .y_label = "speedup over the plain algorithm"},
    .paper = {cimple_skip_list("lookup", 2.7, "skip list lookup: 2.7x single thread"),
              cimple_skip_list("scan-1000", 4.1, "skip list range iteration (1,000 nodes): 4.1x single thread")},
}};

const headline_registration skip_list_headline{skip_list_figure, headline_entry{
    .name = "skip list",
    .panels = dram_and_cache_panels("16,32", "4MiB", "8,16", "16"),
    .budget_seconds = 40,
    .summarize = compare_with_naive_and_peers({.peers = {"std-map", "absl-btree"}, .split_by = {"operation"}}),
}};

}  // namespace
}  // namespace braid::bench
