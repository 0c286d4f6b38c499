// Figure presets of the transaction engine run as interleaved coroutines (txn-ycsb's
// coroutine-to-transaction executions): CoroBase Fig. 6 (YCSB read-only, 10 reads per
// transaction, against threads) and Fig. 16 (throughput and latency against the batch size).
#include <string>
#include <vector>

#include "figures.hpp"

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
    .summary = "YCSB read-only transactions in strict batches of 1 to 16, log none, 1 thread: commits/s and "
               "latency percentiles",
    .panels = {{.label = "DRAM-resident, 1 thread",
                .arguments = {"--threads", "1", "--technique", "snapshot", "--dist", "uniform", "--set", "log=none",
                              "--set", "mix=read-only", "--set", "execution=interleaved", "--set",
                              "batch=1,2,4,8,12,16"},
                .quick_arguments = {"--threads", "1", "--technique", "snapshot", "--set", "log=memory", "--set",
                                    "mix=read-only", "--set", "execution=interleaved", "--set", "batch=1,4",
                                    "--repetitions", "1"}}},
    .axes = {.x = "batch", .y = "commits_per_s", .series = {"threads"},
             .x_label = "transactions per batch", .y_label = "transactions per second"},
    .paper = {paper_claim("CoroBase §5.1/§5.9 (Fig. 16)", "the best throughput at a batch of eight",
                          {{"execution", "interleaved"}}, statistic::at_best, 8, 8, shape_rule::within_factor(2),
                          machine_caveat, "batch")},
}};

}  // namespace
}  // namespace braid::bench
