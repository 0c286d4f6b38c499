#include "braid/query/dataflow.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace braid::query {

// ---- names -----------------------------------------------------------------------------------

std::string_view to_string(prefetch_strategy strategy) {
  switch (strategy) {
    case prefetch_strategy::none: return "none";
    case prefetch_strategy::first_lines: return "first_lines";
    case prefetch_strategy::whole_column: return "whole_column";
    case prefetch_strategy::automatic: return "automatic";
  }
  throw std::invalid_argument("query: unknown prefetch strategy");
}

prefetch_strategy parse_prefetch_strategy(std::string_view text) {
  for (auto strategy : {prefetch_strategy::none, prefetch_strategy::first_lines, prefetch_strategy::whole_column,
                        prefetch_strategy::automatic}) {
    if (to_string(strategy) == text) return strategy;
  }
  throw std::invalid_argument("query: unknown prefetch strategy '" + std::string(text) +
                              "' (none, first_lines, whole_column, automatic)");
}

std::string_view to_string(finalize_mode mode) {
  switch (mode) {
    case finalize_mode::sequential: return "sequential";
    case finalize_mode::parallel: return "parallel";
    case finalize_mode::reduce: return "reduce";
  }
  throw std::invalid_argument("query: unknown finalize mode");
}

finalize_mode parse_finalize_mode(std::string_view text) {
  for (auto mode : {finalize_mode::sequential, finalize_mode::parallel, finalize_mode::reduce}) {
    if (to_string(mode) == text) return mode;
  }
  throw std::invalid_argument("query: unknown finalize mode '" + std::string(text) + "' (sequential, parallel, reduce)");
}

// ---- prefetch plans and slots ----------------------------------------------------------------

std::uint32_t prefetch_plan::lines() const noexcept {
  std::uint32_t total = 0;
  for (const prefetch_range& range : used()) {
    total += static_cast<std::uint32_t>((range.bytes + cache_line_bytes - 1) / cache_line_bytes);
  }
  return total;
}

prefetch_plan make_prefetch_plan(const table& source, std::span<const std::size_t> columns,
                                 std::optional<std::size_t> whole_column) {
  prefetch_plan plan;
  plan.ranges[plan.count++] = {0, static_cast<std::uint32_t>(sizeof(fragment_header))};
  for (const std::size_t column : columns) {
    if (column >= source.columns().size()) {
      throw std::invalid_argument("query prefetch plan: table " + source.name() + " has no column " + std::to_string(column));
    }
    if (plan.count == prefetch_plan::max_ranges) break;
    const std::size_t column_bytes = source.tuples_per_fragment() * width_of(source.columns()[column].type);
    const std::size_t bytes = std::min(column_bytes, whole_column == column ? whole_column_prefetch_bytes : cache_line_bytes);
    plan.ranges[plan.count++] = {static_cast<std::uint32_t>(source.column_offset(column)), static_cast<std::uint32_t>(bytes)};
  }
  return plan;
}

namespace {

std::array<std::atomic<bool>, prefetch_slot_count> slot_taken{};

template <std::size_t... Slots>
constexpr std::array<tasks::prefetch_descriptor::callback_function, sizeof...(Slots)> make_callbacks(
    std::index_sequence<Slots...>) {
  return {&prefetch_fragment<static_cast<unsigned>(Slots)>...};
}
constexpr auto slot_callbacks = make_callbacks(std::make_index_sequence<prefetch_slot_count>{});

}  // namespace

std::optional<unsigned> prefetch_registry::claim(const prefetch_plan& plan) noexcept {
  for (unsigned slot = 0; slot < prefetch_slot_count; ++slot) {
    bool expected = false;
    if (slot_taken[slot].compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
      detail::prefetch_slot_plans[slot] = plan;  // published to the tasks by their spawn
      return slot;
    }
  }
  return std::nullopt;
}

void prefetch_registry::release(unsigned slot) noexcept { slot_taken[slot].store(false, std::memory_order_release); }

tasks::prefetch_descriptor::callback_function prefetch_registry::callback(unsigned slot) {
  if (slot >= prefetch_slot_count) throw std::invalid_argument("query prefetch registry: no slot " + std::to_string(slot));
  return slot_callbacks[slot];
}

const prefetch_plan& prefetch_registry::plan(unsigned slot) {
  if (slot >= prefetch_slot_count) throw std::invalid_argument("query prefetch registry: no slot " + std::to_string(slot));
  return detail::prefetch_slot_plans[slot];
}

unsigned prefetch_registry::slots_in_use() noexcept {
  unsigned used = 0;
  for (const auto& taken : slot_taken) used += taken.load(std::memory_order_acquire) ? 1U : 0U;
  return used;
}

// ---- the graph -------------------------------------------------------------------------------

