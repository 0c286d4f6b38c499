// Figure presets of the query layer's experiments: MxTasks' prefetching per TPC-H query
// (Fig. 7.11), the lineitem scan's prefetch strategies (Fig. 7.8/7.9), task granularity
// (Fig. 7.13), and Q1 and Q6 at scale factor 10 against the read bandwidth.
#include <string>
#include <vector>

#include "figures.hpp"

namespace braid::bench {
namespace {

const std::string fig7_11 = "MxTasks Fig. 7.11 (TunaDB, TPC-H SF 50, prefetching on vs off)";
const std::string scale_caveat = "paper: TPC-H SF 50 on up to 48 cores, JIT-compiled pipelines; ours: SF 1, 2 cores, no JIT";

paper_number prefetch_gain(const std::string& query, double paper) {
  return paper_claim(fig7_11, "prefetching makes some queries up to 15 % faster (" + query + ")",
                     {{"structure", query}, {"technique", "automatic"}}, statistic::maximum, paper, paper,
                     shape_rule::same_side_of(1), scale_caveat);
}

const figure_registration prefetch_figure{figure{
    .name = "mxtasks-fig7-11-query-prefetch",
    .experiment = "tpch-prefetch",
    .reproduces = fig7_11,
    .summary = "the eight TPC-H queries with and without prefetching each task's fragment, 1 and 2 workers",
    .panels = {{.label = "SF 1",
                .arguments = {"--threads", "1,2", "--technique", "none,automatic"},
                .quick_arguments = {"--threads", "1,2", "--technique", "none,automatic", "--set", "scale=0.01",
                                    "--repetitions", "1"}}},
    .axes = {.x = "structure", .y = "speedup_vs_naive", .series = {"threads", "technique"},
             .x_label = "query", .y_label = "speedup of prefetching over none"},
    .paper = {prefetch_gain("q6", 1.15), prefetch_gain("q14", 1.15), prefetch_gain("q19", 1.08),
              paper_claim(fig7_11, "other queries up to 2 % slower with prefetching", {{"technique", "automatic"}},
                          statistic::minimum, 0.98, 0.98, shape_rule::within_factor(1.1), scale_caveat)},
}};

const figure_registration scan_figure{figure{
    .name = "mxtasks-fig7-8-scan-prefetch",
    .experiment = "tpch-prefetch",
    .reproduces = "MxTasks Fig. 7.8/7.9 (the lineitem scan query: prefetch first lines vs the whole l_shipdate column)",
    .summary = "Q6 (sum(l_extendedprice * l_discount) under three predicates) with every prefetch strategy",
    .panels = {{.label = "SF 1",
                .arguments = {"--set", "queries=6", "--threads", "1,2"},
                .quick_arguments = {"--set", "queries=6", "--threads", "1", "--set", "scale=0.01", "--repetitions", "1"}}},
    .axes = {.x = "technique", .y = "speedup_vs_naive", .series = {"threads"},
             .x_label = "prefetch strategy", .y_label = "speedup over no prefetching"},
    .paper = {paper_claim("MxTasks §7.3 (Fig. 7.9)", "prefetching l_shipdate entirely: about 10 % faster",
                          {{"technique", "whole_column"}}, statistic::maximum, 1.10, 1.10, shape_rule::same_side_of(1),
                          "no cache-miss heat maps here (no hardware counters); time only")},
}};

const figure_registration task_size_figure{figure{
    .name = "mxtasks-fig7-13-task-size",
    .experiment = "tpch-task-size",
    .reproduces = "MxTasks Fig. 7.13 (tuples per task, 32 to 65,536)",
    .summary = "sum(l_quantity) and Q1 without its filter against tuples per task, 1 and 2 workers",
    .panels = {{.label = "SF 1",
                .arguments = {"--threads", "1,2"},
                .quick_arguments = {"--threads", "1", "--set", "scale=0.01", "--repetitions", "1"}}},
    .axes = {.x = "tuples_per_task", .y = "ms", .series = {"structure", "threads"},
             .x_label = "tuples per task", .y_label = "milliseconds"},
    .paper = {paper_claim("MxTasks §7.3 (Fig. 7.13)", "task overhead negligible from 1,024 tuples per task",
                          {{"tuples_per_task", "1024"}}, statistic::maximum, 0.0, 0.05, shape_rule{},
                          "paper: 48 cores, SF 50", "overhead_vs_best")},
}};

const figure_registration join_probe_figure{figure{
    .name = "tpch-join-probe-interleaving",
    .experiment = "tpch-join-probes",
    .reproduces = "MxTasks §7.3's unprefetched join misses (Q3, Q5, Q10), interleaved by braid",
    .summary = "speedup of group-prefetched hash-join probes over one probe at a time, per TPC-H query",
    .panels = {{.label = "SF 1",
                .arguments = {"--threads", "1,2", "--group", "4,8,16,32"},
                .quick_arguments = {"--threads", "1", "--group", "16", "--set", "scale=0.01", "--repetitions", "1"}}},
    .axes = {.x = "group", .y = "speedup_vs_naive", .series = {"structure", "threads"},
             .x_label = "probes in flight", .y_label = "speedup over one probe at a time"},
}};

const figure_registration absolute_figure{figure{
    .name = "tpch-sf10-q1-q6",
    .experiment = "tpch-prefetch",
    .reproduces = "the query layer's absolute speed: Q1 and Q6 at scale factor 10 on 2 workers",
    .summary = "seconds of Q1 and Q6 at SF 10 and the share of the read bandwidth they reach",
    .panels = {{.label = "SF 10, 2 workers",
                .arguments = {"--set", "queries=1,6", "--set", "scale=10", "--threads", "2", "--technique",
                              "none,automatic", "--repetitions", "3"},
                .quick_arguments = {"--set", "queries=1,6", "--set", "scale=0.01", "--threads", "2", "--technique",
                                    "none,automatic", "--repetitions", "1"}}},
    .axes = {.x = "structure", .y = "ms", .series = {"technique"}, .x_label = "query", .y_label = "milliseconds"},
}};

}  // namespace
}  // namespace braid::bench
