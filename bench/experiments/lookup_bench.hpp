// What the lookup experiments (hash-probe, linear-probe, binary-search) share: a set of
// timed passes over one batch of keys — every technique at every group size, the naive
// variants and the peer baselines (the hash maps among them) — verified against the naive
// answers before any timing, measured interleaved (measure_interleaved), and emitted as one
// row each. A structure with a generated IMLP lookup (an imlp_kernel) also gets its rows
// imlp-dynamic, imlp-static and imlp-hybrid, and the layout / dispatch ablations when named.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "braid/core/all.hpp"
#include "braid/core/imlp_scheduler.hpp"
#include "braid/index/detail/multi_find.hpp"
#include "braid/index/technique.hpp"
#include "experiment.hpp"
#include "imlp_forms.hpp"
#include "lookup_results.hpp"
#include "measure.hpp"
#include "results.hpp"
#include "roofline.hpp"

namespace braid::bench::lookup_bench {

// The interleaved techniques of an index's multi_find, by their braid-bench names.
inline constexpr technique interleaved_techniques[] = {technique::gp, technique::amac, technique::coro,
                                                       technique::fiber};

// The generated lookups of an index with an IMLP kernel, as multi_find runs them (the
// ablations in the layouts and dispatches it does not choose are imlp_forms.hpp's).
inline constexpr technique imlp_techniques[] = {technique::imlp_dynamic, technique::imlp_static,
                                                technique::imlp_hybrid};

// Whether a structure names a generated IMLP lookup (imlp_kernel and imlp_shared).
template <class Structure>
concept has_generated_lookup = detail::has_imlp_kernel<Structure, Structure::default_prefetch_hint>;

// The technique names an experiment accepts for an index: naive, the experiment's other plain
// variants, the four interleaved ones, their variants with the other prefetch hint (`coro-t0`
// when the default is NTA), `coro-sequential` (the coroutine instantiated sequentially: the
// cost of the coroutine machinery without interleaving), `coro-per-key` (one chained coroutine
// per lookup on a chained_scheduler, where `coro` runs G long-lived ones over the batch: what
// the long-lived form saves), `coro-interleaved` (one coroutine per lookup instantiated
// interleaved on an interleaved_scheduler, where every suspension returns to the scheduler's
// loop: what the chained ring gains or costs), and the experiment's peers. The ablations run
// only when named with --technique.
inline std::vector<std::string> index_technique_names(prefetch_hint default_hint, const std::vector<std::string>& plain = {},
                                                      const std::vector<std::string>& peers = {}) {
  const char* other = default_hint == prefetch_hint::nta ? "-t0" : "-nta";
  std::vector<std::string> names = {"naive"};
  names.insert(names.end(), plain.begin(), plain.end());
  for (technique t : interleaved_techniques) names.emplace_back(to_string(t));
  for (technique t : interleaved_techniques) names.push_back(std::string(to_string(t)) + other);
  names.emplace_back("coro-sequential");
  names.emplace_back("coro-per-key");
  names.emplace_back("coro-interleaved");
  names.insert(names.end(), peers.begin(), peers.end());
  return names;
}

// The same for `Structure`, with its generated lookups and their ablations when it has them.
template <class Structure>
std::vector<std::string> index_technique_names_of(const std::vector<std::string>& plain = {},
                                                  const std::vector<std::string>& peers = {}) {
  std::vector<std::string> names = index_technique_names(Structure::default_prefetch_hint, plain, peers);
  if constexpr (has_generated_lookup<Structure>) {
    for (technique t : imlp_techniques) names.emplace_back(to_string(t));
    names.insert(names.end(), imlp_ablation_names.begin(), imlp_ablation_names.end());
  }
  return names;
}

// The options every lookup experiment accepts.
inline constexpr unsigned accepted_options =
    accepts_size | accepts_keys | accepts_group | accepts_threads | accepts_technique | accepts_dist | accepts_pages;

// Whether --technique named `name` explicitly (ablations run only then).
inline bool named_explicitly(const run_context& context, const std::string& name) {
  const auto& given = context.given().techniques;
  return std::find(given.begin(), given.end(), name) != given.end();
}

// The last-level cache as sysfs describes it (results.hpp); 32 MiB when unknown.
inline std::size_t last_level_cache_bytes() {
  const std::size_t bytes = ::braid::bench::last_level_cache_bytes();
  return bytes != 0 ? bytes : std::size_t{32} << 20;
}

// Data at least four times the last-level cache is DRAM-resident: its rows get a roofline
// fraction.
inline bool dram_resident(std::size_t bytes) { return bytes >= 4 * last_level_cache_bytes(); }

// The share of uniformly random line accesses over `bytes` of data that miss the last-level
// cache once it is warm: the cache holds LLC / bytes of the lines.
inline double uniform_miss_share(std::size_t bytes) {
  return 1.0 - std::min(1.0, static_cast<double>(last_level_cache_bytes()) / static_cast<double>(bytes));
}

struct pass_label {
  std::string technique;
  std::size_t group = 1;             // lookups in flight (1 for the sequential passes)
  std::string hint;                  // prefetch hint of interleaved passes, empty otherwise
  bool naive_variant = false;        // a plain search the speedups are measured against
  bool peer = false;                 // another structure over the same keys (its own memory layout)
  bool answers_differently = false;  // answers in another representation (checked separately)