std::size_t dataflow_graph::add(pipeline stage) {
  if (stage.source == nullptr) throw std::invalid_argument("query dataflow: pipeline '" + stage.name + "' has no source table");
  if (!stage.consume) throw std::invalid_argument("query dataflow: pipeline '" + stage.name + "' has no consume function");
  for (const std::size_t column : stage.columns) {
    if (column >= stage.source->columns().size()) {
      throw std::invalid_argument("query dataflow: pipeline '" + stage.name + "' reads column " + std::to_string(column) +
                                  " of " + stage.source->name() + ", which has " +
                                  std::to_string(stage.source->columns().size()));
    }
  }
  if (stage.predicate_column && (*stage.predicate_column >= stage.source->columns().size() || !stage.predicate_count)) {
    throw std::invalid_argument("query dataflow: pipeline '" + stage.name + "' has an invalid predicate column");
  }
  pipelines_.push_back(std::move(stage));
  dependents_.emplace_back();
  prerequisites_.push_back(0);
  return pipelines_.size() - 1;
}

void dataflow_graph::depends_on(std::size_t later, std::size_t earlier) {
  if (later >= pipelines_.size() || earlier >= pipelines_.size() || later == earlier) {
    throw std::invalid_argument("query dataflow: dependency " + std::to_string(later) + " on " + std::to_string(earlier) +
                                " among " + std::to_string(pipelines_.size()) + " pipelines");
  }
  dependents_[earlier].push_back(later);
  ++prerequisites_[later];
}

double dataflow_graph::sample_selectivity(const pipeline& stage, std::size_t samples) {
  const std::size_t fragments = stage.source->fragment_count();
  if (!stage.predicate_column || fragments == 0 || samples == 0) return 1.0;
  const std::size_t taken = std::min(samples, fragments);
  std::uint64_t tuples = 0;
  std::uint64_t qualifying = 0;
  for (std::size_t i = 0; i < taken; ++i) {
    const std::size_t f = i * fragments / taken;
    tuples += stage.source->header(f).tuples;
    qualifying += stage.predicate_count(f);
  }
  return tuples == 0 ? 1.0 : static_cast<double>(qualifying) / static_cast<double>(tuples);
}

namespace {

// The shared state of one run; tasks hold a pointer to it.
struct run_state {
  struct stage_state {
    alignas(64) std::atomic<std::uint32_t> prerequisites_left{0};
    alignas(64) std::atomic<std::uint32_t> barriers_left{0};
    alignas(64) std::atomic<std::uint32_t> finalize_left{0};
    std::optional<unsigned> slot;
    tasks::prefetch_descriptor hint{};
  };

