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
#include <absl/container/btree_map.h>

#include <map>

#include "braid/index/binary_search_tree.hpp"
#include "figures.hpp"
#include "headline.hpp"
#include "ordered_experiment.hpp"

namespace braid::bench {
namespace {

using tree_type = binary_search_tree<std::uint64_t, std::uint64_t>;
using namespace ordered;

void run_bst(run_context& context) {
  const bool quick = context.quick();
  const std::vector<std::size_t> sizes = context.sizes_or({quick ? std::size_t{16} << 20 : dram_resident_bytes()});
  const std::vector<std::size_t> groups = context.groups_or(quick ? std::vector<std::size_t>{16}
                                                                  : std::vector<std::size_t>{8, 16, 32, 64});
  const std::size_t lookup_count = context.keys_or(quick ? 20'000 : 200'000);
  const unsigned repetitions = context.repetitions_or(quick ? 3 : 5);
  const page_size pages = context.pages_or(page_size::huge_2m);
  const bool with_std_map = context.selected("std-map");
  const bool with_absl = context.selected("absl-btree");

  for (std::size_t size : sizes) {
    const std::size_t count = std::max<std::size_t>(size / tree_type::node_stride, 1);
    context.require_memory(size + count * (8 + 8 + 16) + (with_std_map ? count * 64 : 0) +
                               (with_absl ? count * 24 : 0) + (with_std_map || with_absl ? count * 8 : 0),
                           "bst of " + format_bytes(size) + " with its build buffers and peers");
    context.progress("building a tree of " + std::to_string(count) + " nodes");
    const std::vector<std::uint64_t> keys = distinct_random_keys(count, context.seed());
    std::optional<tree_type> built;
    {
      std::vector<std::uint64_t> values(count);
      for (std::size_t i = 0; i < count; ++i) values[i] = value_of(keys[i]);
      built.emplace(keys, values, pages);
    }
    const tree_type& tree = *built;
    const std::vector<std::uint64_t> lookups = lookup_keys(context, keys, lookup_count);
    const auto depths = tree.depths();
    context.note("bst_pages", tree.describe_pages());

    std::vector<std::uint64_t> sorted_keys;
    std::map<std::uint64_t, std::uint64_t> std_map;
    absl::btree_map<std::uint64_t, std::uint64_t> absl_map;
    if (with_std_map || with_absl) {
      context.progress("building the peers");
      sorted_keys = keys;
      std::sort(sorted_keys.begin(), sorted_keys.end());
      if (with_std_map) std_map = sorted_peer<std::map<std::uint64_t, std::uint64_t>>(sorted_keys);
      if (with_absl) absl_map = sorted_peer<absl::btree_map<std::uint64_t, std::uint64_t>>(sorted_keys);
      std::vector<std::uint64_t>().swap(sorted_keys);
    }

    const std::span<const std::uint64_t> lookup_span(lookups);
    auto multi_find_with = [&](technique how, std::size_t group) {
      return [&tree, lookup_span, how, group](std::span<std::optional<std::uint64_t>> out) {
        tree.multi_find(lookup_span, out, how, group);
      };
    };
    std::vector<variant> variants;
    variants.push_back({"naive", 0, true, multi_find_with(technique::naive, 1), {}});
    if (context.selected("naive-branchy")) {
      variants.push_back({"naive-branchy", 0, true,
                          [&tree, lookup_span](std::span<std::optional<std::uint64_t>> out) {
                            for (std::size_t i = 0; i < lookup_span.size(); ++i) out[i] = tree.find_branchy(lookup_span[i]);
                          },
                          {}});
    }
    const auto coro_frame_bytes = static_cast<std::int64_t>(
        pool_bytes_per_operation([&] { return tree.lookup<interleaved>(lookups.front()); }));
    for (std::size_t group : groups) {
      if (context.selected("gp")) variants.push_back({"gp", group, false, multi_find_with(technique::gp, group), {}});
      if (context.selected("amac")) {
        variants.push_back({"amac", group, false, multi_find_with(technique::amac, group), {}});
      }
      if (context.selected("coro")) {
        variants.push_back({"coro", group, false, multi_find_with(technique::coro, group),
                            {{"frame_bytes", coro_frame_bytes}}});
      }
      if (context.selected("coro-nta")) {
        variants.push_back({"coro-nta", group, false,
                            [&tree, lookup_span, group](std::span<std::optional<std::uint64_t>> out) {
                              tree.multi_find<prefetch_hint::nta>(lookup_span, out, technique::coro, group);
                            },
                            {{"frame_bytes", coro_frame_bytes}}});
      }
      if (context.selected("fiber")) {
        variants.push_back({"fiber", group, false, multi_find_with(technique::fiber, group), {}});
      }
    }
    if (with_std_map) variants.push_back({"std-map", 0, false, peer_fill(std_map, lookup_span), {}});
    if (with_absl) variants.push_back({"absl-btree", 0, false, peer_fill(absl_map, lookup_span), {}});

    run_description run;
    run.structure = "binary_search_tree";
    run.size_bytes = tree.memory_bytes();
    run.operations = lookups.size();
    run.repetitions = repetitions;
    run.lines_per_operation = suspensions_per_operation(
        lookup_span.first(std::min<std::size_t>(lookups.size(), 20'000)),
        [&](std::uint64_t key) { return tree.lookup<interleaved>(key); });
    run.descent_node_bytes = tree.memory_bytes() / std::max<std::size_t>(tree.size(), 1);
    run.extra = {{"nodes", static_cast<std::int64_t>(tree.size())},
                 {"average_depth", depths.average_depth},
                 {"max_depth", static_cast<std::int64_t>(depths.max_depth)},
                 {"pages", obtained_pages(tree.describe_pages())},
                 {"distribution", context.distribution_or({}).describe()}};
    context.progress("measuring " + std::to_string(variants.size()) + " variants");
    measure_and_emit(context, run, variants);
  }
}

const registration bst{experiment{
    .name = "bst",
    .reproduces = "Cimple (PACT'18) Fig. 1-2, binary tree: 6.4x single thread",
    .summary = "random binary search tree lookups: naive vs gp, amac, coro, fiber; std::map and absl peers",
    .techniques = {"naive", "naive-branchy", "gp", "amac", "coro", "coro-nta", "fiber", "std-map", "absl-btree"},
    .accepted = accepts_size | accepts_keys | accepts_group | accepts_technique | accepts_dist | accepts_pages,
    .run = run_bst,
}};

std::vector<std::string> quick_arguments(const std::string& size) {
  return {"--size", size, "--group", "16", "--keys", "5000", "--repetitions", "2"};
}

const figure_registration bst_figure{figure{
    .name = "cimple-bst",
    .experiment = "bst",
    .reproduces = "Cimple (PACT'18) Fig. 1-2, binary tree lookups (1 GB per thread)",
    .summary = "lookup throughput against group size (Cimple's width 48 included), 1 GiB tree, with std::map and absl",
    .panels = {{.label = "DRAM", .arguments = {"--size", "dram", "--group", "4,8,16,32,48,64"},
                .quick_arguments = quick_arguments("16MiB")}},
    .axes = {.x = "group", .y = "mops", .series = {"technique"}, .log_x = true, .y_label = "million lookups per second"},
    .paper = {paper_claim("Cimple (PACT'18) §2.4, §8.2, Fig. 2", "6.4x single-thread speedup of the interleaved lookup (BT)",
                          {{"technique", "coro"}}, statistic::maximum, 6.4, 6.4, shape_rule::same_side_of(1),
                          "Cimple: Haswell, generated coroutines at width 48; ours: braid's coro at the best group, "
                          "against the faster plain descent")},
    .model = {},
}};

const headline_registration bst_headline{headline_entry{
    .name = "binary search tree",
    .figure = "cimple-bst",
    .panels = {{.label = "DRAM", .arguments = {"--size", "dram", "--group", "16,32"}, .quick_arguments = quick_arguments("16MiB")},
               {.label = "4 MiB", .arguments = {"--size", "4MiB", "--group", "8,16"}, .quick_arguments = quick_arguments("1MiB")}},
    .budget_seconds = 40,
    .summarize = compare_with_naive_and_peers({.baselines = {"naive", "naive-branchy"}, .peers = {"std-map", "absl-btree"}}),
}};

}  // namespace
}  // namespace braid::bench
