// eytzinger: batched search as users do it fast today, the Eytzinger layout with prefetching
// (Khuong and Morin), against interleaving on top of that layout, and against interleaved binary
// search over the sorted array, for 32- and 64-bit keys.
//
//   eytzinger-prefetch     eytzinger_array::find: one search at a time, each prefetching its
//                          descendants' line log2(keys per line) levels ahead (naive here)
//   eytzinger-plain        the same walk without the prefetch
//   eytzinger-{gp,amac,coro,adaptive}   interleaved searches over the layout, G in flight
//   sorted-{naive,gp,coro}             binary search over the sorted array: the plain
//                          branch-free search and its best interleaved forms, same keys
//
// Every technique of one structure must give the same checksum; the two structures' answers
// (Eytzinger node vs sorted position) are checked against each other once, untimed.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "braid/index/eytzinger_array.hpp"
#include "braid/index/sorted_array.hpp"
#include "experiment.hpp"
#include "lookup_results.hpp"
#include "measure.hpp"
#include "workloads.hpp"

namespace braid::bench {
namespace {

using result = std::optional<std::size_t>;

template <class Structure>
technique_run pass(std::string name, const Structure& structure, std::span<const typename Structure::key_type> keys,
                   std::vector<result>& out, technique how, std::size_t group) {
  return {std::move(name), [&structure, keys, &out, how, group] {
            structure.multi_find(keys, std::span<result>(out), how, group);
            return checksum_of(out);
          }};
}

template <class Key>
void run_for_key(run_context& context, const std::string& structure_name, std::size_t size,
                 const std::vector<std::size_t>& groups, std::size_t lookups, unsigned repetitions, page_size pages) {
  const std::size_t count = std::max<std::size_t>(1, size / sizeof(Key));
  context.require_memory(2 * count * sizeof(Key) + lookups * (sizeof(Key) + 2 * sizeof(result)),
                         "the two layouts of the keys");
  std::vector<Key> sorted_keys(count);
  for (std::size_t i = 0; i < count; ++i) sorted_keys[i] = static_cast<Key>(2 * i);
  const sorted_array<Key> array(sorted_keys, pages);
  const eytzinger_array<Key> layout(sorted_keys, pages);
  std::vector<Key>().swap(sorted_keys);
  random_source random(context.seed());
  std::vector<Key> keys(lookups);
  for (Key& key : keys) key = static_cast<Key>(random.below(2 * count));  // about half hit
  const std::span<const Key> probe(keys);

  // The two layouts agree: node -> rank is the sorted position.
  std::vector<result> nodes(lookups);
  std::vector<result> positions(lookups);
  layout.multi_find(probe, std::span<result>(nodes), technique::naive, 1);
  array.multi_find(probe, std::span<result>(positions), technique::naive, 1);
  for (std::size_t i = 0; i < lookups; ++i) {
    const result rank = nodes[i] ? result{layout.sorted_position(*nodes[i])} : result{};
    if (rank != positions[i]) throw std::logic_error("eytzinger: the layouts disagree on lookup " + std::to_string(i));
  }

  std::vector<technique_run> eytzinger_runs;
  std::vector<technique_run> sorted_runs;
  if (context.selected("eytzinger-prefetch")) eytzinger_runs.push_back(pass("eytzinger-prefetch", layout, probe, nodes, technique::naive, 1));
  if (context.selected("eytzinger-plain")) {
    eytzinger_runs.push_back({"eytzinger-plain", [&] {
                                for (std::size_t i = 0; i < lookups; ++i) nodes[i] = layout.find_without_prefetch(keys[i]);
                                return checksum_of(nodes);
                              }});
  }
  if (context.selected("sorted-naive")) sorted_runs.push_back(pass("sorted-naive", array, probe, positions, technique::naive, 1));
  for (std::size_t group : groups) {
    const std::string suffix = "@" + std::to_string(group);
    for (auto [name, how] : {std::pair{"eytzinger-gp", technique::gp}, std::pair{"eytzinger-amac", technique::amac},
                             std::pair{"eytzinger-coro", technique::coro}, std::pair{"eytzinger-adaptive", technique::adaptive}}) {
      if (context.selected(name)) eytzinger_runs.push_back(pass(name + suffix, layout, probe, nodes, how, group));
    }
    for (auto [name, how] : {std::pair{"sorted-gp", technique::gp}, std::pair{"sorted-coro", technique::coro}}) {
      if (context.selected(name)) sorted_runs.push_back(pass(name + suffix, array, probe, positions, how, group));
    }
  }
  std::vector<technique_run> runs = eytzinger_runs;
  runs.insert(runs.end(), sorted_runs.begin(), sorted_runs.end());
  if (runs.empty()) return;
  context.progress(structure_name + ": " + std::to_string(runs.size()) + " passes");
  const std::vector<measurement> measured = measure_interleaved(runs, repetitions, &context);
  const std::vector<measurement> eytzinger_measured(measured.begin(), measured.begin() + static_cast<std::ptrdiff_t>(eytzinger_runs.size()));
  const std::vector<measurement> sorted_measured(measured.begin() + static_cast<std::ptrdiff_t>(eytzinger_runs.size()), measured.end());
  if (!eytzinger_measured.empty()) require_same_checksums(eytzinger_measured, "eytzinger layout");
  if (!sorted_measured.empty()) require_same_checksums(sorted_measured, "sorted array");

  double prefetch_ns = 0;
  double naive_ns = 0;  // the faster plain search of the two layouts
  for (const measurement& each : measured) {
    if (each.name == "eytzinger-prefetch") prefetch_ns = each.median_ns;
    if (each.name == "eytzinger-prefetch" || each.name == "eytzinger-plain" || each.name == "sorted-naive") {
      naive_ns = naive_ns == 0 ? each.median_ns : std::min(naive_ns, each.median_ns);
    }
  }
  for (const measurement& each : measured) {
    const std::size_t at = each.name.find('@');
    const std::string technique_name = each.name.substr(0, at);
    const double ns_per_op = each.median_ns / static_cast<double>(lookups);
    result_row row;
    row.set("structure", structure_name)
        .set("technique", technique_name)
        .set("pass", each.name)
        .set("group", static_cast<std::int64_t>(at == std::string::npos ? 0 : std::stoul(each.name.substr(at + 1))))
        .set("size_bytes", static_cast<std::int64_t>(layout.memory_bytes()))
        .set("ops", static_cast<std::int64_t>(lookups))
        .set("ns_per_op", ns_per_op)
        .set("mops", 1e3 / ns_per_op);
    if (naive_ns > 0) row.set("speedup_vs_naive", naive_ns / each.median_ns);
    if (prefetch_ns > 0) row.set("speedup_vs_eytzinger_prefetch", prefetch_ns / each.median_ns);
    context.emit(std::move(row));
  }
}

void run_eytzinger(run_context& context) {
  const bool quick = context.quick();
  const std::vector<std::size_t> sizes = context.sizes_or({quick ? std::size_t{16} << 20 : dram_resident_bytes()});
  const std::vector<std::size_t> groups = context.groups_or(quick ? std::vector<std::size_t>{8} : std::vector<std::size_t>{8, 16, 24, 32});
  const std::size_t lookups = context.keys_or(quick ? 20'000 : 2'000'000);
  const unsigned repetitions = context.repetitions_or(quick ? 2 : 5);
  const page_size pages = context.pages_or(page_size::huge_2m);
  for (std::size_t index = 0; index < sizes.size(); ++index) {
    context.configuration(2 * index, 2 * sizes.size(), format_bytes(sizes[index]) + " int32");
    run_for_key<std::int32_t>(context, "int32", sizes[index], groups, lookups, repetitions, pages);
    context.configuration(2 * index + 1, 2 * sizes.size(), format_bytes(sizes[index]) + " int64");
    run_for_key<std::int64_t>(context, "int64", sizes[index], groups, lookups, repetitions, pages);
  }
}

const registration eytzinger_experiment{experiment{
    .name = "eytzinger",
    .reproduces = "Khuong and Morin's Eytzinger search with prefetching vs interleaving on the same layout (no paper figure)",
    .summary = "batched search: Eytzinger layout with prefetching, interleaved on top, vs interleaved binary search",
    .techniques = {"eytzinger-prefetch", "eytzinger-plain", "eytzinger-gp", "eytzinger-amac", "eytzinger-coro",
                   "eytzinger-adaptive", "sorted-naive", "sorted-gp", "sorted-coro"},
    .accepted = accepts_size | accepts_keys | accepts_group | accepts_technique | accepts_pages,
    .run = run_eytzinger,
}};

}  // namespace
}  // namespace braid::bench