  const std::vector<pipeline>* pipelines = nullptr;
  const std::vector<std::vector<std::size_t>>* dependents = nullptr;
  std::vector<pipeline_report>* reports = nullptr;
  tasks::runtime* runtime = nullptr;
  execution_config config{};
  unsigned workers = 1;
  std::unique_ptr<stage_state[]> stages;
  std::atomic<std::size_t> finished{0};
  // Set when run() left by an exception: the tasks still queued in the runtime then find the
  // state kept alive and do nothing when a later run executes them.
  std::atomic<bool> cancelled{false};
  std::mutex order_mutex;
  std::vector<std::size_t>* order = nullptr;
};

template <class Function>
void spawn_task(run_state& state, tasks::worker* self, std::uint16_t target, Function function) {
  auto* task = self != nullptr ? self->allocate_lambda(std::move(function)) : state.runtime->allocate_lambda(std::move(function));
  task->annotate_worker(target);
  if (self != nullptr) {
    self->spawn(*task);
  } else {
    state.runtime->spawn(*task);
  }
}

void start_pipeline(run_state& state, tasks::worker* self, std::size_t index);

// Marks the pipeline finished and starts its dependents; true when it was the last one.
bool finish_pipeline(run_state& state, tasks::worker& self, std::size_t index) {
  auto& stage = state.stages[index];
  if (stage.slot) prefetch_registry::release(*stage.slot);
  {
    std::lock_guard lock(state.order_mutex);
    state.order->push_back(index);
  }
  for (const std::size_t dependent : (*state.dependents)[index]) {
    if (state.stages[dependent].prerequisites_left.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      start_pipeline(state, &self, dependent);
    }
  }
  return state.finished.fetch_add(1, std::memory_order_acq_rel) + 1 == state.pipelines->size();
}

tasks::task_result end_with(run_state& state, tasks::worker& self, std::size_t index) {
  const pipeline& stage = (*state.pipelines)[index];
  if (stage.breaker != nullptr) stage.breaker->complete(state.config.finalize);
  return finish_pipeline(state, self, index) ? tasks::task_result::stop() : tasks::task_result::remove();
}

// Reduce: round `stride` merges partial i + stride into i for every i divisible by 2 stride.
void spawn_reduce_round(run_state& state, tasks::worker& self, std::size_t index, unsigned stride) {
  unsigned pairs = 0;
  for (unsigned into = 0; into + stride < state.workers; into += 2 * stride) ++pairs;
  state.stages[index].finalize_left.store(pairs, std::memory_order_relaxed);
  for (unsigned into = 0; into + stride < state.workers; into += 2 * stride) {
    spawn_task(state, &self, static_cast<std::uint16_t>(into), [s = &state, index, into, stride](tasks::worker& me) {
      if (s->cancelled.load(std::memory_order_relaxed)) return tasks::task_result::remove();
      (*s->pipelines)[index].breaker->merge(into, into + stride);
      if (s->stages[index].finalize_left.fetch_sub(1, std::memory_order_acq_rel) != 1) return tasks::task_result::remove();
      if (2 * stride < s->workers) {
        spawn_reduce_round(*s, me, index, 2 * stride);
        return tasks::task_result::remove();
      }
      return end_with(*s, me, index);
    });
  }
}

tasks::task_result begin_finalize(run_state& state, tasks::worker& self, std::size_t index) {
  const pipeline& stage = (*state.pipelines)[index];
  if (stage.breaker == nullptr || state.workers == 1) {
    return end_with(state, self, index);
  }
  switch (state.config.finalize) {
    case finalize_mode::sequential:
      spawn_task(state, &self, 0, [s = &state, index](tasks::worker& me) {
        if (s->cancelled.load(std::memory_order_relaxed)) return tasks::task_result::remove();
        for (unsigned from = 1; from < s->workers; ++from) (*s->pipelines)[index].breaker->merge(0, from);
        return end_with(*s, me, index);
      });
      break;
    case finalize_mode::parallel:
      state.stages[index].finalize_left.store(state.workers, std::memory_order_relaxed);
      for (unsigned part = 0; part < state.workers; ++part) {
        spawn_task(state, &self, static_cast<std::uint16_t>(part), [s = &state, index, part](tasks::worker& me) {
          if (s->cancelled.load(std::memory_order_relaxed)) return tasks::task_result::remove();
          (*s->pipelines)[index].breaker->finalize_part(part, s->workers);
          if (s->stages[index].finalize_left.fetch_sub(1, std::memory_order_acq_rel) != 1) return tasks::task_result::remove();
          return end_with(*s, me, index);
        });
      }
      break;
    case finalize_mode::reduce:
      spawn_reduce_round(state, self, index, 1);
      break;
  }
  return tasks::task_result::remove();
}

void start_pipeline(run_state& state, tasks::worker* self, std::size_t index) {
  const pipeline& stage = (*state.pipelines)[index];
  auto& shared = state.stages[index];
  const std::size_t fragments = stage.source->fragment_count();
  shared.barriers_left.store(state.workers, std::memory_order_relaxed);
  for (std::size_t f = 0; f < fragments; ++f) {
    auto work = [s = &state, index, f](tasks::worker& me) {
      if (!s->cancelled.load(std::memory_order_relaxed)) (*s->pipelines)[index].consume(me.id(), f);
    };
    auto* task = self != nullptr ? self->allocate_lambda(work) : state.runtime->allocate_lambda(work);
    task->annotate_worker(static_cast<std::uint16_t>(f % state.workers));
    if (!shared.hint.empty()) task->annotate_prefetch(stage.source->fragment(f), shared.hint);
    if (self != nullptr) {
      self->spawn(*task);
    } else {
      state.runtime->spawn(*task);
    }
  }
  for (unsigned w = 0; w < state.workers; ++w) {
    spawn_task(state, self, static_cast<std::uint16_t>(w), [s = &state, index](tasks::worker& me) {
      if (s->cancelled.load(std::memory_order_relaxed)) return tasks::task_result::remove();
      if (s->stages[index].barriers_left.fetch_sub(1, std::memory_order_acq_rel) != 1) return tasks::task_result::remove();
      return begin_finalize(*s, me, index);
    });
  }
}

void check_acyclic(const std::vector<std::vector<std::size_t>>& dependents, std::vector<std::uint32_t> prerequisites) {
  std::vector<std::size_t> ready;
  for (std::size_t i = 0; i < prerequisites.size(); ++i) {
    if (prerequisites[i] == 0) ready.push_back(i);
  }
  std::size_t visited = 0;
  while (!ready.empty()) {
    const std::size_t next = ready.back();
    ready.pop_back();
    ++visited;
    for (const std::size_t dependent : dependents[next]) {
      if (--prerequisites[dependent] == 0) ready.push_back(dependent);
    }
  }
  if (visited != prerequisites.size()) throw std::invalid_argument("query dataflow: the pipeline dependencies form a cycle");
}

std::uint64_t finalize_tasks(finalize_mode mode, unsigned workers) {
  if (workers == 1) return 0;
  switch (mode) {
    case finalize_mode::sequential: return 1;
    case finalize_mode::parallel: return workers;
    case finalize_mode::reduce: return workers - 1;
  }
  return 0;
}

}  // namespace

