// plan: a small C++ API that builds query dataflow graphs (no SQL): scans with filters into
// batch bodies, hash-join builds and probes, grouped aggregation, pipeline dependencies.
//
//   braid::query::query_plan q(runtime.workers());
//   braid::query::join_table& segment = q.join(true);                   // with a bloom filter
//   const auto build = q.scan("customer", customer, q.keep(predicate::text_equals(customer, "c_mktsegment", "BUILDING")),
//                             nullptr, {"c_custkey"}, &segment,
//                             [&](unsigned worker, std::size_t f, const std::uint32_t* rows, std::uint32_t n) {
//                               const auto* key = customer.column_data<std::int64_t>(f, custkey);
//                               for (std::uint32_t i = 0; i < n; ++i) segment.insert(worker, key[rows[i]], 0);
//                             });
//   const auto probe = q.scan("orders", orders, ...);   // probes segment.may_contain / for_each_match
//   q.after(probe, build);
//   q.run(runtime, {.prefetch = prefetch_strategy::automatic, .finalize = finalize_mode::reduce});
//
// A scan's body gets, per fragment, the positions of the tuples that passed the filter (a
// selection vector in a per-worker buffer) and writes into its breaker's partial for `worker`
// (join_table::insert, group_aggregate::accumulators). The plan owns the operators' state and
// the predicates (keep()), so they live as long as the plan; everything a body references
// must outlive run(). Exact decimal arithmetic: decimal columns hold value x 10^scale as
// int64; products add scales (times()), sums go into int128 accumulators.
//
// Limits: a plan is built for a fixed worker count (the runtime's) and run once; its
// operators' partials are indexed by worker id.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "braid/query/dataflow.hpp"
#include "braid/query/operators.hpp"
#include "braid/query/table.hpp"

namespace braid::query {

// value x (10^scale - fraction): price x (1 - discount) with both at scale 2 is times_complement(price, discount, 100),
// scale 2 + 2.
[[nodiscard]] constexpr int128 times_complement(std::int64_t value, std::int64_t fraction, std::int64_t one) noexcept {
  return int128{value} * (one - fraction);
}
// value x (10^scale + fraction).
[[nodiscard]] constexpr int128 times_sum(int128 value, std::int64_t fraction, std::int64_t one) noexcept {
  return value * (one + fraction);
}

class query_plan {
 public:
  using body_function = std::function<void(unsigned worker, std::size_t f, const std::uint32_t* rows, std::uint32_t count)>;

  // std::invalid_argument for 0 workers.
  explicit query_plan(unsigned workers, bool bloom_filters = true);

  [[nodiscard]] unsigned workers() const noexcept { return workers_; }

  // A join table (build side); `filtered_build`: a bloom filter is worth building (the build
  // keeps few of the probe's keys), used when the plan allows bloom filters.
  join_table& join(bool filtered_build);
  group_aggregate& aggregate(std::vector<aggregate_kind> accumulators);
  group_aggregate& aggregate_sums(std::size_t sums) { return aggregate(std::vector<aggregate_kind>(sums, aggregate_kind::sum)); }
  // Keeps a predicate alive for the plan's lifetime.
  const predicate* keep(predicate filter);

  // A pipeline scanning `source` through `filter` (null: every tuple) into `body`, which also
  // reads `columns` (for prefetching and statistics). `lead`: a single-column conjunct of the
  // filter whose selectivity decides automatic prefetching (null: the filter itself when it
  // reads one column). std::invalid_argument for an unknown column.
  std::size_t scan(std::string name, const table& source, const predicate* filter, const predicate* lead,
                   std::initializer_list<std::string_view> columns, sink* breaker, body_function body);
  // `later` starts when `earlier` finished.
  void after(std::size_t later, std::size_t earlier) { graph_.depends_on(later, earlier); }

  execution_statistics run(tasks::runtime& runtime, const execution_config& config);
  [[nodiscard]] const dataflow_graph& graph() const noexcept { return graph_; }

 private:
  unsigned workers_;
  bool bloom_filters_;
  dataflow_graph graph_;
  std::deque<predicate> predicates_;
  std::vector<std::unique_ptr<selection_buffers>> buffers_;
  std::vector<std::unique_ptr<join_table>> joins_;
  std::vector<std::unique_ptr<group_aggregate>> aggregates_;
};

}  // namespace braid::query
