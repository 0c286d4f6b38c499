// adaptive: the adaptive scheduler against the plain loop and every fixed group, on binary
// search over sorted 64-bit keys, with the data in cache, in DRAM, and alternating between the
// two within one run (the case no fixed setting gets right).
//
//   naive        the plain loop (sorted_array::find, branch-free): what the adaptive technique
//                runs when interleaving cannot win
//   plain-coro   the coroutine's sequential instantiation, one lookup after another
//   coro-gN      multi_find's coro technique with group N: N long-lived chained coroutines
//   adaptive     multi_find's adaptive technique (group at most the largest N): the plain loop or
//                the long-lived chained coroutines, and the group, chosen window by window
//
// Each --size is a phase; with two or more sizes the `alternating` row runs batches of 64 Ki
// lookups that alternate between the arrays (the smallest and the largest), the adaptive
// technique learning across the whole run, so its rows show how it follows a working set that
// moves. Rows:
// speedup_vs_naive, speedup_vs_best_fixed (the best of naive, plain-coro and every coro-gN of
// the same phase) and, for adaptive, the setting it ended on (0: the plain loop).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "braid/core/scheduler.hpp"
#include "braid/index/detail/adaptive_lookups.hpp"
#include "braid/index/sorted_array.hpp"
#include "experiment.hpp"
#include "figures.hpp"
#include "lookup_results.hpp"
#include "measure.hpp"
#include "workloads.hpp"

