// Shared parts of the ordered-index experiments (bst, skip-list, csb-plus-tree, bplus-tree):
// their settings and technique names, key sets and lookup streams, the variants a run compares
// (the index's techniques and the std::map / absl::btree_map peers), and the rows it emits.
//
// Every variant fills one result per lookup key; its checksum (lookup_results.hpp) folds results
// and positions, so a variant that returns other results (or the right results in another
// order) fails the run.
// Ratios are against the fastest plain variant ("naive" and any "naive-..." spelling), so the
// baseline is always the best plain algorithm the experiment measured.
#pragma once

#include <absl/container/btree_map.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "braid/core/frame_pool.hpp"
#include "braid/core/imlp_scheduler.hpp"
#include "braid/core/operation.hpp"
#include "braid/core/radix_sort.hpp"
#include "braid/index/technique.hpp"
#include "experiment.hpp"
#include "figures.hpp"
#include "imlp_forms.hpp"
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
  if (distribution.shape == key_distribution::kind::sorted) radix_sort(std::span(keys));
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

// ---- what an ordered experiment says about itself ----

// The options every ordered experiment accepts.
inline constexpr unsigned accepted_options =
    accepts_size | accepts_keys | accepts_group | accepts_technique | accepts_dist | accepts_pages;

// The technique names an experiment accepts, in the order `list` shows them: naive, its other
// plain variants, its interleaved techniques, its peers.
inline std::vector<std::string> technique_names(const std::vector<std::string>& plain,
                                                const std::vector<std::string>& interleaved_names,
                                                const std::vector<std::string>& peers) {
  std::vector<std::string> names = {"naive"};
  for (const auto* list : {&plain, &interleaved_names, &peers}) names.insert(names.end(), list->begin(), list->end());
  return names;
}

// A run's settings: the options, else the experiment's defaults. Every ordered experiment
// measures one DRAM-resident size (16 MiB with --quick), 5 repetitions (3) and 2 MiB pages;
// groups and lookups are its own (20,000 lookups with --quick).
struct run_settings {
  std::vector<std::size_t> sizes;
  std::vector<std::size_t> groups;
  std::size_t lookups = 0;
  unsigned repetitions = 5;
  page_size pages = page_size::huge_2m;
};

struct setting_defaults {
  std::vector<std::size_t> groups;
  std::vector<std::size_t> quick_groups;
  std::size_t lookups = 0;
};

