// masstree-ycsb: the Masstree-style index under YCSB-B (95 % reads, 5 % updates, scrambled
// Zipfian 0.99) and the same mix uniform, 8-byte keys and values ("Killer Nanoseconds"
// §4.1, Fig. 11-12; CoroBase's nested vs flattened operations, §1.3/§5.3).
//
// Techniques, every one running the whole stream (reads and updates) in one pass:
//   naive    find() and put() one after another: Masstree's own get, which prefetches each
//            node whole and waits for it (the paper's "unmodified Masstree");
//   coro_nested  lookup_nested / put_nested: the helper functions as nested task<>s, a
//            suspension after every node prefetch (the paper's mechanical conversion), interleaved;
//   coro     lookup / put_flat: the whole descent in one coroutine frame (CoroBase's flattened
//            operation), interleaved.
// (Before the one technique vocabulary these were named `nested` and `flat`.)
// Every write stores a value derived from its key (index_ycsb.hpp), so every technique's pass
// checksum must equal the one computed from the stream: each read returned the value stored
// for its key, with updates running between the reads and on the other thread.
//
// Options: --keys is the record count (default 20 M), --threads the worker counts (1,2),
// --group the sweep, --dist one distribution (default: Zipfian and uniform), --pages the
// index's pages. Rows carry `lines_per_op` (node prefetches per get x 4 lines, cache hits of
// the upper levels included), `dram_lines_per_op` (the lines of the levels larger than the
// last-level cache, the roofline's numerator) and `frame_bytes_nested` / `frame_bytes_flat`
// (frame-pool bytes a get in flight holds: the chain of task frames, or the one flat frame).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "braid/core/all.hpp"
#include "braid/index/masstree.hpp"
#include "figures.hpp"
#include "headline.hpp"
#include "index_ycsb.hpp"
#include "ordered_experiment.hpp"
#include "threads.hpp"

namespace braid::bench {
namespace {

using namespace index_ycsb;
using tree_type = masstree<std::uint64_t>;

// Keys as Masstree sees them: 8 bytes, big-endian, so byte order is key order.
std::uint64_t big_endian(std::uint64_t key) noexcept { return __builtin_bswap64(key); }
std::string_view key_view(const std::uint64_t& big_endian_key) noexcept {
  return {reinterpret_cast<const char*>(&big_endian_key), sizeof big_endian_key};
}

// Bytes per record of a tree filled by random inserts (measured: 35.4), a little under so that
// --size is a lower bound, and with headroom for the memory check.
constexpr record_footprint footprint{.typical = 33, .most = 40};
// Children per node after random inserts: 15-way nodes about 70 % full.
constexpr double average_fanout = 10;

class masstree_passes {
 public:
  masstree_passes(tree_type& tree, std::span<const std::uint64_t> operations)
      : tree_(tree), operations_(operations), keys_(operations.size()) {
    for (std::size_t i = 0; i < operations.size(); ++i) keys_[i] = big_endian(key_of(operations[i]));
  }

  std::uint64_t naive(std::size_t begin, std::size_t end) {
    std::uint64_t sum = 0;
    for (std::size_t i = begin; i < end; ++i) {
      if (is_update(operations_[i])) {
        tree_.put(key_view(keys_[i]), value_of(key_of(operations_[i])));
        sum += update_share;
      } else {
        sum += read_share(tree_.find(key_view(keys_[i])));
      }
    }
    return sum;
  }

  template <bool Nested>
  std::uint64_t interleaved_pass(std::size_t begin, std::size_t end, std::size_t group) {
    std::uint64_t sum = 0;
    interleaved_scheduler{group}.run(
        end - begin,
        [&](std::size_t index) {
          const std::size_t i = begin + index;
          const std::string_view key = key_view(keys_[i]);
          if constexpr (Nested) {
            return is_update(operations_[i]) ? tree_.put_nested<interleaved>(key, value_of(key_of(operations_[i])))
                                             : std::as_const(tree_).lookup_nested<interleaved>(key);
          } else {
            return is_update(operations_[i]) ? tree_.put_flat<interleaved>(key, value_of(key_of(operations_[i])))
                                             : std::as_const(tree_).lookup<interleaved>(key);
          }
        },
        [&](std::size_t index, std::optional<std::uint64_t> result) {
          sum += share_of(operations_[begin + index], result);
        });
    return sum;
  }

