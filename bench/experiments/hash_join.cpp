// The join layer's in-memory equi-joins of a primary-key relation R and a foreign-key
// relation S, every technique in one run, medians of interleaved repetitions
// (measure_interleaved), speedups over naive within the same run, and the join's checksum
// (match count and payload fingerprint) required equal across techniques (a mismatch aborts).
//
// join-no-partition (the hash-join probe of "Killer Nanoseconds" §3.1 and of Cimple, as the
// no-partition join of Balkesen et al.): braid/join/hash_join.hpp's table of 64-byte buckets
// built from R, probed by S. --size is the table's bytes: the bucket array is the power of two
// of 64-byte buckets at least that big, and |R| = 1.5 x its bucket count (the middle of the
// table's load of 1 to 2 tuples per bucket). The default is the DRAM-resident size (16 x the
// last-level cache) where memory allows (halved until table, R and S take at most 60% of the
// available memory). R: keys 0 .. |R|-1 shuffled; S: --keys foreign keys (default min(|R|,
// 16M); the same as |R| with --quick) drawn from R's keys by --dist (uniform, zipf, sorted), so
// every probe tuple matches once. Phases, one row each per technique and group:
//   allocate  constructing the empty, zeroed table (naive only): the part of every build that
//             no technique changes;
//   build     allocate + insert R (--threads does not apply: the build is single-threaded);
//             rows add insert_speedup_vs_naive, the speedup of the inserts alone (build minus
//             allocate);
//   probe     probe S into a counting sink, on 1 or --threads workers (S split in chunks).
// --set phase=build|probe|both (default both) picks the phases.
// A build pass's checksum folds the table's size and overflow buckets with a naive probe of
// up to 65,536 tuples of S (a table built wrongly shows there), a probe pass's the join result.
//
// join-index (the index join of the interleaving thesis): R (--size bytes of 16-byte tuples,
// default a quarter of the DRAM-resident size, so that the indexes, 20 to 30 bytes per key,
// take 5 to 8 times the last-level cache) bulk-loaded into a B+-tree (bplus-tree, 512-byte nodes) and a
// CSB+-tree (csb-plus-tree, 64-byte nodes) and inserted into a Masstree (keys as 8 big-endian
// bytes), probed by S (--keys, default min(|R|, 4M)) through each index's multi_find: every
// technique the index has (naive, gp, amac, coro, coro_nested, fiber, adaptive; gp and amac
// only on the CSB+-tree, coro_nested not on it, fiber not on Masstree). --set index= picks
// the indexes. Rows' size_bytes is the index's, build_bytes R's. The checksum must agree
// across techniques and indexes.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "braid/core/thread_runner.hpp"
#include "braid/join/hash_join.hpp"
#include "braid/join/index_join.hpp"
#include "braid/join/relation.hpp"
#include "experiment.hpp"
#include "join_runs.hpp"
#include "measure.hpp"
#include "workloads.hpp"

