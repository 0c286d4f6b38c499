// Figure presets of the join layer's experiments: MxTasks' micro partitioning (Fig. 6.4) and
// its task-based radix join against Balkesen et al.'s (Fig. 6.8), and the interleaved probe of
// the no-partition hash join (Killer Nanoseconds §3.1's hash probe as a join).
#include <string>
#include <vector>

#include "figures.hpp"

namespace braid::bench {
namespace {

// The paper's per-phase gains of the micro-partitioned join over Balkesen's (Fig. 6.8, averages
// over radix bits on 48 cores), as ours: micro over classical tuples/s in the 2-thread panel.
paper_number micro_join_gain(const std::string& phase, const std::string& fragment, double paper,
                             const std::string& claim) {
  return paper_ratio("MxTasks Fig. 6.8 (radix join, micro vs Balkesen et al.)", claim + " (" + fragment + " tuples)",
                     {{"panel", "2 threads"}, {"technique", "micro"}, {"schedule", "pairs"}, {"fragment_tuples", fragment},
                      {"phase", phase}},
                     {{"panel", "2 threads"}, {"technique", "classical"}, {"phase", phase}}, "tuples_per_s",
                     statistic::maximum, paper, shape_rule::same_side_of(1),
                     "paper: 48 cores, 4 GB probe relation, radix bits varied; ours: 2 cores, 1 GiB, 10 bits");
}

const figure_registration micro_partitioning_figure{figure{
    .name = "mxtasks-fig6-4-micro-partitioning",
    .experiment = "radix-partition",
    .reproduces = "MxTasks Fig. 6.4/6.5 (micro vs classical radix partitioning, with and without write-combine buffers)",
    .summary = "ns per tuple partitioning 1 GiB on one thread against radix bits 4-14",
    .panels = {{.label = "1 GiB, 1 thread",
                .arguments = {"--set", "bits=4,6,8,10,12,14", "--set", "fragment=128,256", "--set", "wc=off,on"},
                .quick_arguments = {"--size", "16MiB", "--set", "bits=4,12", "--set", "fragment=128",
                                    "--set", "wc=off,on", "--repetitions", "1"}}},
    .axes = {.x = "bits", .y = "ns_per_op", .series = {"technique", "fragment_tuples", "wc"},
             .x_label = "radix bits", .y_label = "ns per tuple"},
    .paper = {paper_claim("MxTasks §6.3 (Fig. 6.4b)",
                          "micro partitioning faster than classical, most at high fan-out (12-14 bits)",
                          {{"technique", "micro"}, {"bits", "14"}}, statistic::range, 1.17, 1.25,
                          shape_rule::same_side_of(1),
                          "paper's range is Fig. 6.8's partitioning gain; no STLB counters on this machine",
                          "speedup_vs_classical")},
}};

const figure_registration radix_join_figure{figure{
    .name = "mxtasks-fig6-8-radix-join",
    .experiment = "radix-join",
    .reproduces = "MxTasks Fig. 6.8 (task-based micro-partitioned radix join vs Balkesen et al., per phase)",
    .summary = "tuples/s per phase of the classical and the micro-partitioned radix join, 1 and 2 threads",
    .panels = {{.label = "1 thread",
                .arguments = {"--threads", "1"},
                .quick_arguments = {"--threads", "1", "--size", "16MiB", "--repetitions", "1"}},
               {.label = "2 threads",
                .arguments = {"--threads", "2"},
                .quick_arguments = {"--threads", "2", "--size", "16MiB", "--repetitions", "1"}}},
    .axes = {.x = "fragment_tuples", .y = "tuples_per_s", .series = {"panel", "technique", "phase"},
             .x_label = "micro fragment tuples (0: classical)", .y_label = "input tuples per second"},
    .paper = {micro_join_gain("partition", "128", 1.27, "partitioning 21 % faster on average"),
              micro_join_gain("partition", "256", 1.20, "partitioning 17 % faster on average"),
              micro_join_gain("build+probe", "128", 0.60, "build and probe 66 % slower on average"),
              micro_join_gain("build+probe", "256", 0.69, "build and probe 44 % slower on average"),
              micro_join_gain("total", "128", 1.12, "end to end 11 % faster on average"),
              micro_join_gain("total", "256", 1.11, "end to end 10 % faster on average")},
}};

const figure_registration join_probe_figure{figure{
    .name = "join-probe-interleaving",
    .experiment = "join-no-partition",
    .reproduces = "Killer Nanoseconds §3.1 / Cimple (hash-join probe), as the no-partition join's probe",
    .summary = "probe speedup over naive against group size, hash table 16x the last-level cache",
    .panels = {{.label = "DRAM-resident table",
                .arguments = {"--set", "phase=probe", "--group", "4,8,16,32"},
                .quick_arguments = {"--set", "phase=probe", "--size", "16MiB", "--group", "8", "--repetitions", "1"}}},
    .axes = {.x = "group", .y = "speedup_vs_naive", .series = {"technique"}, .y_label = "probe speedup over naive"},
}};

}  // namespace
}  // namespace braid::bench