execution_statistics dataflow_graph::run(tasks::runtime& runtime, const execution_config& config) {
  check_acyclic(dependents_, prerequisites_);
  completion_order_.clear();
  reports_.assign(pipelines_.size(), {});
  execution_statistics statistics;
  statistics.pipelines = static_cast<std::uint32_t>(pipelines_.size());
  if (pipelines_.empty()) return statistics;

  auto owned = std::make_unique<run_state>();
  run_state& state = *owned;
  state.pipelines = &pipelines_;
  state.dependents = &dependents_;
  state.reports = &reports_;
  state.runtime = &runtime;
  state.config = config;
  state.workers = runtime.workers();
  state.stages = std::make_unique<run_state::stage_state[]>(pipelines_.size());
  state.order = &completion_order_;

  for (std::size_t i = 0; i < pipelines_.size(); ++i) {
    const pipeline& stage = pipelines_[i];
    auto& shared = state.stages[i];
    shared.prerequisites_left.store(prerequisites_[i], std::memory_order_relaxed);
    pipeline_report& report = reports_[i];
    report.strategy = config.prefetch;
    // The dominant column: the single-column predicate's, or the only column a scan reads.
    const std::optional<std::size_t> dominant =
        stage.predicate_column ? stage.predicate_column
                               : stage.columns.size() == 1 ? std::optional<std::size_t>(stage.columns.front()) : std::nullopt;
    if (config.prefetch == prefetch_strategy::automatic) {
      report.sampled_selectivity = stage.predicate_column ? sample_selectivity(stage) : -1;
      const bool selective = stage.predicate_column && report.sampled_selectivity < whole_column_below;
      const bool only_column = !stage.predicate_column && dominant.has_value();
      report.strategy = selective || only_column ? prefetch_strategy::whole_column : prefetch_strategy::first_lines;
    }
    if (report.strategy != prefetch_strategy::none) {
      const auto whole = report.strategy == prefetch_strategy::whole_column ? dominant : std::nullopt;
      report.plan = make_prefetch_plan(*stage.source, stage.columns, whole);
    }
    std::uint64_t width = 0;
    for (const std::size_t column : stage.columns) width += width_of(stage.source->columns()[column].type);
    statistics.bytes_accessed += width * stage.source->rows();
    statistics.fragments += stage.source->fragment_count();
    statistics.tasks += stage.source->fragment_count() + state.workers +
                        (stage.breaker != nullptr ? finalize_tasks(config.finalize, state.workers) : 0);
  }

  // Slots are claimed up front (a plan is written before any task can read it) and released
  // as each pipeline finishes; on an exception, the ones still held are released here.
  struct slot_guard {
    run_state& state;
    std::size_t count;
    ~slot_guard() {
      std::lock_guard lock(state.order_mutex);
      std::vector<bool> finished(count, false);
      for (const std::size_t done : *state.order) finished[done] = true;
      for (std::size_t i = 0; i < count; ++i) {
        if (!finished[i] && state.stages[i].slot) prefetch_registry::release(*state.stages[i].slot);
      }
    }
  } guard{state, pipelines_.size()};
  for (std::size_t i = 0; i < pipelines_.size(); ++i) {
    if (reports_[i].strategy == prefetch_strategy::none) continue;
    auto& shared = state.stages[i];
    shared.slot = prefetch_registry::claim(reports_[i].plan);
    reports_[i].prefetched = shared.slot.has_value();
    if (shared.slot) {
      shared.hint = tasks::prefetch_descriptor::callback(prefetch_registry::callback(*shared.slot),
                                                         static_cast<std::uint8_t>(std::min<std::uint32_t>(255, reports_[i].plan.lines())));
    }
  }

  try {
    for (std::size_t i = 0; i < pipelines_.size(); ++i) {
      if (prerequisites_[i] == 0) start_pipeline(state, nullptr, i);
    }
    runtime.run();
  } catch (...) {
    state.cancelled.store(true, std::memory_order_release);
    static std::mutex abandoned_mutex;
    static std::vector<std::unique_ptr<run_state>> abandoned;  // reachable by queued tasks
    std::lock_guard lock(abandoned_mutex);
    abandoned.push_back(std::move(owned));
    throw;
  }
  if (state.finished.load(std::memory_order_acquire) != pipelines_.size()) {
    throw std::logic_error("query dataflow: the runtime stopped before every pipeline finished");
  }
  return statistics;
}

}  // namespace braid::query