  // The index's own plain lookup, one after another (an ablation such as coro-sequential).
  static pass_label sequential(std::string name) { return {std::move(name), 1, {}, false, false, false}; }
  // A plain variant the speedups are measured against (the fastest one counts).
  static pass_label naive(std::string name) { return {std::move(name), 1, {}, true, false, false}; }
  static pass_label interleaved(std::string name, std::size_t group, prefetch_hint hint) {
    return {std::move(name), group, to_string(hint), false, false, false};
  }
  // What a user would use instead: its rows carry no roofline fraction (the line counts
  // behind it are the index's).
  static pass_label peer_baseline(std::string name, bool answers_differently = false) {
    return {std::move(name), 1, {}, false, true, answers_differently};
  }
};

// Runs `body(begin, end)` over [0, count), split across the runner's threads when there is one.
inline void split_across(thread_runner* runner, std::size_t count,
                         const std::function<void(std::size_t, std::size_t)>& body) {
  if (runner == nullptr) {
    body(0, count);
    return;
  }
  runner->run([&](unsigned worker) {
    const chunk mine = chunk_of(count, runner->size(), worker);
    body(mine.begin, mine.end);
  });
}

// The passes of one measurement: all write into one result buffer (the passes run one after
// another); each is checked against the reference answers before timing starts.
template <class Result>
class lookup_passes {
 public:
  // body(begin, end, out) answers lookups [begin, end) into out (out.size() == end - begin).
  using body_type = std::function<void(std::size_t, std::size_t, std::span<Result>)>;

  lookup_passes(std::size_t lookups, thread_runner* runner) : results_(lookups), runner_(runner) {}

  void add(pass_label label, body_type body) {
    labels_.push_back(std::move(label));
    bodies_.push_back(std::move(body));
  }

  // Runs pass `index` once into the shared buffer; returns the results.
  std::span<const Result> run_once(std::size_t index) {
    split_across(runner_, results_.size(), [&](std::size_t begin, std::size_t end) {
      bodies_[index](begin, end, std::span<Result>(results_).subspan(begin, end - begin));
    });
    return results_;
  }

