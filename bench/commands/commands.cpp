#include "commands.hpp"

#include <algorithm>

namespace braid::bench {

const std::vector<command>& commands() {
  static const std::vector<command> all = {
      {"headline", "headline [--quick] [--full-size] [--out DIR]",
       "the main job: headline table, report and plots in results/ (what `make bench` runs)", headline_command},
      {"join", "join --build FILE --build-key COL --probe FILE --probe-key COL [options]",
       "joins two .tbl files by every join algorithm, each timed, all checked equal; `braid-bench join --help`",
       join_command},
      {"list", "list [--names]", "experiments and figure presets, one a line, with the figure they reproduce",
       list_command},
      {"query", "query --data DIR --query Q,... [options]",
       "TPC-H queries as task pipelines over .tbl files: rows and times; `braid-bench query --help`", query_command},
      {"roofline", "roofline [options]",
       "this machine's dependent-load latency and memory-level parallelism (k = 1..64 chases)", roofline_command},
      {"run", "run NAME [options]", "run one experiment or figure preset; `braid-bench run --help` for the options",
       run_command},
      {"table", "table --schema S --csv FILE QUERY [options]",
       "the column store's IN-predicate or SELECT by key over a CSV file; `braid-bench table --help`", table_command},
      {"tpch", "tpch --scale SF --out DIR [options]",
       "writes the TPC-H tables as .tbl files, deterministic for a seed; `braid-bench tpch --help`", tpch_command},
      {"workload", "workload --ycsb W --records N [options]",
       "writes YCSB workload files (fill + run); `braid-bench workload --help`", workload_command},
  };
  return all;
}

bool asks_for_help(const std::vector<std::string>& arguments) {
  return std::any_of(arguments.begin(), arguments.end(),
                     [](const std::string& argument) { return argument == "--help" || argument == "-h"; });
}

}  // namespace braid::bench
