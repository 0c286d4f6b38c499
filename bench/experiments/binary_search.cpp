// binary-search: searching a sorted array with every technique in one run, for int32, int64
// and 15-character string keys — the binary-search experiments of "Killer Nanoseconds"
// (Fig. 6, Fig. 10), the interleaving thesis (Fig. 4.1, 4.5, 4.6) and Cimple (Fig. 1).
//
// Data: --size bytes of keys per key type (a 1 GiB int32 array holds 2^28 keys); key i is
// 2i (strings: 2i in 15 zero-padded digits, so string order is numeric order). Lookups are
// keys of the array drawn with the chosen distribution (the papers' random subset: every
// lookup hits).
// Techniques: the two plain searches (naive-branchless, the branch-free lower bound every
// interleaved technique runs, and naive-branchy, with an early exit; speedups are against
// the faster of the two, named in `naive_reference`), gp, amac, coro, fiber at each group,
// and two peers: std::lower_bound, and the Eytzinger layout with prefetching (a second copy
// of the keys in breadth-first order; an interleaving figure that loses to it shows here).
// Rows carry `dram_lines_per_op`: the lines of a search below the levels the last-level
// cache holds, log2(lines of the array / lines of the LLC), the estimate behind
// `roofline_fraction`.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "binary_search_eytzinger.hpp"
#include "braid/index/sorted_array.hpp"
#include "lookup_bench.hpp"
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

template <class Key>
void measure_key_type(run_context& context, std::size_t size, const std::vector<std::size_t>& groups,
                      const std::vector<unsigned>& thread_counts, std::size_t lookups, unsigned repetitions) {
  const std::size_t count = std::max<std::size_t>(size / sizeof(Key), 1);
  if constexpr (std::is_same_v<Key, std::int32_t>) {
    if (2 * count > static_cast<std::size_t>(INT32_MAX)) throw usage_error("--size: too large for int32 keys 2i");
  }
  const bool eytzinger = context.selected("eytzinger-prefetch");
  context.require_memory(size * (eytzinger ? 2 : 1) + lookups * (sizeof(Key) + 16), "binary-search at this size");
  const page_size pages = context.pages_or(page_size::huge_2m);
  const std::string structure = key_name<Key>();
  context.progress("building " + structure + " of " + std::to_string(count) + " keys");
  const auto array = sorted_array<Key>::from_sorted(
      count, [](std::size_t i) { return key_of<Key>(2 * i); }, pages);
  context.note(structure + " pages", array.describe_pages());
  std::optional<eytzinger_layout<Key>> layout;
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
      passes.add(lookup_bench::pass_label::naive("naive-branchless"),
                 [&array, keys](std::size_t begin, std::size_t end, std::span<result> out) {
                   array.multi_find(keys.subspan(begin, end - begin), out, technique::naive, 1);
                 });
    }
    if (context.selected("naive-branchy") || context.selected("naive")) {
      passes.add(lookup_bench::pass_label::naive("naive-branchy"),
                 [&array, keys](std::size_t begin, std::size_t end, std::span<result> out) {
                   for (std::size_t i = begin; i < end; ++i) out[i - begin] = array.find_branchy(keys[i]);
                 });
    }
    lookup_bench::add_index_techniques(passes, context, array, keys, groups, /*with_naive=*/false);
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
    const auto measured = passes.measure(repetitions, context);
    lookup_bench::emit_rows(
        context, passes, measured,
        {.structure = structure,
         .size_bytes = array.memory_bytes(),
         .threads = threads,
         .distribution = distribution.describe(),
         .pages = array.describe_pages(),
         .hit_rate = lookup_bench::hit_rate_of(reference),
         .dram_lines_per_op = dram_lines},
        [&](result_row& row, const lookup_bench::pass_label&) {
          row.set("keys", static_cast<std::int64_t>(count)).set("key_bytes", static_cast<std::int64_t>(sizeof(Key)));
        });
  }
}

void run_binary_search(run_context& context) {
  const bool quick = context.quick();
  const auto sizes = context.sizes_or(quick ? std::vector<std::size_t>{std::size_t{512} << 10, std::size_t{64} << 20}
                                            : std::vector<std::size_t>{std::size_t{1} << 30});
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

std::vector<std::string> binary_search_techniques() {
  std::vector<std::string> names = {"naive", "naive-branchless", "naive-branchy"};
  for (const std::string& name :
       lookup_bench::index_technique_names(sorted_array<std::int32_t>::default_prefetch_hint)) {
    if (name != "naive") names.push_back(name);
  }
  names.emplace_back("std-lower-bound");
  names.emplace_back("eytzinger-prefetch");
  return names;
}

const registration binary_search{experiment{
    .name = "binary-search",
    .reproduces = "Killer Nanoseconds Fig. 6, 10; thesis Fig. 4.1, 4.5, 4.6; Cimple Fig. 1 (binary search)",
    .summary = "sorted-array search, int32 / int64 / 15-char strings: both plain searches, gp, amac, coro, fiber, "
               "std::lower_bound, Eytzinger with prefetch",
    .techniques = binary_search_techniques(),
    .accepted = accepts_size | accepts_keys | accepts_group | accepts_threads | accepts_technique | accepts_dist |
                accepts_pages,
    .run = run_binary_search,
}};

}  // namespace
}  // namespace braid::bench