  // Checks every pass against `reference` (poisoned buffer first, so a result that is never
  // written is caught). Passes labelled answers_differently are checked by `check_other`.
  void verify(const std::vector<Result>& reference, const Result& poison,
              const std::function<void(std::size_t, std::span<const Result>)>& check_other = {}) {
    for (std::size_t pass = 0; pass < bodies_.size(); ++pass) {
      std::fill(results_.begin(), results_.end(), poison);
      const auto results = run_once(pass);
      if (labels_[pass].answers_differently) {
        if (check_other) check_other(pass, results);
        continue;
      }
      for (std::size_t i = 0; i < results.size(); ++i) {
        if (results[i] != reference[i]) {
          throw std::logic_error("technique '" + labels_[pass].technique + "' (group " +
                                 std::to_string(labels_[pass].group) + ") answered lookup " + std::to_string(i) +
                                 " differently from the naive lookup");
        }
      }
    }
  }

  std::vector<measurement> measure(unsigned repetitions, const run_context& context) {
    std::vector<technique_run> runs;
    for (std::size_t pass = 0; pass < bodies_.size(); ++pass) {
      runs.push_back({labels_[pass].technique + "/" + std::to_string(labels_[pass].group) + "/" + labels_[pass].hint,
                      [this, pass] { return checksum_of<Result>(run_once(pass)); }});
    }
    return measure_interleaved(runs, repetitions, &context);
  }

  [[nodiscard]] const std::vector<pass_label>& labels() const { return labels_; }
  [[nodiscard]] std::size_t lookups() const { return results_.size(); }

 private:
  std::vector<Result> results_;
  thread_runner* runner_;
  std::vector<pass_label> labels_;
  std::vector<body_type> bodies_;
};

// Runs the generated lookup in ablation `which` of imlp_ablation_names (imlp_forms.hpp).
template <prefetch_hint Hint, class Structure, class Key, class Result>
void run_imlp_ablation(const Structure& structure, std::size_t which, std::span<const Key> keys,
                       std::span<Result> out, std::size_t group) {
  with_imlp_ablation(which, [&](auto form, imlp_schedule schedule) {
    using chosen = decltype(form);
    structure.template find_imlp<Hint, chosen::layout, chosen::dispatch>(keys, out, group, schedule);
  });
}

// The generated lookups at every group with the default hint, and the ablations when named.
template <class Structure, class Key, class Result>
void add_imlp_techniques(lookup_passes<Result>& passes, const run_context& context, const Structure& structure,
                         std::span<const Key> keys, const std::vector<std::size_t>& groups) {
  constexpr prefetch_hint hint = Structure::default_prefetch_hint;
  for (std::size_t group : groups) {
    for (technique how : imlp_techniques) {
      if (!context.selected(std::string(to_string(how)))) continue;
      passes.add(pass_label::interleaved(std::string(to_string(how)), group, hint),
                 [&structure, keys, how, group](std::size_t begin, std::size_t end, std::span<Result> out) {
                   structure.template multi_find<hint>(keys.subspan(begin, end - begin), out, how, group);
                 });
    }
    for (std::size_t which = 0; which < imlp_ablation_names.size(); ++which) {
      if (!named_explicitly(context, imlp_ablation_names[which])) continue;
      passes.add(pass_label::interleaved(imlp_ablation_names[which], group, hint),
                 [&structure, keys, which, group](std::size_t begin, std::size_t end, std::span<Result> out) {
                   run_imlp_ablation<hint>(structure, which, keys.subspan(begin, end - begin), out, group);
                 });
    }
  }
}

// Adds the index's own techniques: naive (unless the experiment adds its own plain
// variants), then gp / amac / coro / fiber at every group with the default hint, the
// generated lookups where the structure has them, the other-hint ablations,
// coro-per-key, coro-interleaved and coro-sequential when named.
template <class Structure, class Key, class Result>
void add_index_techniques(lookup_passes<Result>& passes, const run_context& context, const Structure& structure,
                          std::span<const Key> keys, const std::vector<std::size_t>& groups, bool with_naive = true) {
  constexpr prefetch_hint hint = Structure::default_prefetch_hint;
  constexpr prefetch_hint other = hint == prefetch_hint::nta ? prefetch_hint::t0 : prefetch_hint::nta;
  if (with_naive && context.selected("naive")) {
    passes.add(pass_label::naive("naive"),
               [&structure, keys](std::size_t begin, std::size_t end, std::span<Result> out) {
                 structure.multi_find(keys.subspan(begin, end - begin), out, technique::naive, 1);
               });
  }
  for (technique how : interleaved_techniques) {
    const std::string name(to_string(how));
    const std::string other_name = name + "-" + to_string(other);
    for (std::size_t group : groups) {
      if (context.selected(name)) {
        passes.add(pass_label::interleaved(name, group, hint),
                   [&structure, keys, how, group](std::size_t begin, std::size_t end, std::span<Result> out) {
                     structure.template multi_find<hint>(keys.subspan(begin, end - begin), out, how, group);
                   });
      }
      if (named_explicitly(context, other_name)) {
        passes.add(pass_label::interleaved(other_name, group, other),
                   [&structure, keys, how, group](std::size_t begin, std::size_t end, std::span<Result> out) {
                     structure.template multi_find<other>(keys.subspan(begin, end - begin), out, how, group);
                   });
      }
    }
  }
  if constexpr (has_generated_lookup<Structure>) add_imlp_techniques(passes, context, structure, keys, groups);
  // One coroutine per lookup, lookup<Mode> on Scheduler{group}, at every group.
  auto add_per_key = [&]<class Scheduler, class Mode>(const char* name) {
    if (!named_explicitly(context, name)) return;
    for (std::size_t group : groups) {
      passes.add(pass_label::interleaved(name, group, hint),
                 [&structure, keys, group](std::size_t begin, std::size_t end, std::span<Result> out) {
                   run_into(
                       Scheduler{group}, keys.subspan(begin, end - begin),
                       [&structure](const Key& key) { return structure.template lookup<Mode>(key); }, out);
                 });
    }
  };
  add_per_key.template operator()<chained_scheduler, chained_with<hint>>("coro-per-key");
  add_per_key.template operator()<interleaved_scheduler, interleaved_with<hint>>("coro-interleaved");
  if (named_explicitly(context, "coro-sequential")) {
    passes.add(pass_label::sequential("coro-sequential"),
               [&structure, keys](std::size_t begin, std::size_t end, std::span<Result> out) {
                 run_into(
                     sequential_scheduler{}, keys.subspan(begin, end - begin),
                     [&structure](const Key& key) { return structure.template lookup<sequential>(key); }, out);
               });
  }
}

// The names of the hash-map peers below.
inline const std::vector<std::string> hash_map_peer_names = {"std-unordered-map", "absl-flat-hash-map"};

// The peers a user would use instead of a hash table, over the same keys:
// std::unordered_map and absl::flat_hash_map, answering with find(); each is built when the
// run selected it.
template <class Key>
class hash_map_peers {
 public:
  explicit hash_map_peers(const run_context& context)
      : with_standard_(context.selected("std-unordered-map")), with_abseil_(context.selected("absl-flat-hash-map")) {}

