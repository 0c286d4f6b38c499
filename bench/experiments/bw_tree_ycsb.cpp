// bw-tree-ycsb: the Bw-tree under 95 % reads / 5 % updates, uniform (the paper's workload) and
// YCSB-B's scrambled Zipfian 0.99, 8-byte keys and values ("Killer Nanoseconds" §4.2, Fig. 13).
//
// Techniques, every one running the whole stream (reads and updates) in one pass:
//   naive  find() and upsert() (the blind write) one after another;
//   coro   lookup<interleaved>: the whole get in one coroutine (the paper's "approach 1"),
//          interleaved by braid's scheduler; an update runs plainly when its slot is launched;
//   gp     group prefetching over the hand-written state machine;
//   amac   AMAC over the same state machine (a ring, a finished slot refilled at once).
// gp and amac apply an update, plainly, when the driver reaches it in the stream (bw_tree's
// Batch). Every write stores a value derived from its key (index_ycsb.hpp), so every pass's
// checksum must equal the one computed from the stream.
//
// Options: --keys is the record count (default 20 M; the paper prefilled 25 M), --threads the
// worker counts (1,2), --group the sweep, --dist one distribution (default: Zipfian and
// uniform), --pages the index's pages. Rows carry `lines_per_op`: the lines a get fetches one
// by one (the coroutine's suspensions: mapping slots, records, binary-search probes, values),
// `dram_lines_per_op` (those of the levels larger than the last-level cache, the roofline's
// numerator) and `speedup_vs_amac`.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "braid/core/all.hpp"
#include "braid/index/bw_tree.hpp"
#include "figures.hpp"
#include "headline.hpp"
#include "index_ycsb.hpp"
#include "ordered_experiment.hpp"
#include "threads.hpp"

namespace braid::bench {
namespace {

using namespace index_ycsb;
using tree_type = bw_tree<std::uint64_t, std::uint64_t>;

// Bytes per record of a tree filled by random upserts (measured: 23.6), a little under so that
// --size is a lower bound, and with headroom for the memory check.
constexpr record_footprint footprint{.typical = 22, .most = 48};
// Children per inner page after random inserts: 64-way pages about 70 % full.
constexpr double average_fanout = 45;

// An update as an operation of the coroutine pass: applied at launch, finished at once.
coro<std::optional<std::uint64_t>> upsert_at_launch(tree_type& tree, std::uint64_t key) {
  tree.upsert(key, value_of(key));
  co_return std::nullopt;
}

// The stream as bw_tree's Batch for its hand-written techniques.
struct stream_batch {
  tree_type& tree;
  std::span<const std::uint64_t> operations;
  std::uint64_t sum = 0;

  [[nodiscard]] std::size_t size() const noexcept { return operations.size(); }
  [[nodiscard]] bool is_get(std::size_t i) const noexcept { return !is_update(operations[i]); }
  [[nodiscard]] std::uint64_t key(std::size_t i) const noexcept { return key_of(operations[i]); }
  void apply(std::size_t i) {
    tree.upsert(key_of(operations[i]), value_of(key_of(operations[i])));
    sum += update_share;
  }
  void deliver(std::size_t, std::optional<std::uint64_t> result) noexcept { sum += read_share(result); }
};

class bw_tree_passes {
 public:
  bw_tree_passes(tree_type& tree, std::span<const std::uint64_t> operations) : tree_(tree), operations_(operations) {}

  std::uint64_t naive(std::size_t begin, std::size_t end) {
    std::uint64_t sum = 0;
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint64_t key = key_of(operations_[i]);
      if (is_update(operations_[i])) {
        tree_.upsert(key, value_of(key));
        sum += update_share;
      } else {
        sum += read_share(tree_.find(key));
      }
    }
    return sum;
  }

  std::uint64_t coroutine(std::size_t begin, std::size_t end, std::size_t group) {
    std::uint64_t sum = 0;
    interleaved_scheduler{group}.run(
        end - begin,
        [&](std::size_t index) {
          const std::uint64_t operation = operations_[begin + index];
          return is_update(operation) ? upsert_at_launch(tree_, key_of(operation))
                                      : std::as_const(tree_).lookup<interleaved>(key_of(operation));
        },
        [&](std::size_t index, std::optional<std::uint64_t> result) {
          sum += share_of(operations_[begin + index], result);
        });
    return sum;
  }

  std::uint64_t group_prefetching(std::size_t begin, std::size_t end, std::size_t group) {
    stream_batch batch{tree_, operations_.subspan(begin, end - begin)};
    tree_.find_group_prefetching(batch, group);
    return batch.sum;
  }

  std::uint64_t amac(std::size_t begin, std::size_t end, std::size_t group) {
    stream_batch batch{tree_, operations_.subspan(begin, end - begin)};
    tree_.find_amac(batch, group);
    return batch.sum;
  }

  // Lines a get fetches one by one (reads of the stream's first `sample` operations).
  double lines_per_get(std::size_t sample) const {
    const std::vector<std::uint64_t> reads = sampled_reads(operations_, sample);
    return ordered::suspensions_per_operation(std::span<const std::uint64_t>(reads), [this](std::uint64_t i) {
      return std::as_const(tree_).lookup<interleaved>(key_of(operations_[i]));
    });
  }

