// braid-bench run NAME [options]: one experiment or figure preset; its table, CSV and JSON
// lines, plot and report section.
#include <iostream>

#include "commands.hpp"
#include "experiment.hpp"
#include "figure_run.hpp"

namespace braid::bench {
namespace {

constexpr const char* run_help = R"(usage: braid-bench run EXPERIMENT|FIGURE [options]

Runs an experiment, or a figure preset (an experiment with the options that reproduce a paper's
figure, one run per panel; options given here override the preset's). `braid-bench list` shows
both.

options (each experiment accepts the subset `braid-bench run NAME --help` lists):
  --size S[,S...]        data size: 4096, 64KiB, 1.5MiB, 1GiB (KB/MB/GB are decimal), or dram:
                         16x this machine's last-level cache (the DRAM panels' default)
  --keys N               operations per repetition
  --group G[,G...]       operations in flight per thread (1..4096)
  --threads T[,T...]     worker threads, each pinned to its own CPU (at most the CPUs available)
  --technique A[,B...]   techniques to run (default: all the experiment knows)
  --dist D               key distribution: uniform | zipf[:theta] (YCSB, theta in (0,1)) | sorted
  --pages P              page size of the big arrays: 4k | 2m (transparent huge pages)
  --workload FILL RUN    YCSB-style workload files (braid-bench workload writes them)
  --set NAME=VALUE       a setting of the experiment (repeatable; `run NAME --help` lists them)
  --repetitions N        timed repetitions per technique (medians are reported)
  --seed N               seed of every generator (recorded in the output)
  --quick                small sizes and few repetitions: a smoke test in seconds
  --format F             table (default) | csv | json (one JSON object per line)
  --callgrind            also count instructions per operation: reruns the same command under
                         valgrind's callgrind (use with --quick or small sizes; see README)
  --out DIR              also write DIR/NAME.csv, DIR/NAME.jsonl, the plot DIR/NAME.png and
                         DIR/NAME.md (the papers' numbers beside ours)
)";

void print_experiment_help(const experiment& definition) {
  std::cout << "usage: braid-bench run " << definition.name << " [options]\n\n"
            << definition.summary << "\nreproduces: " << definition.reproduces << "\n\naccepted options:";
  const std::pair<unsigned, const char*> flags[] = {
      {accepts_size, "--size"},       {accepts_keys, "--keys"}, {accepts_group, "--group"},
      {accepts_threads, "--threads"}, {accepts_technique, "--technique"},
      {accepts_dist, "--dist"},       {accepts_pages, "--pages"}, {accepts_workload, "--workload"}};
  for (const auto& [flag, name] : flags) {
    if (definition.accepted & flag) std::cout << ' ' << name;
  }
  std::cout << " --repetitions --seed --quick --callgrind --format --out\n";
  if (!definition.settings.empty()) {
    std::cout << "settings (--set NAME=VALUE):\n";
    for (const experiment_setting& setting : definition.settings) {
      std::cout << "  " << setting.name << '=' << setting.values << "\n      " << setting.meaning << '\n';
    }
  }
  if (!definition.techniques.empty()) {
    std::cout << "techniques:";
    for (const std::string& technique : definition.techniques) std::cout << ' ' << technique;
    std::cout << '\n';
  }
}

std::string describe_filter(const row_filter& filter) {
  std::string text;
  for (const auto& [field, value] : filter) text += (text.empty() ? "" : ", ") + field + "=" + value;
  return text.empty() ? "all rows" : text;
}

void print_figure_help(const figure& definition) {
  const experiment* runner = find_experiment(definition.experiment);
  std::cout << "usage: braid-bench run " << definition.name << " [options]\n\n"
            << "figure preset: " << definition.reproduces << "\n";
  if (!definition.summary.empty()) std::cout << definition.summary << "\n";
  std::cout << "runs experiment '" << definition.experiment << "' once per panel; options given here override the "
            << "preset's in every panel, --quick uses the quick arguments.\n\npanels:\n";
  for (const panel& current : definition.panels) {
    std::cout << "  " << (current.label.empty() ? "(unlabelled)" : current.label) << ":";
    for (const std::string& word : current.arguments) std::cout << ' ' << word;
    std::cout << "\n    --quick:";
    for (const std::string& word : current.quick_arguments) std::cout << ' ' << word;
    std::cout << '\n';
  }
  if (!definition.paper.empty()) {
    std::cout << "\npaper numbers compared in the report (ours: statistic of field over the rows):\n";
    const char* statistics[] = {"maximum", "minimum", "range", "at best"};
    for (const paper_number& number : definition.paper) {
      std::cout << "  " << number.source << ": \"" << number.claim << "\" = " << paper_text(number) << "\n    ours: "
                << statistics[static_cast<int>(number.computed)] << " of " << number.field << " over "
                << describe_filter(number.where);
      if (!number.relative_to.empty()) std::cout << ", relative to " << describe_filter(number.relative_to);
      std::cout << '\n';
    }
  }
  if (!definition.model.techniques.empty()) {
    std::cout << "\nanalytical model (thesis §3.1) evaluated for:";
    for (const std::string& technique : definition.model.techniques) std::cout << ' ' << technique;
    std::cout << '\n';
  }
  if (runner != nullptr) {
    std::cout << '\n';
    print_experiment_help(*runner);
  }
}

}  // namespace

int run_command(const std::vector<std::string>& arguments) {
  if (arguments.empty()) throw usage_error("run: which experiment or figure? (braid-bench list shows them)");
  if (arguments[0] == "--help" || arguments[0] == "-h") {
    std::cout << run_help;
    return 0;
  }
  const std::vector<std::string> rest(arguments.begin() + 1, arguments.end());
  if (asks_for_help(rest)) {
    if (const figure* preset = find_figure(arguments[0])) {
      print_figure_help(*preset);
    } else if (const experiment* definition = find_experiment(arguments[0])) {
      print_experiment_help(*definition);
    } else {
      throw usage_error("unknown experiment or figure '" + arguments[0] + "' (braid-bench list shows them)");
    }
    return 0;
  }
  return run_named(arguments[0], rest);
}

}  // namespace braid::bench
