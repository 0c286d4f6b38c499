#include "braid/query/plan.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace braid::query {

query_plan::query_plan(unsigned workers, bool bloom_filters) : workers_(workers), bloom_filters_(bloom_filters) {
  if (workers == 0) throw std::invalid_argument("query plan: no workers");
}

join_table& query_plan::join(bool filtered_build) {
  joins_.push_back(std::make_unique<join_table>(workers_, filtered_build && bloom_filters_));
  return *joins_.back();
}

group_aggregate& query_plan::aggregate(std::vector<aggregate_kind> accumulators) {
  aggregates_.push_back(std::make_unique<group_aggregate>(workers_, std::move(accumulators)));
  return *aggregates_.back();
}

const predicate* query_plan::keep(predicate filter) {
  predicates_.push_back(std::move(filter));
  return &predicates_.back();
}

std::size_t query_plan::scan(std::string name, const table& source, const predicate* filter, const predicate* lead,
                             std::initializer_list<std::string_view> columns, sink* breaker, body_function body) {
  if (!body) throw std::invalid_argument("query plan: scan '" + name + "' has no body");
  buffers_.push_back(std::make_unique<selection_buffers>(workers_, source.tuples_per_fragment(), 1));
  selection_buffers* buffers = buffers_.back().get();
  pipeline stage;
  stage.name = std::move(name);
  stage.source = &source;
  if (filter != nullptr) stage.columns = filter->columns();
  for (const std::string_view column : columns) stage.columns.push_back(source.column_index(column));
  std::sort(stage.columns.begin(), stage.columns.end());
  stage.columns.erase(std::unique(stage.columns.begin(), stage.columns.end()), stage.columns.end());
  stage.breaker = breaker;
  if (lead == nullptr && filter != nullptr && filter->single_column()) lead = filter;
  if (lead != nullptr && lead->single_column()) {
    stage.predicate_column = lead->single_column();
    stage.predicate_count = [lead, &source](std::size_t f) { return lead->count(source, f); };
  }
  stage.consume = [&source, filter, buffers, body = std::move(body)](unsigned worker, std::size_t f) {
    std::uint32_t* rows = buffers->get(worker, 0);
    std::uint32_t count = source.header(f).tuples;
    if (filter != nullptr) {
      count = filter->select(source, f, nullptr, count, rows);
    } else {
      std::iota(rows, rows + count, 0U);
    }
    body(worker, f, rows, count);
  };
  return graph_.add(std::move(stage));
}

execution_statistics query_plan::run(tasks::runtime& runtime, const execution_config& config) {
  if (runtime.workers() != workers_) {
    throw std::invalid_argument("query plan: built for " + std::to_string(workers_) + " workers, the runtime has " +
                                std::to_string(runtime.workers()));
  }
  return graph_.run(runtime, config);
}

}  // namespace braid::query
