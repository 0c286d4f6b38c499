// Shared parts of the ordered-index experiments (bst, skip-list, csb-plus-tree, bplus-tree):
// key sets and lookup streams, the variants a run compares, and the rows it emits.
//
// Every variant fills one result per lookup key; its checksum (lookup_results.hpp) folds results
// and positions, so a variant that returns other results (or the right results in another
// order) fails the run.
// Ratios are against the fastest plain variant ("naive" and any "naive-..." spelling), so the
// baseline is always the best plain algorithm the experiment measured.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "braid/core/frame_pool.hpp"
#include "braid/core/operation.hpp"
#include "experiment.hpp"
#include "lookup_results.hpp"
#include "measure.hpp"
#include "results.hpp"
#include "roofline.hpp"
#include "workloads.hpp"

namespace braid::bench::ordered {

using lookup_results = std::vector<std::optional<std::uint64_t>>;

// `count` distinct pseudo-random 64-bit keys, in the order a workload inserts them: key i is a
// bijective scramble (splitmix64's finalizer) of i + an offset derived from the seed, so keys
// never repeat and look uniformly random.
inline std::vector<std::uint64_t> distinct_random_keys(std::size_t count, std::uint64_t seed) {
  std::vector<std::uint64_t> keys(count);
  const std::uint64_t offset = seed * 0x9E3779B97F4A7C15ull;
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t z = offset + i;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    keys[i] = z ^ (z >> 31);
  }
  return keys;
}

// Lookup keys drawn from `stored` by the run's distribution (all present). `sorted` sorts the
// keys themselves, as the thesis's sorted-lookup variant does.
inline std::vector<std::uint64_t> lookup_keys(const run_context& context, std::span<const std::uint64_t> stored,
                                              std::size_t count) {
  const key_distribution distribution = context.distribution_or({});
  const auto indices = draw_indices(count, stored.size(), distribution, context.seed() + 1);
  std::vector<std::uint64_t> keys(count);
  for (std::size_t i = 0; i < count; ++i) keys[i] = stored[indices[i]];
  if (distribution.shape == key_distribution::kind::sorted) std::sort(keys.begin(), keys.end());
  return keys;
}

// The page size at the head of a describe_pages() text ("2m (100% of ...)" -> "2m").
inline std::string obtained_pages(const std::string& description) {
  return description.substr(0, description.find(' '));
}

// One way of answering the run's lookups.
struct variant {
  std::string technique;  // "naive", "coro", "std-map", ...
  std::size_t group = 0;  // lookups in flight; 0 for one-at-a-time variants
  bool plain = false;     // a plain algorithm: a candidate for the naive baseline
  std::function<void(std::span<std::optional<std::uint64_t>>)> fill;
  std::vector<std::pair<std::string, field_value>> extra;  // fields only this variant has

  [[nodiscard]] std::string label() const { return group == 0 ? technique : technique + "@" + std::to_string(group); }
};

// A stackless operation that counts its resumptions: one per suspension, i.e. one per fetch
// of an interleaved lookup.
template <operation Op>
struct counting_operation {
  using result_type = typename Op::result_type;
  static constexpr bool starts_eagerly = Op::starts_eagerly;
  Op op;
  std::size_t* resumptions;
  [[nodiscard]] bool done() const noexcept { return op.done(); }
  void resume() {
    ++*resumptions;
    op.resume();
  }
  auto take_result() { return op.take_result(); }
  void reset() noexcept { op.reset(); }
};

// Average suspensions per operation of make_operation(key) over `keys`, run interleaved.
template <class Key, class MakeOperation>
double suspensions_per_operation(std::span<const Key> keys, MakeOperation make_operation) {
  std::size_t resumptions = 0;
  using Op = std::invoke_result_t<MakeOperation&, const Key&>;
  interleaved_scheduler{16}.run(
      keys.size(), [&](std::size_t i) { return counting_operation<Op>{make_operation(keys[i]), &resumptions}; },
      [](std::size_t, auto&&) {});
  if constexpr (!Op::starts_eagerly) resumptions -= keys.size();  // the first resume() only starts it
  return keys.empty() ? 0.0 : static_cast<double>(resumptions) / static_cast<double>(keys.size());
}

// Calls make_operation() where the compiler cannot see the operation's whole lifetime, so it
// cannot elide the coroutine frame onto the caller's stack (as it may for an operation that
// is created, run and destroyed in one function): the frames are allocated as in a scheduler.
template <class MakeOperation>
[[gnu::noinline]] auto make_opaque_operation(MakeOperation& make_operation) {
  return make_operation();
}

// Frame-pool bytes one in-flight operation holds: make_operation() runs to completion on a
// fresh thread, whose pool starts empty; every frame the operation allocated is then on that
// thread's free lists, counted by size class (64-byte classes up to 1 KiB). For a chain of
// nested tasks this is the whole chain: the frames live at its deepest point.
template <class MakeOperation>
std::size_t pool_bytes_per_operation(MakeOperation make_operation) {
  std::size_t bytes = 0;
  std::thread([&] {
    {
      auto op = make_opaque_operation(make_operation);
      braid::detail::start(op);
      while (!op.done()) op.resume();
      (void)op.take_result();
    }
    const auto& lists = braid::detail::frame_pool_state.lists;
    for (std::size_t size_class = 0; size_class < lists.size(); ++size_class) {
      const std::size_t class_bytes = size_class < braid::detail::small_frame_class_count
                                          ? (size_class + 1) * frame_pool::alignment
                                          : std::size_t{2048} << (size_class - braid::detail::small_frame_class_count);
      for (const auto* frame = lists[size_class]; frame != nullptr; frame = frame->next) bytes += class_bytes;
    }
  }).join();
  return bytes;
}