  // Node prefetches per get (reads of the stream's first `sample` operations).
  double suspensions_per_get(std::size_t sample) const {
    const std::vector<std::uint64_t> reads = sampled_reads(operations_, sample);
    return ordered::suspensions_per_operation(
        std::span<const std::uint64_t>(reads), [this](std::uint64_t i) { return std::as_const(tree_).lookup<interleaved>(key_view(keys_[i])); });
  }

  template <bool Nested>
  std::size_t frame_bytes() const {
    const std::string_view key = key_view(keys_.front());
    return ordered::pool_bytes_per_operation([&] {
      if constexpr (Nested) {
        return std::as_const(tree_).lookup_nested<interleaved>(key);
      } else {
        return std::as_const(tree_).lookup<interleaved>(key);
      }
    });
  }

 private:
  tree_type& tree_;
  std::span<const std::uint64_t> operations_;
  std::vector<std::uint64_t> keys_;  // big-endian, the storage the gets' key views point into
};

void run_masstree_ycsb(run_context& context) {
  const run_settings settings =
      settings_of(context, {4, 8, 16, 32, 48}, {8, 32}, footprint, "the Masstree index and its workload");
  for (const key_distribution& distribution : distributions_of(context)) {
    const workload stream = generate_workload(context, settings, distribution);
    tree_type tree(settings.pages);
    load(context, settings.most_threads, stream.records, [&](std::uint64_t key) {
      const std::uint64_t bytes = big_endian(key);
      tree.put(key_view(bytes), value_of(key));
    });
    masstree_passes passes(tree, stream.operations);

    run_facts facts = facts_of("masstree", settings, distribution, tree.memory_bytes());
    const double node_visits = passes.suspensions_per_get(20'000);
    facts.lines_per_op = node_visits * (detail::masstree::prefetched_bytes / 64);
    facts.dram_lines_per_op = facts.lines_per_op * dram_share_of_lines(facts.size_bytes, average_fanout,
                                                                       static_cast<std::size_t>(node_visits + 0.5));
    facts.extra = {{"updates", static_cast<std::int64_t>(stream.updates)},
                   {"frame_bytes_nested", static_cast<std::int64_t>(passes.frame_bytes<true>())},
                   {"frame_bytes_flat", static_cast<std::int64_t>(passes.frame_bytes<false>())}};
    measure_thread_counts(
        context, settings, facts, {"coro_nested", "coro"},
        [&passes](const std::string& technique, std::size_t group) -> chunk_function {
          if (technique == "naive") return [&passes](std::size_t b, std::size_t e) { return passes.naive(b, e); };
          if (technique == "coro_nested") {
            return [&passes, group](std::size_t b, std::size_t e) { return passes.interleaved_pass<true>(b, e, group); };
          }
          return [&passes, group](std::size_t b, std::size_t e) { return passes.interleaved_pass<false>(b, e, group); };
        },
        expected_checksum(stream.operations), "coro");
    context.note("masstree " + distribution.describe(),
                 std::to_string(settings.records) + " records, " + std::to_string(tree.memory_bytes() >> 20) + " MiB, " +
                     std::to_string(node_visits) + " node prefetches per get");
  }
}

const registration masstree_ycsb{experiment{
    .name = "masstree-ycsb",
    .reproduces = "Killer Nanoseconds Fig. 11-12 (Masstree, YCSB-B); CoroBase nested vs flattened",
    .summary = "Masstree-style index, YCSB-B and uniform 95/5: naive, nested task<> get, flattened coroutine get",
    .techniques = {"naive", "coro_nested", "coro"},
    .accepted = accepted_options,
    .run = run_masstree_ycsb,
}};

const figure_registration masstree_fig11{masstree_ycsb, figure{
    .name = "fig11-masstree-groups",
    .reproduces = "Killer Nanoseconds Fig. 11a-b (Masstree, YCSB-B, group-size sweep, 1 and 2 threads)",
    .summary = "Masstree YCSB-B: throughput against the group size, nested and flat coroutines vs unmodified",
    .panels = {figure_panel("zipf", "zipf:0.99", "1,4,8,16,32,48", "1,2", "8,32"),
               figure_panel("uniform", "uniform", "1,4,8,16,32,48", "1,2", "8,32")},
    .axes = {.x = "group", .y = "mops", .series = {"technique", "threads"}},
    .paper = {paper_claim("Killer Nanoseconds Fig. 11a, Table 3 (Clang, 1 thread, 250M records)",
                          "Coro 3.2x the performance of an unmodified Masstree (group 30 to 50)",
                          {{"panel", "zipf"}, {"threads", "1"}, {"technique", "coro_nested"}}, statistic::maximum, 3.0,
                          3.2, shape_rule::same_side_of(1), "250M records in the paper, 20M here"),
              paper_claim("Killer Nanoseconds Fig. 11b (Clang, 28 threads on one socket)",
                          "improves by 1.7x to 1.8x, from 12 to 200 coroutines per thread",
                          {{"panel", "zipf"}, {"threads", "2"}, {"technique", "coro_nested"}}, statistic::maximum, 1.7,
                          1.8, shape_rule::same_side_of(1), "28 hyper-threads in the paper, 2 cores here"),
              paper_claim("CoroBase §5.3 (flattened vs fully nested)", "flattened coroutines faster than nested ones",
                          {{"panel", "zipf"}, {"threads", "1"}, {"technique", "coro_nested"}}, statistic::maximum,
                          1 / 1.17, 1 / 1.17, shape_rule::same_side_of(1),
                          "CoroBase measured 5-level nesting in an engine; Masstree's get nests 3 task levels",
                          "speedup_vs_coro")},
}};

const char* const vtune_figure = "Killer Nanoseconds Fig. 12 (VTune, CPU time per operation)";

const figure_registration masstree_fig12{masstree_ycsb, figure{
    .name = "fig12-masstree-time-per-op",
    .reproduces = "Killer Nanoseconds Fig. 12 (Masstree time per operation: unmodified vs 30 vs 200 coroutines)",
    .summary = "Masstree YCSB-B: time per operation at group 1 (unmodified), 30 and 200",
    .panels = {figure_panel("zipf", "zipf:0.99", "30,200", "1", "30,200")},
    .axes = {.x = "group", .y = "cycles_per_op", .series = {"technique"}, .log_x = true},
    .paper = {paper_ratio(vtune_figure, "unmodified -> 30 coroutines: CPU time per operation reduced by 27%",
                          {{"technique", "coro_nested"}, {"group", "30"}}, {{"technique", "naive"}}, "ns_per_op",
                          statistic::minimum, 0.73, shape_rule::same_side_of(1),
                          "the paper's time is VTune CPU time on 28 threads; ours wall time per operation, 1 thread"),
              paper_ratio(vtune_figure, "30 -> 200 coroutines: an additional 19%", {{"technique", "coro_nested"}, {"group", "200"}},
                          {{"technique", "coro_nested"}, {"group", "30"}}, "ns_per_op", statistic::minimum, 0.81, {},
                          "28 threads in the paper; with one thread 200 gets in flight exceed the core's line fill buffers")},
}};

// 10 M records instead of the figure's 20 M and two repetitions: loading the index and its
// 2 M-operation passes fit the budget.
const headline_registration masstree_headline{masstree_fig11,
                                               headline_of("masstree (YCSB-B)", "zipf", "zipf:0.99", "16,32", "16")};

}  // namespace
}  // namespace braid::bench
