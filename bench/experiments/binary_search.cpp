// binary-search: searching a sorted array with every technique in one run, for int32, int64
// and 15-character string keys — the binary-search experiments of "Killer Nanoseconds"
// (Fig. 6, Fig. 10), the interleaving thesis (Fig. 4.1, 4.5, 4.6) and Cimple (Fig. 1).
//
// Data: --size bytes of keys per key type (a 1 GiB int32 array holds 2^28 keys); key i is
// 2i (int32: INT32_MIN + 2i, so an 8 GiB array still fits; strings: 2i in 15 zero-padded
// digits, so string order is numeric order). Lookups are
// keys of the array drawn with the chosen distribution (the papers' random subset: every
// lookup hits).
// Techniques: the two plain searches (naive-branchless, the branch-free lower bound every
// interleaved technique runs, and naive-branchy, with an early exit; speedups are against
// the faster of the two, named in `naive_reference`), gp, amac, coro, fiber, the generated
// imlp-dynamic / imlp-static / imlp-hybrid (kernels/sorted_array_find.imlp.cpp) and
// imlp-dynamic-branchy (kernels/sorted_array_find_branchy.imlp.cpp) at each group, the
// generated layout / dispatch ablations when named, and two peers: std::lower_bound, and eytzinger_array's find, prefetching (a second copy of
// the keys in breadth-first order; an interleaving figure that loses to it shows here).
// Rows carry `dram_lines_per_op`: the lines of a search below the levels the last-level
// cache holds, log2(lines of the array / lines of the LLC), the estimate behind
// `roofline_fraction`.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "braid/index/eytzinger_array.hpp"
#include "braid/index/generated/sorted_array_find_branchy.hpp"
#include "braid/index/sorted_array.hpp"
#include "figures.hpp"
#include "headline.hpp"
#include "lookup_bench.hpp"
#include "ordered_experiment.hpp"
#include "workloads.hpp"