  std::size_t frame_bytes() const {
    const std::uint64_t key = key_of(operations_.front());
    return ordered::pool_bytes_per_operation([&] { return std::as_const(tree_).lookup<interleaved>(key); });
  }

 private:
  tree_type& tree_;
  std::span<const std::uint64_t> operations_;
};

void run_bw_tree_ycsb(run_context& context) {
  const run_settings settings =
      settings_of(context, {4, 8, 12, 16, 24}, {4, 12}, footprint, "the Bw-tree and its workload");
  for (const key_distribution& distribution : distributions_of(context)) {
    const workload stream = generate_workload(context, settings, distribution);
    tree_type tree(settings.pages);
    load(context, settings.most_threads, stream.records, [&](std::uint64_t key) { tree.upsert(key, value_of(key)); });
    bw_tree_passes passes(tree, stream.operations);

    run_facts facts = facts_of("bw-tree", settings, distribution, tree.memory_bytes());
    facts.lines_per_op = passes.lines_per_get(20'000);
    facts.dram_lines_per_op = facts.lines_per_op * dram_share_of_lines(facts.size_bytes, average_fanout, tree.height());
    facts.extra = {{"updates", static_cast<std::int64_t>(stream.updates)},
                   {"height", static_cast<std::int64_t>(tree.height())},
                   {"frame_bytes", static_cast<std::int64_t>(passes.frame_bytes())}};
    measure_thread_counts(
        context, settings, facts, {"coro", "gp", "amac"},
        [&passes](const std::string& technique, std::size_t group) -> chunk_function {
          if (technique == "naive") return [&passes](std::size_t b, std::size_t e) { return passes.naive(b, e); };
          if (technique == "coro") {
            return [&passes, group](std::size_t b, std::size_t e) { return passes.coroutine(b, e, group); };
          }
          if (technique == "gp") {
            return [&passes, group](std::size_t b, std::size_t e) { return passes.group_prefetching(b, e, group); };
          }
          return [&passes, group](std::size_t b, std::size_t e) { return passes.amac(b, e, group); };
        },
        expected_checksum(stream.operations), "amac");
    const auto statistics = tree.statistics();
    context.note("bw-tree " + distribution.describe(),
                 std::to_string(settings.records) + " records, " + std::to_string(tree.memory_bytes() >> 20) +
                     " MiB, height " + std::to_string(tree.height()) + ", " + std::to_string(statistics.pages) +
                     " pages, " + std::to_string(statistics.consolidations) + " consolidations");
  }
}

const registration bw_tree_ycsb{experiment{
    .name = "bw-tree-ycsb",
    .reproduces = "Killer Nanoseconds Fig. 13 (Bw-tree, 95% reads / 5% updates)",
    .summary = "Bw-tree, 95/5 uniform and YCSB-B Zipfian: naive, coroutine, GP, AMAC",
    .techniques = {"naive", "coro", "gp", "amac"},
    .accepted = accepted_options,
    .run = run_bw_tree_ycsb,
}};

const figure_registration bw_tree_fig13{bw_tree_ycsb, figure{
    .name = "fig13-bw-tree-groups",
    .reproduces = "Killer Nanoseconds Fig. 13a-b, Table 3 (Bw-tree, 95/5, group-size sweep, 1 and 2 threads)",
    .summary = "Bw-tree 95/5: throughput against the group size, coro, GP and AMAC vs naive",
    .panels = {figure_panel("uniform", "uniform", "1,2,4,8,12,16,24", "1,2", "4,12"),
               figure_panel("zipf", "zipf:0.99", "4,8,12,16,24", "1,2", "4,12")},
    .axes = {.x = "group", .y = "mops", .series = {"technique", "threads"}},
    .paper = {paper_claim("Killer Nanoseconds Table 3, Fig. 13 (MSVC, 25M records, uniform)", "AMAC beats naive by up to 1.7x",
                          {{"panel", "uniform"}, {"technique", "amac"}}, statistic::maximum, 1.7, 1.7,
                          shape_rule::same_side_of(1), "up to 28 threads in the paper; 1-2 here"),
              paper_claim("Killer Nanoseconds Table 3 (MSVC)", "GP up to 1.7x over naive",
                          {{"panel", "uniform"}, {"technique", "gp"}}, statistic::maximum, 1.7, 1.7,
                          shape_rule::same_side_of(1), ""),
              paper_claim("Killer Nanoseconds Table 3 (MSVC)", "Coro up to 1.4x over naive",
                          {{"panel", "uniform"}, {"technique", "coro"}}, statistic::maximum, 1.4, 1.4,
                          shape_rule::same_side_of(1), "MSVC in the paper; ours Clang"),
              paper_claim("Killer Nanoseconds Fig. 13a (1 thread)", "AMAC 1.22x faster on average than Coro",
                          {{"panel", "uniform"}, {"threads", "1"}, {"technique", "coro"}}, statistic::maximum, 1 / 1.22,
                          1 / 1.22, shape_rule::within_factor(1.3),
                          "the paper's average over groups; ours the best coro group against the best amac group",
                          "speedup_vs_amac")},
}};

// 10 M records instead of the figure's 20 M, one group size and two repetitions: loading the
// tree and its 2 M-operation passes fit the budget.
const headline_registration bw_tree_headline{bw_tree_fig13, headline_of("bw-tree (95/5)", "uniform", "uniform", "16", "8")};

}  // namespace
}  // namespace braid::bench