  [[nodiscard]] bool any() const { return with_standard_ || with_abseil_; }

  // Stores key_at(i) for i in [0, count) with value_of(key); a key given twice keeps one entry.
  template <class KeyAt>
  void build(const run_context& context, std::size_t count, KeyAt key_at) {
    if (!any()) return;
    context.progress("building the peer maps");
    if (with_standard_) standard_.reserve(count);
    if (with_abseil_) abseil_.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
      const Key key = key_at(i);
      if (with_standard_) standard_.emplace(key, value_of(key));
      if (with_abseil_) abseil_.emplace(key, value_of(key));
    }
  }

  template <class Result>
  void add_passes(lookup_passes<Result>& passes, std::span<const Key> keys) const {
    if (with_standard_) add_map_pass(passes, "std-unordered-map", standard_, keys);
    if (with_abseil_) add_map_pass(passes, "absl-flat-hash-map", abseil_, keys);
  }

 private:
  template <class Result, class Map>
  static void add_map_pass(lookup_passes<Result>& passes, const char* name, const Map& map, std::span<const Key> keys) {
    passes.add(pass_label::peer_baseline(name), [&map, keys](std::size_t begin, std::size_t end, std::span<Result> out) {
      for (std::size_t i = begin; i < end; ++i) {
        const auto found = map.find(keys[i]);
        out[i - begin] = found == map.end() ? Result{} : Result{found->second};
      }
    });
  }

