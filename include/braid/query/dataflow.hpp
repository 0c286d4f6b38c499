// dataflow: query pipelines as tasks on braid's task runtime (MxTaskFlow, Mühlig 2023 §7.1).
//
//   braid::query::dataflow_graph graph;
//   const auto build = graph.add({.name = "build", .source = &orders, .columns = {0, 1}, .consume = ..., .breaker = &joins});
//   const auto probe = graph.add({.name = "probe", .source = &lineitem, ...});
//   graph.depends_on(probe, build);          // the probe starts when the build has finished
//   graph.run(runtime, {.prefetch = prefetch_strategy::automatic, .finalize = finalize_mode::reduce});
//
// A pipeline scans its source table fragment by fragment: one task per fragment, dispatched
// round robin over the workers (fragment f on worker f mod workers) and annotated with the
// fragment for prefetching. consume(worker, fragment) processes a whole fragment (operators
// work on selection vectors, not a call per tuple) into the worker's partial state. After a
// pipeline's fragment tasks, one barrier task per worker follows on each worker (the queues
// are FIFO, so it runs after that worker's fragments); each touches the pipeline's shared
// counter once and the last one ends the consume phase. Then the pipeline's breaker (a sink:
// hash-join build, aggregation) finalizes: sequential (one task merges every partial into
// worker 0's), parallel (task p finalizes part p of every partial, e.g. hash partition p) or
// reduce (a tree of pairwise merges, log2(workers) rounds). A pipeline starts once every
// pipeline it depends on has finished; when the last one finishes, the runtime is stopped and
// run() returns. A task's exception stops the runtime and leaves run() (runtime::run rethrows).
//
// Prefetching without a JIT: a pipeline's prefetch plan (byte ranges relative to a fragment:
// the header line, the first lines of every accessed column, or a whole column) goes into one
// of prefetch_slot_count fixed slots; prefetch_fragment<Slot> reads slot Slot's plan, so each
// pipeline has its own plain function pointer for the runtime's callback prefetch descriptor.
// run() claims the slots before the first task is spawned (a plan is never rewritten while a
// task may read it) and each pipeline releases its slot when it finished. With every slot
// taken (more than prefetch_slot_count pipelines in flight, e.g. graphs run concurrently on
// several runtimes), a pipeline runs unprefetched. whole_column prefetches the dominant
// column entirely (up to whole_column_prefetch_bytes): the single-column predicate's or,
// without one, the only column the pipeline reads. automatic resolves per pipeline at run():
// whole_column when the pipeline names a single-column predicate whose selectivity, sampled on
// up to 4 fragments, is below 10 %, or reads one column and has no predicate (a column scan),
// else first_lines.
//
// Complexity: tasks = fragments + workers per pipeline + the finalize tasks (sequential 1,
// parallel workers, reduce workers - 1); shared atomics per pipeline: one touch per worker at
// the barrier, one per finalize task. Limits: the runtime must not be running when run() is
// called and is used exclusively until it returns; a graph must be acyclic (checked).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "braid/core/prefetch.hpp"
#include "braid/query/table.hpp"
#include "braid/tasks/prefetch_descriptor.hpp"
#include "braid/tasks/runtime.hpp"

namespace braid::query {

enum class prefetch_strategy : std::uint8_t { none, first_lines, whole_column, automatic };
enum class finalize_mode : std::uint8_t { sequential, parallel, reduce };

std::string_view to_string(prefetch_strategy strategy);
// "none", "first_lines", "whole_column", "automatic"; std::invalid_argument otherwise.
prefetch_strategy parse_prefetch_strategy(std::string_view text);
std::string_view to_string(finalize_mode mode);
// "sequential", "parallel", "reduce"; std::invalid_argument otherwise.
finalize_mode parse_finalize_mode(std::string_view text);

struct execution_statistics {
  std::uint64_t tasks = 0;
  std::uint64_t fragments = 0;
  std::uint64_t bytes_accessed = 0;  // bytes of the accessed columns of every scanned fragment
  std::uint32_t pipelines = 0;
};

// The state a pipeline ends in (a pipeline breaker): one partial per worker, filled by that
// worker's consume calls, merged by the finalize tasks.
class sink {
 public:
  virtual ~sink() = default;
  // sequential and reduce: fold worker `from`'s partial into worker `into`'s.
  virtual void merge(unsigned into, unsigned from) = 0;
  // parallel: part `part` of `parts` (one per worker) takes its share of every partial.
  virtual void finalize_part(unsigned part, unsigned parts) = 0;
  // Once, after the merges (mode sequential / reduce: the result is partial 0) or the parts.
  virtual void complete(finalize_mode mode) = 0;
};

// ---- prefetch plans --------------------------------------------------------------------------

struct prefetch_range {
  std::uint32_t offset = 0;  // bytes from the fragment's start
  std::uint32_t bytes = 0;
};

struct prefetch_plan {
  static constexpr std::size_t max_ranges = 16;
  std::uint32_t count = 0;
  std::array<prefetch_range, max_ranges> ranges{};