inline run_settings settings_of(const run_context& context, const setting_defaults& defaults) {
  const bool quick = context.quick();
  return {.sizes = context.sizes_or({quick ? std::size_t{16} << 20 : dram_resident_bytes()}),
          .groups = context.groups_or(quick ? defaults.quick_groups : defaults.groups),
          .lookups = context.keys_or(quick ? 20'000 : defaults.lookups),
          .repetitions = context.repetitions_or(quick ? 3 : 5),
          .pages = context.pages_or(page_size::huge_2m)};
}

// The --quick arguments of the experiments' figure panels.
inline std::vector<std::string> quick_arguments(const std::string& sizes, const std::string& group) {
  return {"--size", sizes, "--group", group, "--keys", "5000", "--repetitions", "2"};
}

// The DRAM-resident panel at `groups`; under --quick, 16 MiB at `quick_group`.
inline panel dram_panel(const std::string& groups, const std::string& quick_group) {
  return {.label = "DRAM", .arguments = {"--size", "dram", "--group", groups},
          .quick_arguments = quick_arguments("16MiB", quick_group)};
}

// A headline's two panels: the DRAM panel at `dram_groups` and cache-resident at `cache_size`
// ("4MiB", labelled "4 MiB") and `cache_groups`; under --quick, 16 MiB and 1 MiB at one group.
inline std::vector<panel> dram_and_cache_panels(const std::string& dram_groups, const std::string& cache_size,
                                                const std::string& cache_groups, const std::string& quick_group) {
  const std::string cache_label = cache_size.substr(0, cache_size.size() - 3) + " MiB";
  return {dram_panel(dram_groups, quick_group),
          {.label = cache_label, .arguments = {"--size", cache_size, "--group", cache_groups},
           .quick_arguments = quick_arguments("1MiB", quick_group)}};
}

// The fields every row of a run carries: the structure's own, then the page size obtained
// and the lookup distribution.
inline std::vector<std::pair<std::string, field_value>> run_fields(const run_context& context,
                                                                   const std::string& pages_description,
                                                                   std::vector<std::pair<std::string, field_value>> fields) {
  fields.emplace_back("pages", obtained_pages(pages_description));
  fields.emplace_back("distribution", context.distribution_or({}).describe());
  return fields;
}

// The values stored under `keys`, for a structure's bulk build.
inline std::vector<std::uint64_t> values_of(std::span<const std::uint64_t> keys) {
  std::vector<std::uint64_t> values(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) values[i] = value_of(keys[i]);
  return values;
}

// Average suspensions of an interleaved operation over (at most 20,000 of) `keys`: the
// fetches of one lookup.
template <class Key, class MakeOperation>
double sampled_suspensions(std::span<const Key> keys, MakeOperation make_operation) {
  return suspensions_per_operation(keys.first(std::min<std::size_t>(keys.size(), 20'000)), std::move(make_operation));
}

// ---- the variants of a run ----

using fill_function = std::function<void(std::span<std::optional<std::uint64_t>>)>;

// A plain variant: a candidate for the naive baseline.
inline variant plain_variant(std::string name, fill_function fill) { return {std::move(name), 0, true, std::move(fill), {}}; }

// Frame-pool bytes one operation in flight holds, per coroutine form; rows of the variants
// that run it carry them as frame_bytes.
struct frame_sizes {
  std::optional<std::int64_t> coro;  // flattened coroutine (coro, coro-nta)
  std::optional<std::int64_t> task;  // nested tasks (task)
};

// Adds, for every group, each of `names` the run selected: gp, amac, coro, fiber, coro-nta
// (coro with non-temporal prefetches) and coro_nested (nested tasks).
// make_fill(how, group, non_temporal) answers the run's operations that way.
template <class MakeFill>
void add_interleaved(std::vector<variant>& variants, const run_context& context, const std::vector<std::size_t>& groups,
                     const std::vector<std::string>& names, MakeFill make_fill, const frame_sizes& frames = {}) {
  for (std::size_t group : groups) {
    for (const std::string& name : names) {
      if (!context.selected(name)) continue;
      const bool nested = name == "coro_nested";
      const bool non_temporal = name == "coro-nta";
      const technique how = nested ? technique::coro_nested : non_temporal ? technique::coro : parse_technique(name);
      const std::optional<std::int64_t> frame_bytes = nested ? frames.task : how == technique::coro ? frames.coro : std::nullopt;
      std::vector<std::pair<std::string, field_value>> extra;
      if (frame_bytes) extra.emplace_back("frame_bytes", *frame_bytes);
      variants.push_back({name, group, false, make_fill(how, group, non_temporal), std::move(extra)});
    }
  }
}

// make_fill for an index's multi_find over `keys`, with its default prefetch hint or NTA.
template <class Index>
auto multi_find_fills(const Index& index, std::span<const std::uint64_t> keys) {
  return [&index, keys](technique how, std::size_t group, bool non_temporal) -> fill_function {
    if (non_temporal) {
      return [&index, keys, how, group](std::span<std::optional<std::uint64_t>> out) {
        index.template multi_find<prefetch_hint::nta>(keys, out, how, group);
      };
    }
    return [&index, keys, how, group](std::span<std::optional<std::uint64_t>> out) {
      index.multi_find(keys, out, how, group);
    };
  };
}

// Answers every scan of a batch with the sum of the values it visited xor their count:
// run_scans(visited, visit) runs the batch, visit(request, key, value) for each entry.
template <class RunScans>
void fill_scan_checksums(std::span<std::optional<std::uint64_t>> out, RunScans&& run_scans) {
  std::vector<std::uint64_t> sums(out.size(), 0);
  std::vector<std::size_t> visited(out.size(), 0);
  run_scans(std::span(visited), [&sums](std::size_t request, std::uint64_t, std::uint64_t value) { sums[request] += value; });
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = sums[i] ^ visited[i];
}

// make_fill for an index's multi_scan over `requests`, answered by fill_scan_checksums.
template <class Index, class Request>
auto multi_scan_fills(const Index& index, std::span<const Request> requests) {
  auto scans_with = [&index, requests](technique how, std::size_t group, auto hint) -> fill_function {
    return [&index, requests, how, group](std::span<std::optional<std::uint64_t>> out) {
      fill_scan_checksums(out, [&](std::span<std::size_t> visited, auto visit) {
        index.template multi_scan<decltype(hint)::value>(requests, visited, how, group, visit);
      });
    };
  };
  return [scans_with](technique how, std::size_t group, bool non_temporal) -> fill_function {
    if (non_temporal) return scans_with(how, group, std::integral_constant<prefetch_hint, prefetch_hint::nta>{});
    return scans_with(how, group, std::integral_constant<prefetch_hint, Index::default_prefetch_hint>{});
  };
}

// ---- the generated (IMLP) kernels in other layouts and dispatches (imlp_forms.hpp) ----

// `names` and then imlp_ablation_names: the techniques of an experiment with the ablations.
inline std::vector<std::string> with_imlp_variants(std::vector<std::string> names) {
  names.insert(names.end(), imlp_ablation_names.begin(), imlp_ablation_names.end());
  return names;
}

// Adds, for every group, each of imlp_ablation_names that --technique named;
// make_fill(imlp_form<Layout, Dispatch>{}, schedule, group) answers the run's operations that way.
template <class MakeFill>
void add_imlp_variants(std::vector<variant>& variants, const run_context& context, const std::vector<std::size_t>& groups,
                       MakeFill make_fill) {
  const auto& given = context.given().techniques;
  for (std::size_t group : groups) {
    for (std::size_t which = 0; which < imlp_ablation_names.size(); ++which) {
      const std::string& name = imlp_ablation_names[which];
      if (std::find(given.begin(), given.end(), name) == given.end()) continue;
      fill_function fill = with_imlp_ablation(
          which, [&](auto form, imlp_schedule schedule) -> fill_function { return make_fill(form, schedule, group); });
      variants.push_back({name, group, false, std::move(fill), {}});
    }
  }
}

// make_fill of add_imlp_variants for an index's find_imlp over `keys`.
template <class Index>
auto find_imlp_fills(const Index& index, std::span<const std::uint64_t> keys) {
  return [&index, keys](auto form, imlp_schedule schedule, std::size_t group) -> fill_function {
    using chosen = decltype(form);
    return [&index, keys, schedule, group](std::span<std::optional<std::uint64_t>> out) {
      index.template find_imlp<Index::default_prefetch_hint, chosen::layout, chosen::dispatch>(keys, out, group, schedule);
    };
  };
}

// make_fill of add_imlp_variants for an index's scan_imlp over `requests` (fill_scan_checksums).
template <class Index, class Request>
auto scan_imlp_fills(const Index& index, std::span<const Request> requests) {
  return [&index, requests](auto form, imlp_schedule schedule, std::size_t group) -> fill_function {
    using chosen = decltype(form);
    return [&index, requests, schedule, group](std::span<std::optional<std::uint64_t>> out) {
      fill_scan_checksums(out, [&](std::span<std::size_t> visited, auto visit) {
        index.template scan_imlp<Index::default_prefetch_hint, chosen::layout, chosen::dispatch>(requests, visited, group,
                                                                                                schedule, visit);
      });
    };
  };
}

// The peers a user would use instead, over the same keys: std::map and absl::btree_map, built
// from sorted keys (hinted appends, so their nodes are laid out in key order), answering
// lookups with find() and scans with lower_bound and increments. A peer is built when the
// experiment offers it (names it among its techniques) and the run selected it.
class peer_maps {
 public:
  explicit peer_maps(const run_context& context)
      : with_std_map_(offered(context, "std-map")), with_absl_(offered(context, "absl-btree")) {}

  [[nodiscard]] bool any() const { return with_std_map_ || with_absl_; }
  // Bytes the selected peers take per key.
  [[nodiscard]] std::size_t bytes_per_key() const { return (with_std_map_ ? 64 : 0) + (with_absl_ ? 24 : 0); }

  void build_from_sorted(std::span<const std::uint64_t> sorted_keys) {
    if (with_std_map_) std_map_ = sorted_peer<std::map<std::uint64_t, std::uint64_t>>(sorted_keys);
    if (with_absl_) absl_map_ = sorted_peer<absl::btree_map<std::uint64_t, std::uint64_t>>(sorted_keys);
  }

  // From keys in any order: sorts a copy first.
  void build(const run_context& context, std::span<const std::uint64_t> keys) {
    if (!any()) return;
    context.progress("building the peers");
    std::vector<std::uint64_t> sorted_keys(keys.begin(), keys.end());
    radix_sort(std::span(sorted_keys));
    build_from_sorted(sorted_keys);
  }

  void add_lookups(std::vector<variant>& variants, std::span<const std::uint64_t> keys) const {
    if (with_std_map_) variants.push_back({"std-map", 0, false, lookups_in(std_map_, keys), {}});
    if (with_absl_) variants.push_back({"absl-btree", 0, false, lookups_in(absl_map_, keys), {}});
  }

  template <class Request>
  void add_scans(std::vector<variant>& variants, std::span<const Request> requests) const {
    if (with_std_map_) variants.push_back({"std-map", 0, false, scans_in(std_map_, requests), {}});
    if (with_absl_) variants.push_back({"absl-btree", 0, false, scans_in(absl_map_, requests), {}});
  }

 private:
  static bool offered(const run_context& context, const std::string& name) {
    const auto& names = context.definition().techniques;
    return std::find(names.begin(), names.end(), name) != names.end() && context.selected(name);
  }

  template <class Map>
  static Map sorted_peer(std::span<const std::uint64_t> sorted_keys) {
    Map map;
    for (std::uint64_t key : sorted_keys) map.emplace_hint(map.end(), key, value_of(key));
    return map;
  }

  template <class Map>
  static fill_function lookups_in(const Map& map, std::span<const std::uint64_t> keys) {
    return [&map, keys](std::span<std::optional<std::uint64_t>> out) {
      for (std::size_t i = 0; i < keys.size(); ++i) {
        auto found = map.find(keys[i]);
        out[i] = found == map.end() ? std::nullopt : std::optional<std::uint64_t>(found->second);
      }
    };
  }

  template <class Map, class Request>
  static fill_function scans_in(const Map& map, std::span<const Request> requests) {
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

  bool with_std_map_;
  bool with_absl_;
  std::map<std::uint64_t, std::uint64_t> std_map_;
  absl::btree_map<std::uint64_t, std::uint64_t> absl_map_;
};

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

// The variants of a lookup run over `index`: naive, the experiment's other `plain` variants,
// every selected technique of `names` at every group through multi_find (the coroutines with
// the frame bytes of one lookup), then the peers.
template <class Index>
std::vector<variant> lookup_variants(const run_context& context, const Index& index, std::span<const std::uint64_t> lookups,
                                     const run_settings& settings, const std::vector<std::string>& names,
                                     const peer_maps& peers, std::vector<variant> plain = {}) {
  const auto multi_find_with = multi_find_fills(index, lookups);
  std::vector<variant> variants = {plain_variant("naive", multi_find_with(technique::naive, 1, false))};
  for (variant& each : plain) variants.push_back(std::move(each));
  frame_sizes frames{.coro = static_cast<std::int64_t>(
                         pool_bytes_per_operation([&] { return index.template lookup<interleaved>(lookups.front()); }))};
  if constexpr (requires { index.template lookup_nested<interleaved>(lookups.front()); }) {
    frames.task = static_cast<std::int64_t>(
        pool_bytes_per_operation([&] { return index.template lookup_nested<interleaved>(lookups.front()); }));
  }
  add_interleaved(variants, context, settings.groups, names, multi_find_with, frames);
  peers.add_lookups(variants, lookups);
  return variants;
}

// A lookup run over `index`: its lines per lookup are the interleaved lookup's suspensions
// times the lines each suspension fetches.
template <class Index>
run_description lookup_run(std::string structure, const Index& index, std::span<const std::uint64_t> lookups,
                           const run_settings& settings, double lines_per_suspension = 1) {
  return {.structure = std::move(structure),
          .size_bytes = index.memory_bytes(),
          .operations = lookups.size(),
          .lines_per_operation =
              lines_per_suspension *
              sampled_suspensions(lookups, [&](std::uint64_t key) { return index.template lookup<interleaved>(key); }),
          .repetitions = settings.repetitions};
}

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