// Peers: std::map and absl::btree_map, built from sorted keys (hinted appends, so their nodes
// are laid out in key order), looked up with find().
template <class Map>
Map sorted_peer(std::span<const std::uint64_t> sorted_keys) {
  Map map;
  for (std::uint64_t key : sorted_keys) map.emplace_hint(map.end(), key, value_of(key));
  return map;
}

template <class Map>
auto peer_fill(const Map& map, std::span<const std::uint64_t> keys) {
  return [&map, keys](std::span<std::optional<std::uint64_t>> out) {
    for (std::size_t i = 0; i < keys.size(); ++i) {
      auto found = map.find(keys[i]);
      out[i] = found == map.end() ? std::nullopt : std::optional<std::uint64_t>(found->second);
    }
  };
}

// What every row of one structure shares.
struct run_description {
  std::string structure;
  std::size_t size_bytes = 0;
  std::size_t operations = 0;
  double lines_per_operation = 0;  // cache lines a lookup touches
  // Nonzero when the lines are a root-to-leaf descent over nodes of this size: the top levels
  // then stay in the last-level cache and only the rest count as DRAM lines (see below).
  std::size_t descent_node_bytes = 0;
  // False when the lines are largely sequential (a scan of leaves laid out in key order): no
  // roofline fraction then, since the roofline is the rate of independent random misses.
  bool lines_are_independent_misses = true;
  unsigned repetitions = 5;
  std::vector<std::pair<std::string, field_value>> extra;  // fields every row carries
};

// The share of a descent's lines that come from DRAM, for roofline_fraction. A lookup in a tree
// (or skip list) of n nodes touches c·ln n nodes; under uniform lookups the hottest nodes are
// the top ones, and the K = LLC / node_bytes of them that fit in the last-level cache stay
// there, covering c·ln K of the path. So 1 - ln K / ln n of the touched lines miss. Counting
// every touched line as a miss would overstate the fetch rate (roofline fractions above 1).
inline double dram_share_of_descent(std::size_t size_bytes, std::size_t node_bytes) {
  const std::size_t cache = last_level_cache_bytes() != 0 ? last_level_cache_bytes() : std::size_t{32} << 20;
  const double cached_nodes = static_cast<double>(cache) / static_cast<double>(node_bytes);
  const double nodes = static_cast<double>(size_bytes) / static_cast<double>(node_bytes);
  if (nodes <= cached_nodes) return 0.0;
  return 1.0 - std::log(cached_nodes) / std::log(nodes);
}

// Measures every variant interleaved, checks they agree, and emits one row each.
inline void measure_and_emit(run_context& context, const run_description& run, const std::vector<variant>& variants) {
  std::vector<lookup_results> outputs(variants.size(), lookup_results(run.operations));
  std::vector<technique_run> runs;
  for (std::size_t v = 0; v < variants.size(); ++v) {
    runs.push_back({variants[v].label(), [&, v] {
                      variants[v].fill(outputs[v]);
                      return checksum_of(outputs[v]);
                    }});
  }
  const auto measurements = measure_interleaved(runs, run.repetitions, &context);
  require_same_checksums(measurements, run.structure);

  std::string baseline = variants.front().label();
  double baseline_ns = 0;
  for (std::size_t v = 0; v < variants.size(); ++v) {
    if (variants[v].plain && (baseline_ns == 0 || measurements[v].median_ns < baseline_ns)) {
      baseline_ns = measurements[v].median_ns;
      baseline = variants[v].label();
    }
  }
  // Roofline fractions only where the data lives in DRAM (the row's residency).
  const memory_profile* profile = residency_of(run.size_bytes) == "dram" ? &measured_memory_profile(context) : nullptr;
  const double operations = static_cast<double>(run.operations);
  const double dram_lines = run.descent_node_bytes == 0
                                ? run.lines_per_operation
                                : run.lines_per_operation * dram_share_of_descent(run.size_bytes, run.descent_node_bytes);
  for (std::size_t v = 0; v < variants.size(); ++v) {
    const measurement& m = measurements[v];
    const double ns_per_op = m.median_ns / operations;
    result_row row;
    row.set("structure", run.structure)
        .set("pass", m.name)  // which measured pass the row reports (callgrind counts)
        .set("technique", variants[v].technique)
        .set("group", static_cast<std::int64_t>(variants[v].group))
        .set("threads", std::int64_t{1})
        .set("size_bytes", static_cast<std::int64_t>(run.size_bytes))
        .set("ops", static_cast<std::int64_t>(run.operations))
        .set("ns_per_op", ns_per_op)
        .set("mops", operations / m.median_ns * 1e3)
        .set("speedup_vs_naive", baseline_ns / m.median_ns)
        .set("cycles_per_op", m.median_cycles / operations)
        .set("naive_reference", baseline);
    // A peer (std::map, absl::btree_map) is another structure with other lines: the line
    // counts, and so the roofline fraction, describe braid's structure only.
    const std::string& technique = variants[v].technique;
    if (!technique.starts_with("std-") && !technique.starts_with("absl-")) {
      if (profile != nullptr && run.lines_are_independent_misses) {
        row.set("roofline_fraction", roofline_fraction(dram_lines, ns_per_op, *profile)).set("dram_lines_per_op", dram_lines);
      }
      row.set("lines_per_op", run.lines_per_operation);
    }
    for (const auto& [name, value] : run.extra) row.set(name, value);
    for (const auto& [name, value] : variants[v].extra) row.set(name, value);
    context.emit(std::move(row));
  }
}

}  // namespace braid::bench::ordered