namespace braid::bench {
namespace {

using result = std::optional<std::size_t>;
using string_key = fixed_string<15>;

template <class Key>
Key key_of(std::uint64_t number) {
  if constexpr (std::is_same_v<Key, string_key>) {
    char digits[15];
    std::fill(std::begin(digits), std::end(digits), '0');
    char text[20];
    const auto end = std::to_chars(std::begin(text), std::end(text), number).ptr;
    const auto length = static_cast<std::size_t>(end - text);
    std::copy(text, end, digits + 15 - length);
    return string_key(std::string_view(digits, 15));
  } else if constexpr (std::is_same_v<Key, std::int32_t>) {
    return static_cast<std::int32_t>(static_cast<std::int64_t>(number) + INT32_MIN);  // number < 2^32
  } else {
    return static_cast<Key>(number);
  }
}

template <class Key>
const char* key_name() {
  if constexpr (std::is_same_v<Key, std::int32_t>)
    return "sorted-array-int32";
  else if constexpr (std::is_same_v<Key, std::int64_t>)
    return "sorted-array-int64";
  else
    return "sorted-array-string15";
}

// The branch-free plain search, the one every interleaved technique runs.
template <class Key>
void add_branchless_search(lookup_bench::lookup_passes<result>& passes, const sorted_array<Key>& array,
                           std::span<const Key> keys) {
  passes.add(lookup_bench::pass_label::naive("naive-branchless"),
             [&array, keys](std::size_t begin, std::size_t end, std::span<result> out) {
               array.multi_find(keys.subspan(begin, end - begin), out, technique::naive, 1);
             });
}

// Cimple's branch variant, generated from kernels/sorted_array_find_branchy.imlp.cpp (a branch on
// each comparison, an early exit on equality), run by the dynamic scheduler: the rows
// imlp-dynamic-branchy, beside naive-branchy.
const std::string branchy_generated_name = "imlp-dynamic-branchy";

template <class Key>
void add_branchy_generated_search(lookup_bench::lookup_passes<result>& passes, const run_context& context,
                                  const sorted_array<Key>& array, std::span<const Key> keys,
                                  const std::vector<std::size_t>& groups) {
  if (!context.selected(branchy_generated_name)) return;
  constexpr prefetch_hint hint = sorted_array<Key>::default_prefetch_hint;
  using kernel = imlp_kernels::sorted_array_find_branchy<hint, Key>;
  for (std::size_t group : groups) {
    passes.add(lookup_bench::pass_label::interleaved(branchy_generated_name, group, hint),
               [&array, keys, group](std::size_t begin, std::size_t end, std::span<result> out) {
                 imlp_map<kernel>(imlp_schedule::dynamic, {array.keys().data(), array.size()},
                                  keys.subspan(begin, end - begin), out, group);
               });
  }
}

bool is_multi_find_technique(const std::string& name) {
  return std::any_of(std::begin(all_techniques), std::end(all_techniques),
                     [&name](technique t) { return to_string(t) == name; });
}

// The analytical model's T_compute stand-in (model.hpp): the same searches over the same array,
// the lookups cycling through 32 keys, whose paths stay in the caches: every step runs and none
// misses. Measured for the branch-free naive search and each interleaved technique at group 1,
// when the sweep has group 1 and the array is DRAM-resident; empty otherwise.
template <class Key>
std::vector<measurement> measure_compute(const run_context& context, const sorted_array<Key>& array,
                                         const std::vector<Key>& probes, const lookup_bench::lookup_passes<result>& main,
                                         const std::vector<std::size_t>& groups, thread_runner* runner,
                                         double dram_lines, unsigned repetitions) {
  if (dram_lines <= 0 || std::find(groups.begin(), groups.end(), 1) == groups.end()) return {};
  constexpr std::size_t hot_keys = 32;
  std::vector<Key> cycling(probes.size());
  for (std::size_t i = 0; i < cycling.size(); ++i) cycling[i] = probes[i % hot_keys];
  const std::span<const Key> keys(cycling);
  lookup_bench::lookup_passes<result> passes(cycling.size(), runner);
  add_branchless_search(passes, array, keys);
  for (const lookup_bench::pass_label& label : main.labels()) {
    // The interleaved techniques of multi_find at group 1, not the other-hint, layout, dispatch
    // or branchy-kernel ablations.
    if (label.group != 1 || label.hint != to_string(sorted_array<Key>::default_prefetch_hint)) continue;
    if (!is_multi_find_technique(label.technique)) continue;
    const technique how = parse_technique(label.technique);
    passes.add(lookup_bench::pass_label::interleaved(label.technique, 1, sorted_array<Key>::default_prefetch_hint),
               [&array, keys, how](std::size_t begin, std::size_t end, std::span<result> out) {
                 array.multi_find(keys.subspan(begin, end - begin), out, how, 1);
               });
  }
  std::vector<result> reference(cycling.size());
  array.multi_find(keys, std::span<result>(reference), technique::naive, 1);
  passes.verify(reference, result{SIZE_MAX});
  std::vector<measurement> measured = passes.measure(repetitions, context);
  // measure() names passes "technique/group/hint"; keep the technique.
  for (measurement& m : measured) m.name = m.name.substr(0, m.name.find('/'));
  return measured;
}

template <class Key>
void measure_key_type(run_context& context, std::size_t size, const std::vector<std::size_t>& groups,
                      const std::vector<unsigned>& thread_counts, std::size_t lookups, unsigned repetitions) {
  const std::size_t count = std::max<std::size_t>(size / sizeof(Key), 1);
  if constexpr (std::is_same_v<Key, std::int32_t>) {
    if (count > (std::size_t{1} << 31)) throw usage_error("--size: too large for int32 keys (at most 2^31 of them, 8 GiB)");
  }
  // The Eytzinger peer holds a second copy of the keys, and a sorted one while it is built.
  const bool eytzinger = context.selected("eytzinger-prefetch");
  context.require_memory(size * (eytzinger ? 3 : 1) + lookups * (sizeof(Key) + 16), "binary-search at this size");
  const page_size pages = context.pages_or(page_size::huge_2m);
  const std::string structure = key_name<Key>();
  context.progress("building " + structure + " of " + std::to_string(count) + " keys");
  const auto array = sorted_array<Key>::from_sorted(
      count, [](std::size_t i) { return key_of<Key>(2 * i); }, pages);
  context.note(structure + " pages", array.describe_pages());
  std::optional<eytzinger_array<Key>> layout;
  if (eytzinger) layout.emplace(array.keys(), pages);

  const key_distribution distribution = context.distribution_or({});
  std::vector<Key> probes;
  for (std::uint64_t index : draw_indices(lookups, count, distribution, context.seed())) {
    probes.push_back(key_of<Key>(2 * index));
  }
  const std::span<const Key> keys(probes);

  std::vector<result> reference(probes.size());
  array.multi_find(keys, std::span<result>(reference), technique::naive, 1);

  // Lines of a search that the last-level cache cannot hold: the array's lines beyond the
  // LLC's, in levels.
  const double array_lines = static_cast<double>(array.memory_bytes()) / cache_line_bytes;
  const double cached_lines = static_cast<double>(lookup_bench::last_level_cache_bytes()) / cache_line_bytes;
  const double dram_lines =
      lookup_bench::dram_resident(array.memory_bytes()) ? std::max(0.0, std::log2(array_lines / cached_lines)) : 0.0;

  for (unsigned threads : thread_counts) {
    const auto runner = lookup_bench::runner_for(threads);
    lookup_bench::lookup_passes<result> passes(lookups, runner.get());
    if (context.selected("naive-branchless") || context.selected("naive")) {
      add_branchless_search(passes, array, keys);
    }
    if (context.selected("naive-branchy") || context.selected("naive")) {
      passes.add(lookup_bench::pass_label::naive("naive-branchy"),
                 [&array, keys](std::size_t begin, std::size_t end, std::span<result> out) {
                   for (std::size_t i = begin; i < end; ++i) out[i - begin] = array.find_branchy(keys[i]);
                 });
    }
    lookup_bench::add_index_techniques(passes, context, array, keys, groups, /*with_naive=*/false);
    add_branchy_generated_search(passes, context, array, keys, groups);
    if (context.selected("std-lower-bound")) {
      passes.add(lookup_bench::pass_label::peer_baseline("std-lower-bound"),
                 [&array, keys](std::size_t begin, std::size_t end, std::span<result> out) {
                   const auto sorted = array.keys();
                   for (std::size_t i = begin; i < end; ++i) {
                     const auto bound = std::lower_bound(sorted.begin(), sorted.end(), keys[i]);
                     out[i - begin] = bound != sorted.end() && *bound == keys[i]
                                          ? result{static_cast<std::size_t>(bound - sorted.begin())}
                                          : result{};
                   }
                 });
    }
    if (layout) {
      passes.add(lookup_bench::pass_label::peer_baseline("eytzinger-prefetch", /*answers_differently=*/true),
                 [&layout, keys](std::size_t begin, std::size_t end, std::span<result> out) {
                   for (std::size_t i = begin; i < end; ++i) out[i - begin] = layout->find(keys[i]);
                 });
    }
    if (passes.labels().empty()) continue;
    passes.verify(reference, result{SIZE_MAX}, [&](std::size_t, std::span<const result> nodes) {
      for (std::size_t i = 0; i < nodes.size(); ++i) {
        const result position = nodes[i] ? result{layout->sorted_position(*nodes[i])} : result{};
        if (position != reference[i]) {
          throw std::logic_error("eytzinger-prefetch answered lookup " + std::to_string(i) + " differently");
        }
      }
    });
    context.progress(structure + ": measuring " + std::to_string(passes.labels().size()) + " passes");
    // The compute passes first: rows are matched to the latest measurement of their technique
    // (for --callgrind instruction counts), which must be the main one.
    const std::vector<measurement> compute = measure_compute(context, array, probes, passes, groups, runner.get(), dram_lines,
                                                             repetitions);
    const auto measured = passes.measure(repetitions, context);
    const double suspensions =
        compute.empty() ? 0.0
                        : ordered::sampled_suspensions(keys, [&array](const Key& key) {
                            return array.template lookup<interleaved>(key);
                          });
    lookup_bench::emit_rows(
        context, passes, measured,
        {.structure = structure,
         .size_bytes = array.memory_bytes(),
         .threads = threads,
         .distribution = distribution.describe(),
         .pages = array.describe_pages(),
         .hit_rate = lookup_bench::hit_rate_of(reference),
         .dram_lines_per_op = dram_lines},
        [&](result_row& row, const lookup_bench::pass_label& label) {
          row.set("keys", static_cast<std::int64_t>(count)).set("key_bytes", static_cast<std::int64_t>(sizeof(Key)));
          // The analytical model's inputs (model.hpp), where the compute passes ran.
          for (const measurement& m : compute) {
            const double ns_per_op = m.median_ns / static_cast<double>(lookups);
            if (label.technique == "naive-branchless" && m.name == "naive-branchless") {
              // Every interleaved probe lies below the cache-resident top levels, where the
              // misses are: each stalls on L2, the last-level cache or DRAM, and the model's
              // T_stall (naive - compute) holds all of those stalls, as the thesis's does.
              row.set("compute_ns_per_op", ns_per_op)
                  .set("misses_per_op", suspensions)
                  .set("suspensions_per_op", suspensions);
            } else if (label.group == 1 && m.name == label.technique) {
              row.set("compute_group1_ns_per_op", ns_per_op);
            }
          }
        });
  }
}

void run_binary_search(run_context& context) {
  const bool quick = context.quick();
  const auto sizes = context.sizes_or(quick ? std::vector<std::size_t>{std::size_t{512} << 10, std::size_t{64} << 20}
                                            : std::vector<std::size_t>{dram_resident_bytes()});
  const auto groups =
      context.groups_or(quick ? std::vector<std::size_t>{8, 16} : std::vector<std::size_t>{1, 4, 8, 12, 16, 24, 32});
  const auto thread_counts = context.threads_or({1});
  const std::size_t lookups = context.keys_or(quick ? 10'000 : 100'000);
  const unsigned repetitions = context.repetitions_or(quick ? 3 : 5);
  for (std::size_t size : sizes) {
    measure_key_type<std::int32_t>(context, size, groups, thread_counts, lookups, repetitions);
    measure_key_type<std::int64_t>(context, size, groups, thread_counts, lookups, repetitions);
    measure_key_type<string_key>(context, size, groups, thread_counts, lookups, repetitions);
  }
}

const registration binary_search{experiment{
    .name = "binary-search",
    .reproduces = "Killer Nanoseconds Fig. 6, 10; thesis Fig. 4.1, 4.5, 4.6; Cimple Fig. 1 (binary search)",
    .summary = "sorted-array search, int32 / int64 / 15-char strings: both plain searches, gp, amac, coro, fiber, "
               "the generated imlp searches (branch-free and branchy), std::lower_bound, Eytzinger with prefetch",
    .techniques = [] {
      std::vector<std::string> names = lookup_bench::index_technique_names_of<sorted_array<std::int32_t>>(
          {"naive-branchless", "naive-branchy"}, {"std-lower-bound", "eytzinger-prefetch"});
      names.push_back(branchy_generated_name);
      return names;
    }(),
    .accepted = lookup_bench::accepted_options,
    .run = run_binary_search,
}};

// ---- figure presets: the papers' binary-search figures ----

constexpr const char* int_keys = "sorted-array-int32";
constexpr const char* string_keys = "sorted-array-string15";

const std::string killer_caveat = "paper: Clang 6, Broadwell Xeon, 4-byte keys; ours: int32 keys on this machine";

std::vector<std::string> quick(std::vector<std::string> arguments) {
  arguments.insert(arguments.end(), {"--keys", "2000", "--repetitions", "2"});
  return arguments;
}

const figure_registration groups_figure{binary_search, figure{
    .name = "fig6-binary-search-groups",
    .reproduces = "Killer Nanoseconds Fig. 6 (binary search, group-size sweep, 0.5 MB and 1 GB, uniform and Zipf)",
    .summary = "search throughput against group size, 1 thread, int32 / int64 / string keys with the peers",
    .panels = {{.label = "0.5 MiB uniform",
                .arguments = {"--size", "512KiB", "--group", "1,2,4,6,8,10,12,16,20,24,30", "--dist", "uniform"},
                .quick_arguments = quick({"--size", "512KiB", "--group", "1,8", "--dist", "uniform"})},
               {.label = "0.5 MiB zipf",
                .arguments = {"--size", "512KiB", "--group", "1,2,4,6,8,10,12,16,20,24,30", "--dist", "zipf:0.99"},
                .quick_arguments = quick({"--size", "512KiB", "--group", "1,8", "--dist", "zipf:0.99"})},
               {.label = "DRAM uniform",
                .arguments = {"--size", "dram", "--group", "1,2,4,6,8,10,12,16,20,24,30", "--dist", "uniform"},
                .quick_arguments = quick({"--size", "16MiB", "--group", "1,8", "--dist", "uniform"})},
               {.label = "DRAM zipf",
                .arguments = {"--size", "dram", "--group", "1,2,4,6,8,10,12,16,20,24,30", "--dist", "zipf:0.99"},
                .quick_arguments = quick({"--size", "16MiB", "--group", "1,8", "--dist", "zipf:0.99"})}},
    .axes = {.x = "group", .y = "mops", .series = {"structure", "technique"}, .log_y = true,
             .y_label = "million searches per second"},
    .paper = {paper_claim("Killer Nanoseconds Fig. 6a (Clang, 0.5 MB uniform, 1 thread)", "naive up to 1.4x faster than GP",
                            {{"panel", "0.5 MiB uniform"}, {"structure", int_keys}, {"technique", "gp"}}, statistic::minimum,
                            1 / 1.4, 1 / 1.4, shape_rule::same_side_of(1), killer_caveat),
              paper_claim("Killer Nanoseconds Fig. 6a", "naive up to 1.4x faster than AMAC",
                            {{"panel", "0.5 MiB uniform"}, {"structure", int_keys}, {"technique", "amac"}}, statistic::minimum,
                            1 / 1.4, 1 / 1.4, shape_rule::same_side_of(1), killer_caveat),
              paper_claim("Killer Nanoseconds Fig. 6a", "naive up to 1.8x faster than Coro",
                            {{"panel", "0.5 MiB uniform"}, {"structure", int_keys}, {"technique", "coro"}}, statistic::minimum,
                            1 / 1.8, 1 / 1.8, shape_rule::same_side_of(1), killer_caveat),
              paper_claim("Killer Nanoseconds Fig. 6c (1 GB uniform)", "optimal group size around 8-12 (GP)",
                            {{"panel", "DRAM uniform"}, {"structure", int_keys}, {"technique", "gp"}}, statistic::at_best, 8, 12,
                            shape_rule::within_factor(2), killer_caveat, "group"),
              paper_claim("Killer Nanoseconds Fig. 6c (1 GB uniform)", "optimal group size around 8-12 (AMAC)",
                            {{"panel", "DRAM uniform"}, {"structure", int_keys}, {"technique", "amac"}}, statistic::at_best, 8,
                            12, shape_rule::within_factor(2), killer_caveat, "group"),
              paper_claim("Killer Nanoseconds Fig. 6c (1 GB uniform)", "optimal group size around 8-12 (Coro)",
                            {{"panel", "DRAM uniform"}, {"structure", int_keys}, {"technique", "coro"}}, statistic::at_best, 8,
                            12, shape_rule::within_factor(2), killer_caveat, "group"),
              paper_claim("Killer Nanoseconds Table 3 (binary search, Clang)", "maximum improvement over naive: GP 2.1x",
                            {{"panel", "DRAM uniform"}, {"structure", int_keys}, {"technique", "gp"}}, statistic::maximum, 2.1,
                            2.1, shape_rule::same_side_of(1), killer_caveat),
              paper_claim("Killer Nanoseconds Table 3 (binary search, Clang)", "maximum improvement over naive: AMAC 2.3x",
                            {{"panel", "DRAM uniform"}, {"structure", int_keys}, {"technique", "amac"}}, statistic::maximum,
                            2.3, 2.3, shape_rule::same_side_of(1), killer_caveat),
              paper_claim("Killer Nanoseconds Table 3 (binary search, Clang)", "maximum improvement over naive: Coro 2.3x",
                            {{"panel", "DRAM uniform"}, {"structure", int_keys}, {"technique", "coro"}}, statistic::maximum,
                            2.3, 2.3, shape_rule::same_side_of(1), killer_caveat),
              paper_claim("Killer Nanoseconds Fig. 6d (Clang, 1 GB Zipf)", "naive within 25% of Coro",
                            {{"panel", "DRAM zipf"}, {"structure", int_keys}, {"technique", "coro"}}, statistic::maximum,
                            1.25, 1.25, shape_rule::within_factor(1.5), killer_caveat)},
}};

// Fig. 10's sizes: 0.5 MiB to 2 GiB in powers of two.
const std::string fig10_sizes = "512KiB,1MiB,2MiB,4MiB,8MiB,16MiB,32MiB,64MiB,128MiB,256MiB,512MiB,1GiB,2GiB";
const std::string threads_caveat = "paper: 28 threads on 14 cores, G = 20; ours: 2 threads (every core here), G = 20";

paper_number at_half_mebibyte(const std::string& panel, const std::string& technique, double times, const std::string& source) {
  return paper_claim(source, "at 0.5 MB naive " + format_number(times) + "x faster than " + technique,
                       {{"panel", panel}, {"structure", int_keys}, {"technique", technique}, {"keys", "131072"}},
                       statistic::minimum, 1 / times, 1 / times, shape_rule::same_side_of(1), threads_caveat);
}

paper_number after_crossover(const std::string& technique, double times) {
  return paper_claim("Killer Nanoseconds Fig. 10a (Clang, uniform)",
                       "after the crossover naive on average " + format_number(times) + "x slower than " + technique,
                       {{"panel", "uniform"}, {"structure", int_keys}, {"technique", technique}, {"residency", "dram"}},
                       statistic::range, times, times, shape_rule::same_side_of(1),
                       threads_caveat + "; ours: the range over DRAM-resident sizes (>= 4x the LLC), not an average");
}

const figure_registration sizes_figure{binary_search, figure{
    .name = "fig10-binary-search-sizes",
    .reproduces = "Killer Nanoseconds Fig. 10 (binary search, array size 0.5 MB to 2 GB, G = 20, every core)",
    .summary = "total search throughput against array size, uniform and Zipf",
    .panels = {{.label = "uniform",
                .arguments = {"--size", fig10_sizes, "--group", "20", "--threads", "2", "--dist", "uniform"},
                .quick_arguments = quick({"--size", "512KiB,8MiB", "--group", "20", "--dist", "uniform"})},
               {.label = "zipf",
                .arguments = {"--size", fig10_sizes, "--group", "20", "--threads", "2", "--dist", "zipf:0.99"},
                .quick_arguments = quick({"--size", "512KiB,8MiB", "--group", "20", "--dist", "zipf:0.99"})}},
    .axes = {.x = "size_bytes", .y = "mops", .series = {"structure", "technique"}, .log_x = true, .log_y = true,
             .x_label = "array bytes", .y_label = "million searches per second (all threads)"},
    .paper = {at_half_mebibyte("uniform", "gp", 1.4, "Killer Nanoseconds Fig. 10a (Clang, uniform)"),
              at_half_mebibyte("uniform", "amac", 1.7, "Killer Nanoseconds Fig. 10a (Clang, uniform)"),
              at_half_mebibyte("uniform", "coro", 1.9, "Killer Nanoseconds Fig. 10a (Clang, uniform)"),
              after_crossover("gp", 2.2), after_crossover("amac", 2.1), after_crossover("coro", 1.9),
              at_half_mebibyte("zipf", "gp", 2.2, "Killer Nanoseconds Fig. 10b (Clang, Zipf)"),
              at_half_mebibyte("zipf", "amac", 2.6, "Killer Nanoseconds Fig. 10b (Clang, Zipf)"),
              at_half_mebibyte("zipf", "coro", 3.6, "Killer Nanoseconds Fig. 10b (Clang, Zipf)")},
}};

// The thesis's group sizes (Fig. 4.3: GP 10, AMAC and Coro 6, the best of Fig. 4.6).
const std::string thesis_sizes = "1MiB,2MiB,4MiB,8MiB,16MiB,32MiB,64MiB,128MiB,256MiB,512MiB,1GiB,2GiB";
const std::string thesis_caveat =
    "thesis: Haswell (25 MB LLC), 10K lookups x 100 runs, range over sizes above the LLC; ours: the range over "
    "DRAM-resident sizes (>= 4x the LLC), GP at G = 10, AMAC and Coro at G = 6";

paper_number above_llc(const std::string& structure, const std::string& technique, std::size_t group, double low,
                       double high, const std::string& keys) {
  return paper_claim("thesis Fig. 4.1" + std::string(structure == int_keys ? "a" : "b") + " (§4.2.1)",
                       technique + " " + format_number(low) + "-" + format_number(high) + "x over the baseline above the LLC (" +
                           keys + ")",
                       {{"structure", structure}, {"technique", technique}, {"group", std::to_string(group)}, {"residency", "dram"}},
                       statistic::range, low, high, shape_rule::same_side_of(1), thesis_caveat);
}

const figure_registration thesis_sizes_figure{binary_search, figure{
    .name = "thesis-fig4-1-binary-search-sizes",
    .reproduces = "interleaving thesis Fig. 4.1 (int and string binary search, 1 MB to 2 GB)",
    .summary = "time per search against array size, std::lower_bound, both baselines, GP, AMAC, Coro; int and string keys",
    .panels = {{.label = "uniform",
                .arguments = {"--size", thesis_sizes, "--group", "6,10"},
                .quick_arguments = quick({"--size", "1MiB,16MiB", "--group", "6,10"})}},
    .axes = {.x = "size_bytes", .y = "ns_per_op", .series = {"structure", "technique", "group"}, .log_x = true, .log_y = true,
             .x_label = "array bytes", .y_label = "ns per search"},
    .paper = {above_llc(int_keys, "gp", 10, 2.7, 3.7, "int"), above_llc(int_keys, "coro", 6, 2.0, 2.4, "int"),
              above_llc(int_keys, "amac", 6, 1.8, 2.3, "int"), above_llc(string_keys, "gp", 10, 1.8, 2.2, "string"),
              above_llc(string_keys, "coro", 6, 1.4, 2.1, "string"), above_llc(string_keys, "amac", 6, 1.2, 1.9, "string")},
}};

// 2 MiB pages against 4 KiB pages: ns per search with 4 KiB pages over ns with 2 MiB pages,
// at 2 GiB of int32 keys.
paper_number huge_pages_gain(const std::string& technique, std::size_t group) {
  const row_filter at_two_gibibytes = {{"structure", int_keys}, {"technique", technique}, {"group", std::to_string(group)},
                                       {"keys", "536870912"}};
  row_filter small_pages = at_two_gibibytes;
  small_pages.emplace_back("panel", "4 KiB pages");
  row_filter huge_pages = at_two_gibibytes;
  huge_pages.emplace_back("panel", "2 MiB pages");
  return paper_ratio("thesis Fig. 4.5 (§4.2.2)", "2 MB pages strictly faster than 4 kB pages, up to 1.9x (" + technique + ")",
                     small_pages, huge_pages, "ns_per_op", statistic::maximum, 1.9, shape_rule::same_side_of(1),
                     "thesis: the largest gain over 1 MB-2 GB int arrays; ours: at 2 GiB of int32 keys (the "
                     "page-obtained field says whether 4 KiB pages were really 4 KiB)");
}

const std::string pages_sizes = "1MiB,4MiB,16MiB,64MiB,256MiB,1GiB,2GiB";

const figure_registration pages_figure{binary_search, figure{
    .name = "thesis-fig4-5-pages",
    .reproduces = "interleaving thesis Fig. 4.5 (4 KiB vs 2 MiB pages, binary search over sizes)",
    .summary = "time per search against array size with 4 KiB and with 2 MiB pages",
    .panels = {{.label = "4 KiB pages",
                .arguments = {"--size", pages_sizes, "--group", "6,10", "--pages", "4k"},
                .quick_arguments = quick({"--size", "1MiB,16MiB", "--group", "6", "--pages", "4k"})},
               {.label = "2 MiB pages",
                .arguments = {"--size", pages_sizes, "--group", "6,10", "--pages", "2m"},
                .quick_arguments = quick({"--size", "1MiB,16MiB", "--group", "6", "--pages", "2m"})}},
    .axes = {.x = "size_bytes", .y = "ns_per_op", .series = {"panel", "technique"}, .log_x = true, .log_y = true,
             .x_label = "array bytes", .y_label = "ns per search"},
    .paper = {huge_pages_gain("naive-branchless", 1), huge_pages_gain("gp", 10), huge_pages_gain("coro", 6)},
}};

// The thesis's own model estimates (§4.2.3) beside our model's, and its measured optimum.
paper_number thesis_model(const std::string& technique, const std::string& field, double paper, const std::string& claim) {
  paper_number number = paper_claim("thesis §4.2.3 (model fitted to a VTune profile)", claim,
                                    {{"structure", int_keys}, {"technique", technique}}, statistic::maximum, paper, paper,
                                    shape_rule::within_factor(2),
                                    "thesis: T_stall and T_compute from counters, T_switch from retiring cycles; ours: "
                                    "from times (cache-resident searches of the same array stand in for T_compute)",
                                    field);
  number.of_model = true;
  return number;
}

const figure_registration model_figure{binary_search, figure{
    .name = "thesis-fig4-6-binary-search-groups",
    .reproduces = "interleaving thesis Fig. 4.6 (group sweep at 256 MB beside the analytical model of §3.1)",
    .summary = "speedup against group size 1-12 on a 256 MiB array, with the model's predicted minimum group and speedup",
    .panels = {{.label = "256 MiB",
                .arguments = {"--size", "256MiB", "--group", "1,2,3,4,5,6,7,8,9,10,11,12"},
                .quick_arguments = quick({"--size", "128MiB", "--group", "1,6"})}},
    .axes = {.x = "group", .y = "speedup_vs_naive", .series = {"structure", "technique"},
             .y_label = "speedup over the faster plain search"},
    .paper = {paper_claim("thesis Fig. 4.6 (§4.2.3)", "best group size: GP 10 (capped by the 10 line-fill buffers)",
                            {{"structure", int_keys}, {"technique", "gp"}}, statistic::at_best, 10, 10,
                            shape_rule::within_factor(2), "thesis: Haswell with 10 line-fill buffers", "group"),
              paper_claim("thesis Fig. 4.6 (§4.2.3)", "best group size: AMAC 5-6",
                            {{"structure", int_keys}, {"technique", "amac"}}, statistic::at_best, 5, 6,
                            shape_rule::within_factor(2), "thesis: Haswell with 10 line-fill buffers", "group"),
              paper_claim("thesis Fig. 4.6 (§4.2.3)", "best group size: Coro 5-6",
                            {{"structure", int_keys}, {"technique", "coro"}}, statistic::at_best, 5, 6,
                            shape_rule::within_factor(2), "thesis: Haswell with 10 line-fill buffers", "group"),
              thesis_model("gp", "predicted_group", 12, "model: G_GP >= 12"),
              thesis_model("amac", "predicted_group", 6, "model: G_AMAC >= 6"),
              thesis_model("coro", "predicted_group", 6, "model: G_Coro >= 6"),
              thesis_model("gp", "predicted_speedup_max", 5.7, "model: expected maximum speedup of GP 5.7x"),
              thesis_model("amac", "predicted_speedup_max", 3.7, "model: expected maximum speedup of AMAC 3.7x"),
              thesis_model("coro", "predicted_speedup_max", 3.3, "model: expected maximum speedup of Coro 3.3x")},
    .model = {.techniques = {"gp", "amac", "coro"}, .baseline = "naive-branchless"},
}};

const headline_registration binary_search_headline{groups_figure, headline_entry{
    .name = "binary search",
    .panels = {{.label = "DRAM uniform", .arguments = {"--size", "dram", "--group", "8,16"},
                .quick_arguments = quick({"--size", "16MiB", "--group", "8"})},
               {.label = "0.5 MiB uniform", .arguments = {"--size", "512KiB", "--group", "4,8"},
                .quick_arguments = quick({"--size", "512KiB", "--group", "8"})}},
    .budget_seconds = 30,
    .summarize = compare_with_naive_and_peers({.baselines = {"naive-branchless", "naive-branchy"},
                                               .peers = {"std-lower-bound", "eytzinger-prefetch"},
                                               .split_by = {"structure"}}),
}};

}  // namespace
}  // namespace braid::bench
