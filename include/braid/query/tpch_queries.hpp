// tpch_queries: TPC-H Q1, Q3, Q5, Q6, Q10, Q12, Q14 and Q19 (and two micro queries) as
// task-based pipeline plans on braid's task runtime (TunaDB without the JIT, Mühlig 2023 ch. 7).
//
//   braid::tasks::runtime tasks({.workers = 2});
//   const auto run = braid::query::run_tpch_query(6, database, tasks, {}, {.finalize = braid::query::finalize_mode::parallel});
//   std::puts(run.rows.to_string().c_str());
//
// Plans: every join is a hash join whose build pipeline (a join_table, optionally with a bloom
// filter checked before probing) precedes the probe pipeline; aggregation is grouped with
// per-worker partials; ORDER BY / LIMIT run on the result rows. The pipelines and what they
// join:
//   Q1  lineitem -> group (returnflag, linestatus)
//   Q3  customer(segment) -> orders(date) -> lineitem(date) -> group orderkey, top 10
//   Q5  region -> nation -> {supplier, customer} -> orders(date) -> lineitem -> group nation
//   Q6  lineitem -> sum
//   Q10 customer, nation (row references), orders(date) -> lineitem(R) -> group custkey, top 20
//   Q12 lineitem (modes, dates; the small side, bloom-filtered) -> orders (priority class) -> group shipmode
//   Q14 part (PROMO%) -> lineitem(month) -> two sums, ratio
//   Q19 part (the three disjuncts' part terms) -> lineitem (modes, instruct) -> sum
// Output columns, names, scales and the total order follow result.hpp and tpch_parameters.hpp.
//
// Statistics are computed from the plan (tasks = fragments + barriers + finalize tasks; bytes =
// rows x the accessed columns' widths per pipeline), not counted by the tasks.
// Limits: the runtime must not be running and is run to completion (it stops when the last
// pipeline finished); the database must hold the tables (and columns) the query reads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "braid/query/dataflow.hpp"
#include "braid/query/result.hpp"
#include "braid/query/tpch_parameters.hpp"
#include "braid/query/tpch_schema.hpp"
#include "braid/tasks/runtime.hpp"

namespace braid::query {

struct execution_options {
  prefetch_strategy prefetch = prefetch_strategy::automatic;
  finalize_mode finalize = finalize_mode::reduce;
  bool bloom_filters = true;
  // Hash-join probes of a fragment interleaved at a time by group prefetching
  // (join_table::probe_batch); 1 (the default) probes one key after another. 1 to
  // join_table::max_probe_group. Interleaving pays when a join's table is DRAM-resident; the
  // TPC-H tables of scale 10 fit a 260 MiB last-level cache, where it costs more than it hides
  // for most queries (braid-bench run tpch-join-probes measures both).
  std::size_t probe_group = 1;
};

struct query_run {
  result rows;
  execution_statistics statistics;
};

enum class micro_query : std::uint8_t {
  sum_quantity,   // select sum(l_quantity) as sum_quantity from lineitem
  q1_unfiltered,  // Q1 without its shipdate filter
};

// The tables and columns a query's plan reads, for loading no more than it needs (load_tpch's
// tpch_database_options::tables). `number` as for run_tpch_query, else std::invalid_argument.
using table_columns = std::vector<std::pair<tpch_table, std::vector<std::string>>>;
table_columns tpch_query_columns(int number);
table_columns micro_query_columns(micro_query which);
// The union of several queries' columns, each table once, in tpch_table order.
table_columns merge_columns(const std::vector<table_columns>& queries);

// `number` in tpch_query_numbers, else std::invalid_argument.
query_run run_tpch_query(int number, const tpch_database& data, tasks::runtime& runtime,
                         const tpch_parameters& parameters = {}, const execution_options& options = {});
query_run run_micro_query(micro_query which, const tpch_database& data, tasks::runtime& runtime,
                          const execution_options& options = {});

}  // namespace braid::query
