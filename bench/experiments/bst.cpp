// bst: lookups in a random binary search tree of 64-bit keys and values (Cimple's BT,
// PACT'18 Fig. 1-2: 6.4x single-thread speedup of the interleaved lookup at 1 GB per thread).
//
// The tree is what inserting distinct random keys in random order builds (expected depth
// about 2 ln n: 35 levels at 32 M nodes), nodes in insertion order on huge pages. Lookup keys
// are all present, drawn by --dist. Per technique and group: ns per lookup, speedup over the
// faster plain descent (branch-free `child[key > node.key]` or branchy if/else), roofline
// fraction (cache lines fetched per lookup over the machine's best line rate), and for the
// coroutine the frame-pool bytes one lookup in flight holds. Peers: std::map and
// absl::btree_map on the same keys.
#include <algorithm>

#include "braid/index/binary_search_tree.hpp"
#include "figures.hpp"
#include "headline.hpp"
#include "ordered_experiment.hpp"

namespace braid::bench {
namespace {

using tree_type = binary_search_tree<std::uint64_t, std::uint64_t>;
using namespace ordered;

const std::vector<std::string> interleaved_names = {"gp",           "amac",        "coro",       "coro-nta",
                                                     "fiber",        "imlp-dynamic", "imlp-static", "imlp-hybrid"};
void run_bst(run_context& context) {
  const run_settings settings = settings_of(context, {.groups = {8, 16, 32, 64}, .quick_groups = {16}, .lookups = 200'000});
  for (std::size_t size : settings.sizes) {
    const std::size_t count = std::max<std::size_t>(size / tree_type::node_stride, 1);
    peer_maps peers(context);
    context.require_memory(size + count * (8 + 8 + 16) + count * peers.bytes_per_key() + (peers.any() ? count * 8 : 0),
                           "bst of " + format_bytes(size) + " with its build buffers and peers");
    context.progress("building a tree of " + std::to_string(count) + " nodes");
    const std::vector<std::uint64_t> keys = distinct_random_keys(count, context.seed());
    const tree_type tree(keys, values_of(keys), settings.pages);
    const std::vector<std::uint64_t> lookups = lookup_keys(context, keys, settings.lookups);
    const auto depths = tree.depths();
    context.note("bst_pages", tree.describe_pages());
    peers.build(context, keys);

    const std::span<const std::uint64_t> lookup_span(lookups);
    std::vector<variant> plain;
    if (context.selected("naive-branchy")) {
      plain.push_back(plain_variant("naive-branchy", [&tree, lookup_span](std::span<std::optional<std::uint64_t>> out) {
        for (std::size_t i = 0; i < lookup_span.size(); ++i) out[i] = tree.find_branchy(lookup_span[i]);
      }));
    }
    std::vector<variant> variants =
        lookup_variants(context, tree, lookup_span, settings, interleaved_names, peers, std::move(plain));
    add_imlp_variants(variants, context, settings.groups, find_imlp_fills(tree, lookup_span));

    run_description run = lookup_run("binary_search_tree", tree, lookup_span, settings);
    run.descent_node_bytes = tree.memory_bytes() / std::max<std::size_t>(tree.size(), 1);
    run.extra = run_fields(context, tree.describe_pages(),
                           {{"nodes", static_cast<std::int64_t>(tree.size())},
                            {"average_depth", depths.average_depth},
                            {"max_depth", static_cast<std::int64_t>(depths.max_depth)}});
    context.progress("measuring " + std::to_string(variants.size()) + " variants");
    measure_and_emit(context, run, variants);
  }
}

const registration bst{experiment{
    .name = "bst",
    .reproduces = "Cimple (PACT'18) Fig. 1-2, binary tree: 6.4x single thread",
    .summary = "random binary search tree lookups: naive vs gp, amac, coro, fiber, the generated imlp lookups; "
               "std::map and absl peers",
    .techniques = technique_names({"naive-branchy"}, with_imlp_variants(interleaved_names), {"std-map", "absl-btree"}),
    .accepted = accepted_options,
    .run = run_bst,
}};

const figure_registration bst_figure{bst, figure{
    .name = "cimple-bst",
    .reproduces = "Cimple (PACT'18) Fig. 1-2, binary tree lookups (1 GB per thread)",
    .summary = "lookup throughput against group size (Cimple's width 48 included), 1 GiB tree, with std::map and absl",
    .panels = {dram_panel("4,8,16,32,48,64", "16")},
    .axes = {.x = "group", .y = "mops", .series = {"technique"}, .log_x = true, .y_label = "million lookups per second"},
    .paper = {paper_claim("Cimple (PACT'18) §2.4, §8.2, Fig. 2", "6.4x single-thread speedup of the interleaved lookup (BT)",
                          {{"technique", "coro"}}, statistic::maximum, 6.4, 6.4, shape_rule::same_side_of(1),
                          "Cimple: Haswell, generated coroutines at width 48; ours: braid's coro at the best group, "
                          "against the faster plain descent")},
}};

const headline_registration bst_headline{bst_figure, headline_entry{
    .name = "binary search tree",
    .panels = dram_and_cache_panels("16,32", "4MiB", "8,16", "16"),
    .budget_seconds = 40,
    .summarize = compare_with_naive_and_peers({.baselines = {"naive", "naive-branchy"}, .peers = {"std-map", "absl-btree"}}),
}};

}  // namespace
}  // namespace braid::bench