namespace braid::bench {
namespace {

using join::join_output;
using join::join_result;
using join::tuple;

// ---- relations ---------------------------------------------------------------------------------

// R: keys 0 .. count-1 in a random order, payloads a mix of the key.
std::vector<tuple> primary_keys(std::size_t count, std::uint64_t seed) {
  std::vector<tuple> r(count);
  for (std::size_t i = 0; i < count; ++i) r[i] = {i, join::mix64(i ^ seed)};
  random_source random(seed);
  for (std::size_t i = count; i > 1; --i) std::swap(r[i - 1], r[random.below(i)]);
  return r;
}

// S: `count` keys of R drawn by `distribution`, payload the tuple's position.
std::vector<tuple> foreign_keys(std::size_t count, std::size_t keys, const key_distribution& distribution,
                                std::uint64_t seed) {
  const std::vector<std::uint64_t> drawn = draw_indices(count, keys, distribution, seed);
  std::vector<tuple> s(count);
  for (std::size_t i = 0; i < count; ++i) s[i] = {drawn[i], i};
  return s;
}

std::uint64_t checksum_of(const join_result& result) { return result.checksum + join::mix64(result.matches); }

// ---- rows --------------------------------------------------------------------------------------

std::string pass_name(const std::string& technique_name, std::size_t group) {
  return technique_name == "naive" ? technique_name : technique_name + "@" + std::to_string(group);
}

struct phase_facts {
  std::string structure;
  std::string phase;
  std::string technique_name;  // when set, the rows' technique (else the pass name's, before '@')
  unsigned threads = 1;
  std::size_t size_bytes = 0;
  std::size_t tuples = 0;  // the phase's operations: |R| for a build, |S| for a probe
  std::size_t build_tuples = 0;
  std::size_t probe_tuples = 0;
  std::uint64_t matches = 0;
  std::string distribution;
  std::string pages;
  std::function<void(result_row&)> decorate;
};

// One row per measured pass; speedup_vs_naive against the pass named "naive" of `measured`.
void emit_phase(run_context& context, const std::vector<measurement>& measured, const phase_facts& facts) {
  double naive_ns = 0;
  for (const measurement& m : measured) {
    if (m.name == "naive") naive_ns = m.median_ns;
  }
  for (const measurement& m : measured) {
    const auto at = m.name.find('@');
    const double per_tuple = m.median_ns / static_cast<double>(std::max<std::size_t>(facts.tuples, 1));
    result_row row;
    row.set("structure", facts.structure)
        .set("phase", facts.phase)
        .set("pass", m.name)
        .set("technique", facts.technique_name.empty() ? m.name.substr(0, at) : facts.technique_name)
        .set("group", at == std::string::npos ? std::int64_t{1} : std::stoll(m.name.substr(at + 1)))
        .set("threads", static_cast<std::int64_t>(facts.threads))
        .set("size_bytes", static_cast<std::int64_t>(facts.size_bytes))
        .set("ops", static_cast<std::int64_t>(facts.tuples))
        .set("ns_per_op", per_tuple)
        .set("mops", 1e3 / per_tuple)
        .set("tuples_per_s", 1e9 / per_tuple)
        .set("phase_ms", m.median_ns / 1e6);
    if (naive_ns > 0) row.set("speedup_vs_naive", naive_ns / m.median_ns);
    row.set("build_tuples", static_cast<std::int64_t>(facts.build_tuples))
        .set("probe_tuples", static_cast<std::int64_t>(facts.probe_tuples))
        .set("matches", static_cast<std::int64_t>(facts.matches))
        .set("checksum", std::to_string(m.checksum))
        .set("distribution", facts.distribution)
        .set("pages", facts.pages)
        .set("cycles_per_op", m.median_cycles / static_cast<double>(std::max<std::size_t>(facts.tuples, 1)));
    if (facts.decorate) facts.decorate(row);
    context.emit(std::move(row));
  }
}

// The passes of every selected technique: naive once, the others at every group.
template <class Run>
std::vector<technique_run> technique_passes(const run_context& context, const std::vector<std::string>& names,
                                            const std::vector<std::size_t>& groups, Run run) {
  std::vector<technique_run> passes;
  for (const std::string& name : names) {
    if (!context.selected(name)) continue;
    const technique how = parse_technique(name);
    for (std::size_t group : how == technique::naive ? std::vector<std::size_t>{1} : groups) {
      passes.push_back({pass_name(name, group), [run, how, group] { return run(how, group); }});
    }
  }
  return passes;
}

// ---- join-no-partition -------------------------------------------------------------------------

const std::vector<std::string> hash_join_names = {"naive", "gp", "amac", "coro"};
constexpr std::size_t build_check_probes = 65'536;

struct hash_join_shape {
  std::size_t buckets;
  std::size_t build_tuples;
  std::size_t probe_tuples;
  [[nodiscard]] std::size_t table_bytes() const { return buckets * sizeof(join::no_partition_hash_table::bucket); }
  [[nodiscard]] std::size_t memory_bytes() const {
    return table_bytes() + (build_tuples + probe_tuples) * sizeof(tuple);
  }
};

// The table of at least `table_bytes`; S of `probes` tuples (default: |R| when quick, else at
// most 16M).
hash_join_shape shape_for(std::size_t table_bytes, std::optional<std::size_t> probes, bool quick) {
  const std::size_t line = sizeof(join::no_partition_hash_table::bucket);
  const std::size_t buckets = std::bit_ceil(std::max<std::size_t>(4, (table_bytes + line - 1) / line));
  const std::size_t build = buckets + buckets / 2;
  return {buckets, build, probes.value_or(quick ? build : std::min<std::size_t>(build, std::size_t{1} << 24))};
}

void run_no_partition(run_context& context) {
  const bool quick = context.quick();
  const std::optional<std::size_t> probes = context.given().keys;
  std::vector<std::size_t> sizes = context.sizes_or({});
  if (sizes.empty()) {
    std::size_t bytes = quick ? std::size_t{8} << 20 : dram_resident_bytes();
    // The default shrinks to what memory allows: table, R and S in 60% of the available memory.
    const std::size_t available = available_memory_bytes();
    while (!quick && available != 0 && bytes > (std::size_t{64} << 20) &&
           shape_for(bytes, probes, quick).memory_bytes() > available / 10 * 6) {
      bytes /= 2;
    }
    sizes = {bytes};
  }
  const std::vector<std::size_t> groups =
      context.groups_or(quick ? std::vector<std::size_t>{4, 16} : std::vector<std::size_t>{4, 8, 16, 32});
  const std::vector<unsigned> thread_counts = context.threads_or({1});
  const key_distribution distribution = context.distribution_or({});
  const page_size pages = context.pages_or(page_size::huge_2m);
  const unsigned repetitions = context.repetitions_or(quick ? 2 : 5);
  const std::string phases = context.setting("phase").value_or("both");
  if (phases != "build" && phases != "probe" && phases != "both") {
    throw usage_error("--set phase=" + phases + ": expected build, probe or both");
  }

  for (std::size_t index = 0; index < sizes.size(); ++index) {
    const hash_join_shape shape = shape_for(sizes[index], probes, quick);
    context.configuration(index, sizes.size(), format_bytes(shape.table_bytes()));
    context.require_memory(shape.memory_bytes(), "join-no-partition at this size");
    context.progress("drawing R (" + std::to_string(shape.build_tuples) + " tuples) and S (" +
                     std::to_string(shape.probe_tuples) + ")");
    const std::vector<tuple> r = primary_keys(shape.build_tuples, context.seed());
    const std::vector<tuple> s = foreign_keys(shape.probe_tuples, r.size(), distribution, context.seed() + 1);
    const std::span<const tuple> check_probes = std::span<const tuple>(s).first(std::min(s.size(), build_check_probes));

    phase_facts facts{.structure = "npo-hash-table",
                      .build_tuples = r.size(),
                      .probe_tuples = s.size(),
                      .distribution = distribution.describe()};
    std::uint64_t matches = 0;
    std::uint64_t probe_checksum = 0;
    // Probe: a naive-built table, every technique, per thread count.
    if (phases != "build") {
      context.progress("building the probed table");
      join::no_partition_hash_table table(r.size(), pages);
      table.build(r, technique::naive, 1);
      facts.size_bytes = table.memory_bytes();
      facts.pages = table.describe_pages();
      context.note("npo-hash-table pages", facts.pages);
      facts.decorate = [&table](result_row& row) {
        row.set("buckets", static_cast<std::int64_t>(table.bucket_count()))
            .set("overflow_buckets", static_cast<std::int64_t>(table.overflow_buckets()));
      };
      for (unsigned threads : thread_counts) {
        const std::unique_ptr<thread_runner> runner = threads > 1 ? std::make_unique<thread_runner>(threads) : nullptr;
        auto probe = [&table, &s, &matches, runner = runner.get()](technique how, std::size_t group) {
          join_output out;
          if (runner != nullptr) {
            out = join::probe_in_parallel(table, s, how, group, *runner, false);
          } else {
            table.probe(s, out, how, group);
          }
          matches = out.result().matches;
          return checksum_of(out.result());
        };
        const std::vector<technique_run> passes = technique_passes(context, hash_join_names, groups, probe);
        if (passes.empty()) break;
        context.progress("probe phase, " + std::to_string(threads) + " thread(s): " + std::to_string(passes.size()) +
                         " passes");
        const std::vector<measurement> measured = measure_interleaved(passes, repetitions, &context);
        require_same_checksums(measured, "join-no-partition probe");
        if (probe_checksum != 0 && measured.front().checksum != probe_checksum) {
          throw std::logic_error("join-no-partition: the probe on " + std::to_string(threads) +
                                 " threads disagrees with the probe on " + std::to_string(thread_counts.front()));
        }
        probe_checksum = measured.front().checksum;
        facts.phase = "probe";
        facts.threads = threads;
        facts.tuples = s.size();
        facts.matches = matches;
        emit_phase(context, measured, facts);
      }
    }
    // Build: one table at a time, rebuilt from nothing by every pass.
    std::optional<join::no_partition_hash_table> table;
    auto allocate = [&] {
      table.reset();
      table.emplace(r.size(), pages);
      return std::uint64_t{table->bucket_count()};
    };
    std::size_t buckets = 0;
    std::size_t overflow = 0;  // the same after every build (checked by the checksum)
    std::size_t table_bytes = 0;
    auto build = [&](technique how, std::size_t group) {
      allocate();
      table->build(r, how, group);
      buckets = table->bucket_count();
      overflow = table->overflow_buckets();
      table_bytes = table->memory_bytes();
      join_output sample;
      table->probe(check_probes, sample, technique::naive, 1);
      return checksum_of(sample.result()) ^ join::mix64(table->size() * 0x100000001ULL + table->overflow_buckets());
    };
    std::vector<technique_run> passes = technique_passes(context, hash_join_names, groups, build);
    if (passes.empty() || phases == "probe") continue;
    passes.push_back({"allocate", allocate});  // measured among the builds, reported on its own
    context.progress("build phase: " + std::to_string(passes.size()) + " passes");
    std::vector<measurement> built = measure_interleaved(passes, repetitions, &context);
    const std::vector<measurement> allocated = {built.back()};
    built.pop_back();
    require_same_checksums(built, "join-no-partition build");
    const double allocate_ns = allocated.front().median_ns;
    double naive_build_ns = 0;
    for (const measurement& m : built) {
      if (m.name == "naive") naive_build_ns = m.median_ns;
    }
    facts.size_bytes = table_bytes;
    facts.pages = table->describe_pages();  // the last pass's table (its bucket array)
    table.reset();
    facts.threads = 1;
    facts.tuples = r.size();
    facts.matches = matches;
    facts.phase = "allocate";
    facts.technique_name = "naive";
    facts.decorate = [&](result_row& row) { row.set("buckets", static_cast<std::int64_t>(buckets)); };
    emit_phase(context, allocated, facts);
    facts.phase = "build";
    facts.technique_name.clear();
    facts.decorate = [&](result_row& row) {
      row.set("buckets", static_cast<std::int64_t>(buckets))
          .set("overflow_buckets", static_cast<std::int64_t>(overflow))
          .set("allocate_ms", allocate_ns / 1e6);
      const double phase_ns = *row.number("phase_ms") * 1e6;
      if (naive_build_ns > allocate_ns && phase_ns > allocate_ns) {
        row.set("insert_speedup_vs_naive", (naive_build_ns - allocate_ns) / (phase_ns - allocate_ns));
      }
    };
    emit_phase(context, built, facts);
  }
}

const registration no_partition_experiment{experiment{
    .name = "join-no-partition",
    .reproduces = "Killer Nanoseconds §3.1 / Cimple hash-join probe (machinery for the join layer)",
    .summary = "no-partition hash join of R (primary keys) and S (foreign keys): build and probe, naive, gp, amac, coro",
    .techniques = hash_join_names,
    .accepted = accepts_size | accepts_keys | accepts_group | accepts_threads | accepts_technique | accepts_dist |
                accepts_pages,
    .settings = {{"phase", "build | probe | both", "the phases measured (default both)"}},
    .run = run_no_partition,
}};

// ---- join-index --------------------------------------------------------------------------------

const std::vector<std::string> index_join_names = {"naive", "gp",          "amac", "coro",
                                                   "coro_nested", "fiber", "adaptive"};

struct index_kind {
  std::string name;
  std::vector<std::string> techniques;  // those of index_join_names the index has
};
const std::vector<index_kind> index_kinds = {
    {"bplus-tree", {"naive", "coro", "coro_nested", "fiber", "adaptive"}},
    {"csb-plus-tree", {"naive", "gp", "amac", "coro", "fiber", "adaptive"}},
    {"masstree", {"naive", "coro", "coro_nested", "adaptive"}},
};

std::vector<std::string> chosen_indexes(const run_context& context) {
  const std::string given = context.setting("index").value_or("all");
  if (given == "all") return {"bplus-tree", "csb-plus-tree", "masstree"};
  std::vector<std::string> chosen;
  for (const std::string& name : split_list(given)) {
    if (std::none_of(index_kinds.begin(), index_kinds.end(), [&](const index_kind& k) { return k.name == name; })) {
      throw usage_error("--set index=" + given + ": expected all or a list of bplus-tree, csb-plus-tree, masstree");
    }
    chosen.push_back(name);
  }
  return chosen;
}

template <class Index>
void measure_index_join(run_context& context, const index_kind& kind, std::span<const tuple> r,
                        std::span<const tuple> s, const std::vector<std::size_t>& groups, unsigned repetitions,
                        page_size pages, const std::string& distribution, std::uint64_t& agreed_checksum) {
  context.progress("building the " + kind.name + " of " + std::to_string(r.size()) + " keys");
  const std::unique_ptr<Index> index = join::make_join_index<Index>(r, pages);
  std::uint64_t matches = 0;
  auto probe = [&index, s, &matches](technique how, std::size_t group) {
    join_output out;
    join::index_join_probe(*index, s, out, how, group);
    matches = out.result().matches;
    return checksum_of(out.result());
  };
  const std::vector<technique_run> passes = technique_passes(context, kind.techniques, groups, probe);
  if (passes.empty()) return;
  context.progress(kind.name + ": " + std::to_string(passes.size()) + " passes");
  const std::vector<measurement> measured = measure_interleaved(passes, repetitions, &context);
  require_same_checksums(measured, "join-index " + kind.name);
  if (agreed_checksum != 0 && measured.front().checksum != agreed_checksum) {
    throw std::logic_error("join-index: the " + kind.name + " join disagrees with the other indexes");
  }
  agreed_checksum = measured.front().checksum;
  phase_facts facts{.structure = kind.name,
                    .phase = "probe",
                    .size_bytes = index->memory_bytes(),
                    .tuples = s.size(),
                    .build_tuples = r.size(),
                    .probe_tuples = s.size(),
                    .matches = matches,
                    .distribution = distribution,
                    .pages = to_string(pages),
                    .decorate = [&r](result_row& row) {
                      row.set("build_bytes", static_cast<std::int64_t>(r.size() * sizeof(tuple)));
                    }};
  emit_phase(context, measured, facts);
}

void run_index_join(run_context& context) {
  const bool quick = context.quick();
  const std::vector<std::size_t> sizes = context.sizes_or({quick ? std::size_t{2} << 20 : dram_resident_bytes() / 4});
  const std::vector<std::size_t> groups =
      context.groups_or(quick ? std::vector<std::size_t>{4, 16} : std::vector<std::size_t>{4, 8, 16, 32});
  const key_distribution distribution = context.distribution_or({});
  const page_size pages = context.pages_or(page_size::huge_2m);
  const unsigned repetitions = context.repetitions_or(quick ? 2 : 5);
  const std::vector<std::string> chosen = chosen_indexes(context);
  for (std::size_t index = 0; index < sizes.size(); ++index) {
    const std::size_t build_tuples = std::max<std::size_t>(1, sizes[index] / sizeof(tuple));
    const std::size_t probe_tuples =
        context.keys_or(quick ? build_tuples : std::min<std::size_t>(build_tuples, std::size_t{1} << 22));
    context.configuration(index, sizes.size(), format_bytes(sizes[index]));
    // R, S, a sorted copy of R and the largest index (Masstree, about 30 bytes per key).
    context.require_memory(build_tuples * (2 * sizeof(tuple) + 48) + probe_tuples * sizeof(tuple),
                           "join-index at this size");
    const std::vector<tuple> r = primary_keys(build_tuples, context.seed());
    const std::vector<tuple> s = foreign_keys(probe_tuples, r.size(), distribution, context.seed() + 1);
    std::uint64_t agreed = 0;
    for (const index_kind& kind : index_kinds) {
      if (std::find(chosen.begin(), chosen.end(), kind.name) == chosen.end()) continue;
      if (kind.name == "bplus-tree") {
        measure_index_join<join::bplus_join_index>(context, kind, r, s, groups, repetitions, pages,
                                                   distribution.describe(), agreed);
      } else if (kind.name == "csb-plus-tree") {
        measure_index_join<join::csb_join_index>(context, kind, r, s, groups, repetitions, pages,
                                                 distribution.describe(), agreed);
      } else {
        measure_index_join<join::masstree_join_index>(context, kind, r, s, groups, repetitions, pages,
                                                      distribution.describe(), agreed);
      }
    }
  }
}

const registration index_join_experiment{experiment{
    .name = "join-index",
    .reproduces = "interleaving thesis index join (machinery for the join layer)",
    .summary = "index nested-loop join: S probes a B+-tree, CSB+-tree and Masstree on R by multi_find, every technique each has",
    .techniques = index_join_names,
    .accepted = accepts_size | accepts_keys | accepts_group | accepts_technique | accepts_dist | accepts_pages,
    .settings = {{"index", "all | bplus-tree,csb-plus-tree,masstree", "the indexes probed (default all)"}},
    .run = run_index_join,
}};

}  // namespace

join::join_output run_coroutine_join(const std::string& algorithm, std::span<const tuple> build,
                                     std::span<const tuple> probe, technique how, std::size_t group,
                                     unsigned threads, bool materialize) {
  if (algorithm == "no-partition") {
    return join::no_partition_join(build, probe,
                                   {.build_technique = how, .probe_technique = how, .group = group,
                                    .threads = threads, .materialize = materialize});
  }
  if (algorithm == "index-bplus")
    return join::index_nested_loop_join<join::bplus_join_index>(build, probe, how, group, materialize);
  if (algorithm == "index-csb")
    return join::index_nested_loop_join<join::csb_join_index>(build, probe, how, group, materialize);
  if (algorithm == "index-masstree")
    return join::index_nested_loop_join<join::masstree_join_index>(build, probe, how, group, materialize);
  throw std::invalid_argument("no coroutine join named '" + algorithm + "'");
}

}  // namespace braid::bench
