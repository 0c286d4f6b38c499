// Figure presets of the transaction engine run as interleaved coroutines (txn-ycsb's
// coroutine-to-transaction executions): CoroBase Fig. 5 (multi_get baselines), Fig. 6 (YCSB
// read-only, 10 reads per transaction, against threads), Fig. 7 (reads per transaction),
// Fig. 8 (update-only and read-modify-write), Fig. 9 (scans), Fig. 10 (key length), Fig. 11
// (table size), Fig. 12 (skew) and Fig. 16 (throughput and latency against the batch size).
#include <initializer_list>
#include <string>
#include <vector>

#include "figures.hpp"
#include "headline.hpp"

namespace braid::bench {
namespace {

const std::string machine_caveat = "paper: 50 M records on 48 cores (96 hyperthreads); ours: 2 cores, 16x the LLC";

const figure_registration read_only_figure{figure{
    .name = "corobase-fig6-ycsb-read-only",
    .experiment = "txn-ycsb",
    .reproduces = "CoroBase Fig. 6 (YCSB read-only, 10 reads per transaction, coroutine-to-transaction vs sequential)",
    .summary = "read-only transactions of 10 uniform reads, log none: the plain engine against strict and refilled "
               "batches of 8 interleaved transactions, 1 and 2 threads",
    .panels = {{.label = "DRAM-resident",
                .arguments = {"--threads", "1,2", "--group", "1", "--technique", "snapshot", "--dist", "uniform", "--set",
                              "log=none", "--set", "mix=read-only", "--set",
                              "execution=plain,interleaved,interleaved-refill", "--set", "batch=8"},
                .quick_arguments = {"--threads", "1", "--group", "1", "--technique", "snapshot", "--set", "log=memory",
                                    "--set", "mix=read-only", "--set", "execution=plain,interleaved", "--set", "batch=8",
                                    "--repetitions", "1"}}},
    .axes = {.x = "execution", .y = "commits_per_s", .series = {"threads"},
             .x_label = "execution", .y_label = "transactions per second"},
    .paper = {paper_claim("CoroBase §5.4 (Fig. 6)",
                          "coroutine-to-transaction up to ~1.8x the prefetch-optimised sequential engine without "
                          "hyperthreads",
                          {{"execution", "interleaved"}}, statistic::maximum, 1.8, 1.8, shape_rule::same_side_of(1),
                          machine_caveat, "speedup_vs_plain")},
}};

const figure_registration batch_figure{figure{
    .name = "corobase-fig16-batch-size",
    .experiment = "txn-ycsb",
    .reproduces = "CoroBase Fig. 16 (transaction latency and throughput against the batch size)",
    .summary = "YCSB transactions of 2 read-modify-writes and 8 reads (the paper's mixed workload), and read-only "
               "ones, in strict batches of 1 to 16, async log, 1 thread: commits/s and latency percentiles",
    .panels = {{.label = "2rmw-8r",
                .arguments = {"--threads", "1", "--technique", "snapshot", "--dist", "uniform", "--set", "log=async",
                              "--set", "mix=2rmw-8r", "--set", "execution=interleaved", "--set",
                              "batch=1,2,4,8,12,16"},
                .quick_arguments = {"--threads", "1", "--technique", "snapshot", "--set", "log=memory", "--set",
                                    "mix=2rmw-8r", "--set", "execution=interleaved", "--set", "batch=1,4",
                                    "--repetitions", "1"}},
               {.label = "read-only",
                .arguments = {"--threads", "1", "--technique", "snapshot", "--dist", "uniform", "--set", "log=async",
                              "--set", "mix=read-only", "--set", "execution=interleaved", "--set",
                              "batch=1,2,4,8,12,16"},
                .quick_arguments = {"--threads", "1", "--technique", "snapshot", "--set", "log=memory", "--set",
                                    "mix=read-only", "--set", "execution=interleaved", "--set", "batch=1,4",
                                    "--repetitions", "1"}}},
    .axes = {.x = "batch", .y = "commits_per_s", .y2 = "latency_p50_us", .series = {"panel"},
             .x_label = "transactions per batch", .y_label = "transactions per second"},
    .paper = {paper_claim("CoroBase §5.1/§5.9 (Fig. 16)", "the best throughput at a batch of eight",
                          {{"execution", "interleaved"}}, statistic::at_best, 8, 8, shape_rule::within_factor(2),
                          machine_caveat, "batch")},
}};

// The arguments every panel of the sweeps below shares: one thread, snapshot isolation, no log,
// the plain engine against strict batches of 8 (flattened and nested).
std::vector<std::string> sweep_arguments(std::initializer_list<std::string> specific, bool quick) {
  std::vector<std::string> arguments = {"--threads", "1", "--group", "1", "--technique", "snapshot",
                                        "--set", quick ? "log=memory" : "log=none", "--set",
                                        "execution=plain,interleaved,interleaved-nested", "--set", "batch=8"};
  if (quick) arguments.insert(arguments.end(), {"--keys", "20000", "--set", "transactions=500", "--repetitions", "1"});
  arguments.insert(arguments.end(), specific);
  return arguments;
}

panel sweep_panel(std::string label, std::initializer_list<std::string> specific) {
  return {.label = std::move(label), .arguments = sweep_arguments(specific, false),
          .quick_arguments = sweep_arguments(specific, true)};
}

const plot_axes by_execution{.x = "execution", .y = "commits_per_s", .series = {"panel"},
                             .x_label = "execution", .y_label = "transactions per second"};

const figure_registration multi_get_figure{figure{
    .name = "corobase-fig5-multi-get",
    .experiment = "txn-ycsb",
    .reproduces = "CoroBase Fig. 5 (multi_get of 10 keys: AMAC, flattened and sequential, beside interleaved "
                  "transactions)",
    .summary = "read-only transactions of 10 reads, 1 thread, log none: the plain engine, multi_get by AMAC and by "
               "flattened and nested coroutines, and strict batches of interleaved transactions (flattened and nested)",
    .panels = {{.label = "DRAM-resident",
                .arguments = {"--threads", "1", "--group", "1", "--technique", "snapshot", "--dist", "uniform", "--set",
                              "log=none", "--set", "mix=read-only", "--set",
                              "execution=plain,interleaved,interleaved-nested,multi-get-coroutines,multi-get-nested,multi-get-amac",
                              "--set", "batch=8,10"},
                .quick_arguments = {"--threads", "1", "--group", "1", "--technique", "snapshot", "--set", "log=memory",
                                    "--set", "mix=read-only", "--set",
                                    "execution=plain,interleaved,multi-get-coroutines,multi-get-nested,multi-get-amac",
                                    "--set", "batch=10", "--repetitions", "1"}}},
    .axes = {.x = "execution", .y = "commits_per_s", .series = {"batch"},
             .x_label = "execution", .y_label = "transactions per second"},
    .paper = {paper_ratio("CoroBase §5.3 (Fig. 5 caption)",
                          "flattened coroutines (CORO-MK) 8-10 % below AMAC under high concurrency",
                          {{"execution", "multi-get-coroutines"}}, {{"execution", "multi-get-amac"}}, "commits_per_s",
                          statistic::maximum, 0.91, shape_rule::within_factor(1.2), machine_caveat)},
}};

const figure_registration reads_figure{figure{
    .name = "corobase-fig7-reads-per-transaction",
    .experiment = "txn-ycsb",
    .reproduces = "CoroBase Fig. 7 (read-only transactions of 1 to 20 reads)",
    .summary = "read-only transactions of 1, 5, 10 and 20 reads: plain against strict batches of 8, flattened and "
               "nested, 1 thread",
    .panels = {sweep_panel("1 read", {"--set", "mix=read-only", "--set", "ops=1"}),
               sweep_panel("5 reads", {"--set", "mix=read-only", "--set", "ops=5"}),
               sweep_panel("10 reads", {"--set", "mix=read-only", "--set", "ops=10"}),
               sweep_panel("20 reads", {"--set", "mix=read-only", "--set", "ops=20"})},
    .axes = by_execution,
    .paper = {paper_ratio("CoroBase §5.3 (Fig. 5 caption)",
                          "fully nested coroutines ~30 % slower than AMAC, flattened ones 8-10 % (flattened about "
                          "1.25x nested)",
                          {{"execution", "interleaved"}}, {{"execution", "interleaved-nested"}}, "commits_per_s",
                          statistic::minimum, 1.25, shape_rule::same_side_of(1), machine_caveat)},
}};

const figure_registration writes_figure{figure{
    .name = "corobase-fig8-updates",
    .experiment = "txn-ycsb",
    .reproduces = "CoroBase Fig. 8 (update-only and read-modify-write YCSB transactions)",
    .summary = "transactions of 10 blind writes, of 10 read-modify-writes, and of 2 read-modify-writes + 8 reads: "
               "plain against strict batches of 8, 1 thread, log none",
    .panels = {sweep_panel("update-only", {"--set", "mix=update-only"}), sweep_panel("rmw", {"--set", "mix=rmw"}),
               sweep_panel("2rmw-8r", {"--set", "mix=2rmw-8r"})},
    .axes = by_execution,
    .paper = {paper_claim("CoroBase §5.5 (Fig. 8)", "up to 1.77x over the naive engine on update-only YCSB",
                          {{"execution", "interleaved"}, {"mix", "update-only"}}, statistic::maximum, 1.77, 1.77,
                          shape_rule::same_side_of(1), machine_caveat, "speedup_vs_plain")},
}};

const figure_registration scans_figure{figure{
    .name = "corobase-fig9-scans",
    .experiment = "txn-ycsb",
    .reproduces = "CoroBase Fig. 9 (scans)",
    .summary = "transactions of 10 scans of 1..100 records (and 1..10): plain against strict batches of 8, 1 thread",
    .panels = {sweep_panel("scans of 1..100", {"--set", "mix=scan", "--set", "scan-length=100"}),
               sweep_panel("scans of 1..10", {"--set", "mix=scan", "--set", "scan-length=10"})},
    .axes = by_execution,
}};

const figure_registration keys_figure{figure{
    .name = "corobase-fig10-key-length",
    .experiment = "txn-ycsb",
    .reproduces = "CoroBase Fig. 10 (key length)",
    .summary = "read-only transactions of 10 reads over 8-, 32- and 64-byte keys (a common prefix: more Masstree "
               "layers): plain against strict batches of 8, 1 thread",
    .panels = {sweep_panel("8-byte keys", {"--set", "mix=read-only", "--set", "key-bytes=8"}),
               sweep_panel("32-byte keys", {"--set", "mix=read-only", "--set", "key-bytes=32"}),
               sweep_panel("64-byte keys", {"--set", "mix=read-only", "--set", "key-bytes=64"})},
    .axes = by_execution,
}};

const figure_registration size_figure{figure{
    .name = "corobase-fig11-table-size",
    .experiment = "txn-ycsb",
    .reproduces = "CoroBase Fig. 11 (table size down to 10 K records)",
    .summary = "read-only transactions of 10 reads over 10 K, 1 M and the DRAM-resident count of records: plain "
               "against strict batches of 8, 1 thread",
    .panels = {{.label = "10 K records",
                .arguments = {"--threads", "1", "--group", "1", "--technique", "snapshot", "--keys", "10000", "--set",
                              "log=none", "--set", "mix=read-only", "--set",
                              "execution=plain,interleaved,interleaved-nested", "--set", "batch=4,8"},
                .quick_arguments = sweep_arguments({"--set", "mix=read-only"}, true)},
               {.label = "1 M records",
                .arguments = {"--threads", "1", "--group", "1", "--technique", "snapshot", "--keys", "1000000",
                              "--set", "log=none", "--set", "mix=read-only", "--set",
                              "execution=plain,interleaved,interleaved-nested", "--set", "batch=4,8"},
                .quick_arguments = sweep_arguments({"--set", "mix=read-only"}, true)},
               sweep_panel("DRAM-resident", {"--set", "mix=read-only"})},
    .axes = by_execution,
    .paper = {paper_claim("CoroBase §5.6 (Fig. 11)", "up to 12.64 % slower than naive when the data fits in the LLC",
                          {{"execution", "interleaved"}}, statistic::minimum, 0.87, 0.87, shape_rule{}, machine_caveat,
                          "speedup_vs_plain")},
}};

const figure_registration skew_figure{figure{
    .name = "corobase-fig12-skew",
    .experiment = "txn-ycsb",
    .reproduces = "CoroBase Fig. 12 (skew: Zipfian theta)",
    .summary = "read-only transactions of 10 reads, uniform and Zipfian 0.5 / 0.9 / 0.99: plain against strict "
               "batches of 8, 1 thread",
    .panels = {sweep_panel("uniform", {"--set", "mix=read-only", "--dist", "uniform"}),
               sweep_panel("zipf 0.5", {"--set", "mix=read-only", "--dist", "zipf:0.5"}),
               sweep_panel("zipf 0.9", {"--set", "mix=read-only", "--dist", "zipf:0.9"}),
               sweep_panel("zipf 0.99", {"--set", "mix=read-only", "--dist", "zipf:0.99"})},
    .axes = by_execution,
}};

// ---- TPC-C (the tpcc experiment; hybrid: New-Order and Stock-Level read by multi_get) ----

// 2 warehouses, 1 and 2 threads, batches of 4 and 8 (quick: the experiment's quick size, 1
// thread, batches of 4, one pass).
std::vector<std::string> tpcc_arguments(const std::string& mix, bool quick,
                                        const std::string& executions = "plain,interleaved,interleaved-refill,hybrid") {
  std::vector<std::string> arguments = {"--set", "mix=" + mix, "--set", "execution=" + executions};
  if (quick) {
    arguments.insert(arguments.end(), {"--threads", "1", "--set", "batch=4", "--repetitions", "1"});
  } else {
    arguments.insert(arguments.end(), {"--threads", "1,2", "--set", "batch=4,8", "--set", "warehouses=2"});
  }
  return arguments;
}

const plot_axes tpcc_axes{.x = "execution", .y = "commits_per_s", .series = {"threads", "batch"},
                          .x_label = "execution", .y_label = "transactions per second"};

const figure_registration tpcc_figure{figure{
    .name = "corobase-table2-tpcc",
    .experiment = "tpcc",
    .reproduces = "CoroBase Table 2 (TPC-C: the coroutine-to-transaction engine against the sequential one)",
    .summary = "TPC-C's standard mix on 2 warehouses, plain against strict and refilled batches of 4 and 8 and "
               "hybrid, 1 and 2 threads, consistency checked after every configuration",
    .panels = {{.label = "TPC-C", .arguments = tpcc_arguments("tpcc", false), .quick_arguments = tpcc_arguments("tpcc", true)}},
    .axes = tpcc_axes,
    .paper = {paper_claim("CoroBase §5.8 (Table 2)", "about parity with ERMIA on TPC-C (+0.16 % without hyperthreads)",
                          {{"execution", "interleaved"}}, statistic::maximum, 1.0016, 1.0016,
                          shape_rule::within_factor(1.25),
                          "paper: 1000 warehouses, 48 threads, each on its home warehouse; ours: 2 warehouses, 1-2 "
                          "threads (hot WAREHOUSE/DISTRICT rows: more write conflicts)",
                          "speedup_vs_plain")},
}};

const figure_registration tpcc_r_figure{figure{
    .name = "corobase-fig14-tpcc-r",
    .experiment = "tpcc",
    .reproduces = "CoroBase Fig. 14 (TPC-CR: 50 % Stock-Level, 50 % Order-Status, read-only)",
    .summary = "TPC-CR on 2 warehouses, plain against strict and refilled batches of 4 and 8 and hybrid, 1 and 2 "
               "threads",
    .panels = {{.label = "TPC-CR",
                .arguments = tpcc_arguments("tpcc-r", false),
                .quick_arguments = tpcc_arguments("tpcc-r", true)}},
    .axes = tpcc_axes,
    .paper = {paper_claim("CoroBase §5.8 (Fig. 14)", "up to 1.3x (no hyperthreads) the sequential engine on TPC-CR",
                          {{"execution", "interleaved"}}, statistic::maximum, 1.3, 1.3, shape_rule::same_side_of(1),
                          "paper: 1000 warehouses, 48 threads; ours: 2 warehouses, 1-2 threads", "speedup_vs_plain")},
}};

std::vector<std::string> with_suppliers(std::vector<std::string> arguments, const std::string& suppliers) {
  arguments.insert(arguments.end(), {"--set", "suppliers=" + suppliers});
  return arguments;
}

const figure_registration tpcc_ch_figure{figure{
    .name = "corobase-fig15-tpcc-ch",
    .experiment = "tpcc",
    .reproduces = "CoroBase Fig. 15 (TPC-CH: TPC-C plus 10 % Q2*, against threads and the number of suppliers)",
    .summary = "TPC-CH on 2 warehouses with 100 and 1,000 suppliers (Q2*'s size), plain against interleaved "
               "batches and hybrid",
    .panels = {{.label = "100 suppliers",
                .arguments = with_suppliers(tpcc_arguments("tpcc-ch", false), "100"),
                .quick_arguments = with_suppliers(tpcc_arguments("tpcc-ch", true), "100")},
               {.label = "1000 suppliers",
                .arguments = with_suppliers(tpcc_arguments("tpcc-ch", false, "plain,interleaved,hybrid"), "1000"),
                .quick_arguments = with_suppliers(tpcc_arguments("tpcc-ch", true, "plain,interleaved,hybrid"), "1000")}},
    .axes = {.x = "execution", .y = "commits_per_s", .series = {"panel", "threads", "batch"},
             .x_label = "execution", .y_label = "transactions per second"},
    .paper = {paper_claim("CoroBase §5.8 (Fig. 15)", "25-39 % more throughput than ERMIA on TPC-CH",
                          {{"execution", "interleaved"}}, statistic::maximum, 1.25, 1.39, shape_rule::same_side_of(1),
                          "paper: 1000 warehouses, 48 threads, 100 x suppliers; ours: 2 warehouses, 1-2 threads",
                          "speedup_vs_plain"),
              paper_ratio("CoroBase §5.8", "Hybrid up to 1.36x CoroBase on TPC-CH", {{"execution", "hybrid"}},
                          {{"execution", "interleaved"}}, "commits_per_s", statistic::maximum, 1.36,
                          shape_rule::same_side_of(1), "as above")},
}};

// The headline's line for the engine: its rows' technique is the isolation level, so the
// summary names each row by its execution (plain is the baseline; AMAC multi_get, the
// hand-written intra-transaction batching, is the peer).
headline_summary by_execution_summary() {
  return [compare = compare_with_naive_and_peers(
                      {.baselines = {"plain"},
                       .peers = {"multi-get-amac"},
                       .split_by = {},
                       .peer_compares = "the same reads by a hand-written AMAC multi_get (CoroBase's AMAC-MK)",
                       .peer_compares_for = {}})](
             const std::vector<result_row>& rows, const std::string& name) {
    std::vector<result_row> relabelled = rows;
    for (result_row& row : relabelled) {
      if (const field_value* execution = row.find("execution")) row.set("technique", *execution);
      if (const field_value* batch = row.find("batch")) row.set("group", *batch);
    }
    return compare(relabelled, name);
  };
}

const std::vector<std::string> headline_arguments = {
    "--threads", "1", "--group", "1", "--technique", "snapshot", "--dist", "uniform", "--set", "log=none", "--set",
    "mix=read-only", "--set", "execution=plain,interleaved,multi-get-amac", "--set", "batch=8"};

std::vector<std::string> with(std::vector<std::string> arguments, std::initializer_list<std::string> more) {
  arguments.insert(arguments.end(), more);
  return arguments;
}

const headline_registration engine_headline{
    read_only_figure,
    headline_entry{
        .name = "transaction engine (YCSB read-only)",
        .panels = {{.label = "DRAM-resident",
                    .arguments = with(headline_arguments, {"--size", "dram", "--repetitions", "3"}),
                    .quick_arguments = with(headline_arguments, {"--repetitions", "1"})},
                   {.label = "10 K records",
                    .arguments = with(headline_arguments, {"--keys", "10000", "--repetitions", "5"}),
                    .quick_arguments = with(headline_arguments, {"--keys", "10000", "--repetitions", "1"})}},
        .budget_seconds = 45,
        .summarize = by_execution_summary(),
    }};

}  // namespace
}  // namespace braid::bench