namespace braid::bench {
namespace {

using array_type = sorted_array<std::int64_t>;
constexpr std::size_t batch = std::size_t{1} << 16;

array_type build_array(std::size_t bytes, page_size pages) {
  const std::size_t count = std::max<std::size_t>(1, bytes / sizeof(std::int64_t));
  return array_type::from_sorted(count, [](std::size_t i) { return static_cast<std::int64_t>(2 * i); }, pages);
}

// Keys over twice the array's range: about half of them hit.
std::vector<std::int64_t> lookup_keys(const array_type& array, std::size_t count, std::uint64_t seed) {
  random_source random(seed);
  std::vector<std::int64_t> keys(count);
  for (std::int64_t& key : keys) key = static_cast<std::int64_t>(random.below(2 * array.size()));
  return keys;
}

// One phase: the lookups of `keys[i]` go to `*arrays[i / batch % arrays.size()]`.
struct phase {
  std::vector<const array_type*> arrays;
  std::vector<std::int64_t> keys;
  [[nodiscard]] const array_type& array_of(std::size_t index) const { return *arrays[index / batch % arrays.size()]; }
};

// Runs `run_batch(array, keys, add)` over the phase batch by batch (a batch never spans arrays);
// add(i, result) folds the result of the batch's lookup i into the phase's checksum.
template <class RunBatch>
std::uint64_t by_batches(const phase& work, RunBatch run_batch) {
  std::uint64_t sum = 0;
  for (std::size_t first = 0; first < work.keys.size(); first += batch) {
    auto add = [&sum, first](std::size_t i, const array_type::result_type& found) {
      sum += checksum_share(first + i, found);
    };
    run_batch(work.array_of(first), std::span(work.keys).subspan(first, std::min(batch, work.keys.size() - first)), add);
  }
  return sum;
}

// The adaptive technique's group cap: the largest fixed group measured beside it.
std::size_t adaptive_cap(const std::vector<std::size_t>& groups) { return *std::max_element(groups.begin(), groups.end()); }

// Runs multi_find(how, group) over the phase batch by batch, folding the results into its checksum.
std::uint64_t multi_find_batches(const phase& work, technique how, std::size_t group,
                                 std::vector<array_type::result_type>& out) {
  return by_batches(work, [&](const array_type& array, std::span<const std::int64_t> keys, auto& add) {
    array.multi_find(keys, std::span(out).first(keys.size()), how, group);
    for (std::size_t i = 0; i < keys.size(); ++i) add(i, out[i]);
  });
}

std::vector<technique_run> techniques_for(const run_context& context, const phase& work,
                                          const std::vector<std::size_t>& groups,
                                          std::vector<array_type::result_type>& out) {
  std::vector<technique_run> runs;
  if (context.selected("naive")) {
    runs.push_back({"naive", [&work] {
                      return by_batches(work, [](const array_type& array, std::span<const std::int64_t> keys, auto& add) {
                        for (std::size_t i = 0; i < keys.size(); ++i) add(i, array.find(keys[i]));
                      });
                    }});
  }
  if (context.selected("plain-coro")) {
    runs.push_back({"plain-coro", [&work] {
                      return by_batches(work, [](const array_type& array, std::span<const std::int64_t> keys, auto& add) {
                        sequential_scheduler{}.run(
                            keys.size(), [&](std::size_t i) { return array.lookup<sequential>(keys[i]); }, add);
                      });
                    }});
  }
  if (context.selected("coro")) {
    for (std::size_t group : groups) {
      runs.push_back({"coro-g" + std::to_string(group),
                      [&work, &out, group] { return multi_find_batches(work, technique::coro, group, out); }});
    }
  }
  if (context.selected("adaptive")) {
    const std::size_t cap = adaptive_cap(groups);
    runs.push_back({"adaptive", [&work, &out, cap] { return multi_find_batches(work, technique::adaptive, cap, out); }});
  }
  return runs;
}

void emit_phase(run_context& context, const std::string& label, std::size_t size_bytes, std::size_t operations,
                const std::vector<measurement>& measured, std::size_t settled_setting) {
  double naive_ns = 0;
  double best_fixed_ns = 0;
  for (const measurement& each : measured) {
    if (each.name == "naive") naive_ns = each.median_ns;
    if (each.name != "adaptive" && (best_fixed_ns == 0 || each.median_ns < best_fixed_ns)) best_fixed_ns = each.median_ns;
  }
  for (const measurement& each : measured) {
    const double ns_per_op = each.median_ns / static_cast<double>(operations);
    const bool fixed_group = each.name.starts_with("coro-g");
    result_row row;
    row.set("structure", "sorted-array-int64")
        .set("phase", label)
        .set("technique", fixed_group ? std::string("coro") : each.name)
        .set("pass", each.name)
        .set("group", static_cast<std::int64_t>(fixed_group ? std::stoul(each.name.substr(6)) : 0))
        .set("size_bytes", static_cast<std::int64_t>(size_bytes))
        .set("ops", static_cast<std::int64_t>(operations))
        .set("ns_per_op", ns_per_op)
        .set("mops", 1e3 / ns_per_op)
        .set("checksum", std::to_string(each.checksum));
    if (naive_ns > 0) row.set("speedup_vs_naive", naive_ns / each.median_ns);
    if (best_fixed_ns > 0) row.set("speedup_vs_best_fixed", best_fixed_ns / each.median_ns);
    if (each.name == "adaptive") row.set("settled_setting", static_cast<std::int64_t>(settled_setting));
    context.emit(std::move(row));
  }
}

void run_adaptive(run_context& context) {
  const bool quick = context.quick();
  std::vector<std::size_t> sizes = context.sizes_or({std::size_t{1} << 20, quick ? std::size_t{64} << 20 : dram_resident_bytes()});
  std::sort(sizes.begin(), sizes.end());
  const std::vector<std::size_t> groups = context.groups_or({4, 8, 16, 32});
  const std::size_t operations = context.keys_or(quick ? 4 * batch : 32 * batch);
  const unsigned repetitions = context.repetitions_or(quick ? 2 : 5);
  const page_size pages = context.pages_or(page_size::huge_2m);
  std::size_t total_bytes = 0;
  for (std::size_t size : sizes) total_bytes += size;
  context.require_memory(total_bytes, "the sorted arrays");

  std::vector<array_type> arrays;
  for (std::size_t size : sizes) arrays.push_back(build_array(size, pages));
  context.note("pages", arrays.back().describe_pages());

  std::vector<std::pair<std::string, phase>> phases;
  for (std::size_t index = 0; index < arrays.size(); ++index) {
    phases.emplace_back(format_bytes(arrays[index].memory_bytes()),
                        phase{{&arrays[index]}, lookup_keys(arrays[index], operations, context.seed() + index)});
  }
  if (arrays.size() > 1) {
    phase alternating{{&arrays.front(), &arrays.back()}, {}};
    alternating.keys.resize(operations);
    const std::vector<std::int64_t> small = lookup_keys(arrays.front(), operations, context.seed() + 100);
    const std::vector<std::int64_t> large = lookup_keys(arrays.back(), operations, context.seed() + 101);
    for (std::size_t i = 0; i < operations; ++i) alternating.keys[i] = (i / batch % 2 == 0 ? small : large)[i];
    phases.emplace_back("alternating", std::move(alternating));
  }
  for (std::size_t index = 0; index < phases.size(); ++index) {
    const auto& [label, work] = phases[index];
    context.configuration(index, phases.size(), label);
    std::vector<array_type::result_type> out(batch);
    const std::vector<technique_run> runs = techniques_for(context, work, groups, out);
    if (runs.empty()) return;
    const std::vector<measurement> measured = measure_interleaved(runs, repetitions, &context);
    require_same_checksums(measured, "adaptive " + label);
    std::size_t bytes = 0;
    for (const array_type* array : work.arrays) bytes = std::max(bytes, array->memory_bytes());
    // The adaptive technique learns per thread across phases and repetitions, as it would for a
    // user's successive multi_finds: the setting it ended the phase on.
    const std::size_t settled = detail::adaptive_controller_for<array_type>(adaptive_cap(groups)).current_setting();
    emit_phase(context, label, bytes, work.keys.size(), measured, settled);
  }
}

const registration adaptive_experiment{experiment{
    .name = "adaptive",
    .reproduces = "braid's adaptive scheduler (no paper figure): plain vs fixed groups vs adaptive",
    .summary = "binary search in cache, in DRAM and alternating: the adaptive scheduler against every fixed setting",
    .techniques = {"naive", "plain-coro", "coro", "adaptive"},
    .accepted = accepts_size | accepts_keys | accepts_group | accepts_technique | accepts_pages,
    .run = run_adaptive,
}};

}  // namespace
}  // namespace braid::bench