  [[nodiscard]] std::span<const prefetch_range> used() const noexcept { return {ranges.data(), count}; }
  // Cache lines the plan touches (for the runtime's automatic prefetch distance).
  [[nodiscard]] std::uint32_t lines() const noexcept;
};

// The header line and the first line of each accessed column; with `whole_column`, that
// column's every value in a full fragment instead of its first line. Columns past
// max_ranges - 1 are left out (they are fetched on demand). std::invalid_argument for a
// column the table lacks.
prefetch_plan make_prefetch_plan(const table& source, std::span<const std::size_t> columns,
                                 std::optional<std::size_t> whole_column = std::nullopt);

inline constexpr unsigned prefetch_slot_count = 16;
// whole_column prefetches at most this much of the dominant column: a longer column's rest is
// a sequential stream the hardware prefetcher follows (measured on a column scan of TPC-H
// scale 10: prefetching 512 KiB columns whole made 65,536-tuple tasks 10-20 % slower).
inline constexpr std::size_t whole_column_prefetch_bytes = std::size_t{32} << 10;

namespace detail {
inline std::array<prefetch_plan, prefetch_slot_count> prefetch_slot_plans{};
}  // namespace detail

// The runtime's callback for the pipeline in slot Slot: prefetches its plan's ranges.
template <unsigned Slot>
void prefetch_fragment(const void* fragment) noexcept {
  static_assert(Slot < prefetch_slot_count);
  const auto* base = static_cast<const std::byte*>(fragment);
  const prefetch_plan& plan = detail::prefetch_slot_plans[Slot];
  for (const prefetch_range& range : plan.used()) prefetch_lines<prefetch_hint::t0>(base + range.offset, range.bytes);
}

// The fixed slots: a pipeline claims one for its run and releases it when it finished.
class prefetch_registry {
 public:
  // A free slot now holding `plan`, or nullopt when all are taken. Any thread.
  static std::optional<unsigned> claim(const prefetch_plan& plan) noexcept;
  static void release(unsigned slot) noexcept;
  [[nodiscard]] static tasks::prefetch_descriptor::callback_function callback(unsigned slot);
  [[nodiscard]] static const prefetch_plan& plan(unsigned slot);
  [[nodiscard]] static unsigned slots_in_use() noexcept;
};

// ---- the graph -------------------------------------------------------------------------------

struct pipeline {
  std::string name;
  const table* source = nullptr;
  std::vector<std::size_t> columns;  // the source columns the pipeline reads
  std::function<void(unsigned worker, std::size_t fragment)> consume;
  sink* breaker = nullptr;  // null: the pipeline ends at its barrier
  // A single-column predicate of the scan (for whole_column and automatic prefetching): its
  // column and how many of a fragment's tuples pass it.
  std::optional<std::size_t> predicate_column{};
  std::function<std::size_t(std::size_t fragment)> predicate_count{};
};

struct execution_config {
  prefetch_strategy prefetch = prefetch_strategy::automatic;
  finalize_mode finalize = finalize_mode::reduce;
};

// What a run did, per pipeline (for tests and reports).
struct pipeline_report {
  prefetch_strategy strategy = prefetch_strategy::none;  // as resolved (never automatic)
  prefetch_plan plan{};
  double sampled_selectivity = -1;  // automatic with a predicate only
  bool prefetched = false;          // a slot was free
};

class dataflow_graph {
 public:
  // std::invalid_argument: no source, no consume, a column the source lacks.
  std::size_t add(pipeline stage);
  // `later` starts after `earlier` finished. std::invalid_argument for unknown indices or a
  // self-dependency; cycles are reported by run().
  void depends_on(std::size_t later, std::size_t earlier);

  [[nodiscard]] std::size_t size() const noexcept { return pipelines_.size(); }

  // Runs every pipeline to its end on `runtime` (not running; used exclusively meanwhile).
  execution_statistics run(tasks::runtime& runtime, const execution_config& config);

  // After run(): pipelines in the order they finished, and what each prefetched.
  [[nodiscard]] const std::vector<std::size_t>& completion_order() const noexcept { return completion_order_; }
  [[nodiscard]] const std::vector<pipeline_report>& reports() const noexcept { return reports_; }

  // The selectivity estimate of the automatic strategy: qualifying / tuples over at most
  // `samples` fragments spread over the table (1 when there is no predicate or no tuple).
  [[nodiscard]] static double sample_selectivity(const pipeline& stage, std::size_t samples = 4);
  static constexpr double whole_column_below = 0.10;

 private:
  std::vector<pipeline> pipelines_;
  std::vector<std::vector<std::size_t>> dependents_;
  std::vector<std::uint32_t> prerequisites_;
  std::vector<std::size_t> completion_order_;
  std::vector<pipeline_report> reports_;
};

}  // namespace braid::query