  bool with_standard_;
  bool with_abseil_;
  std::unordered_map<Key, std::uint64_t> standard_;
  absl::flat_hash_map<Key, std::uint64_t> abseil_;
};

// What a row needs beside the measurement.
struct row_context {
  std::string structure;
  std::size_t size_bytes = 0;
  unsigned threads = 1;
  std::string distribution;
  std::string pages;
  std::optional<double> hit_rate;
  double dram_lines_per_op = 0;  // cache lines fetched from DRAM per lookup (0: not DRAM-resident)
};

// Emits one row per pass; speedup_vs_naive is against the fastest naive variant. Extra
// fields can be added per row by `decorate`.
template <class Result>
void emit_rows(run_context& context, const lookup_passes<Result>& passes, const std::vector<measurement>& measured,
               const row_context& facts, const std::function<void(result_row&, const pass_label&)>& decorate = {}) {
  double best_naive_ns = std::numeric_limits<double>::infinity();
  std::string best_naive;
  for (std::size_t pass = 0; pass < measured.size(); ++pass) {
    if (passes.labels()[pass].naive_variant && measured[pass].median_ns < best_naive_ns) {
      best_naive_ns = measured[pass].median_ns;
      best_naive = passes.labels()[pass].technique;
    }
  }
  const double lookups = static_cast<double>(passes.lookups());
  const memory_profile* profile = facts.dram_lines_per_op > 0 ? &measured_memory_profile(context) : nullptr;
  for (std::size_t pass = 0; pass < measured.size(); ++pass) {
    const pass_label& label = passes.labels()[pass];
    const double ns_per_op = measured[pass].median_ns / lookups;
    result_row row;
    row.set("structure", facts.structure)
        .set("pass", measured[pass].name)  // which measured pass the row reports (callgrind counts)
        .set("technique", label.technique)
        .set("group", static_cast<std::int64_t>(label.group))
        .set("threads", static_cast<std::int64_t>(facts.threads))
        .set("size_bytes", static_cast<std::int64_t>(facts.size_bytes))
        .set("ops", static_cast<std::int64_t>(passes.lookups()))
        .set("ns_per_op", ns_per_op)
        .set("mops", 1e3 / ns_per_op);
    if (std::isfinite(best_naive_ns)) row.set("speedup_vs_naive", best_naive_ns / measured[pass].median_ns);
    if (profile != nullptr && !label.peer) {
      row.set("roofline_fraction", roofline_fraction(facts.dram_lines_per_op, ns_per_op, *profile));
      row.set("dram_lines_per_op", facts.dram_lines_per_op);
    }
    row.set("cycles_per_op", measured[pass].median_cycles / lookups)
        .set("distribution", facts.distribution)
        .set("pages", facts.pages);
    if (!label.hint.empty()) row.set("prefetch_hint", label.hint);
    if (facts.hit_rate) row.set("hit_rate", *facts.hit_rate);
    if (!best_naive.empty()) row.set("naive_reference", best_naive);
    if (decorate) decorate(row, label);
    context.emit(std::move(row));
  }
}

// Fraction of present results.
template <class Result>
double hit_rate_of(const std::vector<Result>& results) {
  if (results.empty()) return 0;
  const auto hits = std::count_if(results.begin(), results.end(), [](const Result& r) { return r.has_value(); });
  return static_cast<double>(hits) / static_cast<double>(results.size());
}

// A thread runner per thread count above 1 (the single-thread passes run on the caller).
inline std::unique_ptr<thread_runner> runner_for(unsigned threads) {
  return threads > 1 ? std::make_unique<thread_runner>(threads) : nullptr;
}

}  // namespace braid::bench::lookup_bench
