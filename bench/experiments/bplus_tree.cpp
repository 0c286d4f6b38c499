// bplus-tree: lookups and range scans in braid's B+-tree, the lookup written three ways: the
// plain descent (naive), one flattened coroutine (coro), and nested tasks, one per helper
// level (coro_nested; `task` before the one technique vocabulary) — CoroBase's comparison
// (its nested version kept ~808 B of frames per request against 232 B flattened: rows carry
// frame_bytes). Peer: absl::btree_map on the same keys.
//
// Distinct random 64-bit keys, sorted and bulk-loaded with full nodes, for 256-byte nodes
// (4 lines, fetched whole) and 4 KiB page-sized nodes (searched probe by probe; with
// --pages 4k each level costs one TLB miss at most, the thesis's page-node index). Lookup keys
// are all present, drawn by --dist; scans read 1,000 entries from present start keys
// (--keys / 100 of them).
#include "braid/core/radix_sort.hpp"
#include "braid/index/bplus_tree.hpp"
#include "figures.hpp"
#include "headline.hpp"
#include "ordered_experiment.hpp"

namespace braid::bench {
namespace {

using namespace ordered;

constexpr std::size_t scan_length = 1000;

const std::vector<std::string> interleaved_names = {"coro", "coro_nested", "coro-nta", "fiber"};
// Scans run flattened: the coroutine and the fiber.
const std::vector<std::string> scan_names = {"coro", "fiber"};

template <std::size_t NodeBytes>
void run_node_size(run_context& context, std::size_t size, const run_settings& settings) {
  using tree_type = bplus_tree<std::uint64_t, std::uint64_t, NodeBytes>;
  peer_maps peers(context);
  const std::size_t count = std::max<std::size_t>(size / NodeBytes * tree_type::leaf_capacity, 1);
  context.require_memory(size + count * (8 + 8 + 8) + count * peers.bytes_per_key(),
                         "b+-tree of " + format_bytes(size) + " with its build buffers and peer");
  context.progress("building a b+-tree of " + std::to_string(count) + " entries, " + std::to_string(NodeBytes) +
                   "-byte nodes");
  std::vector<std::uint64_t> keys = distinct_random_keys(count, context.seed());
  const std::vector<std::uint64_t> lookups = lookup_keys(context, keys, settings.lookups);
  std::vector<typename tree_type::scan_request> requests;
  for (std::uint64_t start : lookup_keys(context, keys, std::max<std::size_t>(settings.lookups / 100, 10))) {
    requests.push_back({start, scan_length});
  }
  radix_sort(std::span(keys));
  const tree_type tree(keys, values_of(keys), settings.pages, 1.0);
  context.note("bplus_tree_" + std::to_string(NodeBytes) + "_pages", tree.describe_pages());
  peers.build_from_sorted(keys);
  std::vector<std::uint64_t>().swap(keys);

  const std::vector<std::pair<std::string, field_value>> shared_fields =
      run_fields(context, tree.describe_pages(),
                 {{"node_bytes", static_cast<std::int64_t>(NodeBytes)},
                  {"levels", static_cast<std::int64_t>(tree.height())},
                  {"entries", static_cast<std::int64_t>(tree.size())}});

  // ---- lookups: naive, flattened coroutine, nested tasks, fiber ----
  {
    const std::span<const std::uint64_t> lookup_span(lookups);
    const std::vector<variant> variants = lookup_variants(context, tree, lookup_span, settings, interleaved_names, peers);
    // Lines per lookup: a whole node per suspension for small nodes; one (or, for the last
    // range, about one and a half) per suspension for probed page-sized nodes.
    run_description run = lookup_run("bplus_tree", tree, lookup_span, settings,
                                     tree_type::fetches_whole_nodes ? static_cast<double>(NodeBytes / cache_line_bytes) : 1.0);
    run.descent_node_bytes = NodeBytes;
    run.extra = shared_fields;
    run.extra.emplace_back("operation", "lookup");
    context.progress("measuring lookups, " + std::to_string(NodeBytes) + "-byte nodes");
    measure_and_emit(context, run, variants);
  }

  // ---- range scans along the leaf chain ----
  {
    const std::span<const typename tree_type::scan_request> request_span(requests);
    const auto multi_scan_with = multi_scan_fills(tree, request_span);
    std::vector<variant> variants = {plain_variant("naive", multi_scan_with(technique::naive, 1, false))};
    add_interleaved(variants, context, settings.groups, scan_names, multi_scan_with);
    peers.add_scans(variants, request_span);
    run_description run{.structure = "bplus_tree",
                        .size_bytes = tree.memory_bytes(),
                        .operations = requests.size(),
                        .lines_per_operation = static_cast<double>(scan_length) /
                                               static_cast<double>(tree_type::leaf_capacity) *
                                               static_cast<double>(NodeBytes / cache_line_bytes),
                        // Bulk loading lays the leaves out in key order, so a scan streams lines
                        // the hardware prefetcher fetches too: the random-chase roofline does not
                        // bound it.
                        .lines_are_independent_misses = false,
                        .repetitions = settings.repetitions,
                        .extra = shared_fields};
    run.extra.emplace_back("operation", "scan-" + std::to_string(scan_length));
    context.progress("measuring range scans, " + std::to_string(NodeBytes) + "-byte nodes");
    measure_and_emit(context, run, variants);
  }
}

void run_bplus_tree(run_context& context) {
  const run_settings settings = settings_of(context, {.groups = {4, 8, 16, 32}, .quick_groups = {8}, .lookups = 500'000});
  for (std::size_t size : settings.sizes) {
    run_node_size<256>(context, size, settings);
    run_node_size<4096>(context, size, settings);
  }
}

const registration bplus_tree_experiment{experiment{
    .name = "bplus-tree",
    .reproduces = "CoroBase (VLDB'21) nested vs flattened coroutines; thesis Fig. 4.5 page-sized-node index",
    .summary = "B+-tree lookups and scans, 256 B and 4 KiB nodes: naive vs flattened coro, nested task, fiber; absl peer",
    .techniques = technique_names({}, interleaved_names, {"absl-btree"}),
    .accepted = accepted_options,
    .run = run_bplus_tree,
}};

const std::string small_table_caveat =
    "CoroBase: whole transactions in an engine at 96 hyperthreads; ours: lookups alone, 1 thread";

// Nested tasks against the flattened coroutine, each at its best group: time per lookup.
paper_number nesting_cost(const std::string& panel, double paper, std::string claim, std::string caveat) {
  const row_filter base = {{"panel", panel}, {"operation", "lookup"}, {"node_bytes", "256"}};
  row_filter nested = base;
  nested.emplace_back("technique", "coro_nested");
  row_filter flattened = base;
  flattened.emplace_back("technique", "coro");
  return paper_ratio("CoroBase (VLDB'21) §5.3, Fig. 5", std::move(claim), nested, flattened, "ns_per_op",
                     statistic::at_best, paper, shape_rule::same_side_of(1), std::move(caveat));
}

const figure_registration bplus_figure{bplus_tree_experiment, figure{
    .name = "corobase-bplus-nesting",
    .reproduces = "CoroBase (VLDB'21) Fig. 5 and §5.6: flattened vs fully nested coroutines, against naive and absl::btree_map",
    .summary = "B+-tree lookups and scans: naive vs flattened coro vs nested task vs fiber, absl peer; DRAM and cache",
    .panels = dram_and_cache_panels("4,8,16,32", "1MiB", "4,8,16", "8"),
    .axes = {.x = "group", .y = "mops", .series = {"panel", "operation", "node_bytes", "technique"}, .log_x = true, .log_y = true,
             .y_label = "million operations per second"},
    .paper = {nesting_cost("DRAM", 1.17, "flattened coroutines (CORO-MK) 17% faster than fully nested (CORO-FN-MK)",
                           "CoroBase: Masstree multi_get probes in ERMIA, 5 nested levels; ours: a B+-tree descent as one "
                           "coro vs a task per helper level, each at its best group"),
              paper_claim("CoroBase (VLDB'21) §5.10", "fully nested read: frames add up to 808 bytes per request",
                          {{"technique", "coro_nested"}}, statistic::maximum, 808, 808, shape_rule::within_factor(2),
                          "CoroBase's five frames hold Masstree and version-chain state; ours the B+-tree descent's",
                          "frame_bytes"),
              paper_claim("CoroBase (VLDB'21) §5.6, Fig. 11",
                          "small table (1.23 MB): switching is pure overhead, up to ~12.64% lower throughput than naive",
                          {{"panel", "1 MiB"}, {"operation", "lookup"}, {"technique", "coro"}}, statistic::minimum,
                          1 - 0.1264, 1 - 0.1264, shape_rule::same_side_of(1), small_table_caveat),
              paper_claim("CoroBase (VLDB'21) §5.6, Fig. 11", "small table: fully nested variants up to 50% slower than naive",
                          {{"panel", "1 MiB"}, {"operation", "lookup"}, {"technique", "coro_nested"}}, statistic::minimum, 0.5, 0.5,
                          shape_rule::within_factor(1.5), small_table_caveat)},
}};

const headline_registration bplus_headline{bplus_figure, headline_entry{
    .name = "B+-tree",
    .panels = dram_and_cache_panels("8,16", "1MiB", "8", "8"),
    .budget_seconds = 55,
    .summarize = compare_with_naive_and_peers({.peers = {"absl-btree"}, .split_by = {"node_bytes", "operation"}}),
}};

}  // namespace
}  // namespace braid::bench
