// braid-bench run EXPERIMENT [options]: one experiment, its table, CSV and JSON lines.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "experiment.hpp"

namespace braid::bench {
namespace {

constexpr const char* run_help = R"(usage: braid-bench run EXPERIMENT [options]

options (each experiment accepts the subset `braid-bench run EXPERIMENT --help` lists):
  --size S[,S...]        data size: 4096, 64KiB, 1.5MiB, 1GiB (KB/MB/GB are decimal)
  --keys N               operations per repetition
  --group G[,G...]       operations in flight per thread (1..4096)
  --threads T[,T...]     worker threads, each pinned to its own CPU
  --technique A[,B...]   techniques to run (default: all the experiment knows)
  --dist D               key distribution: uniform | zipf[:theta] (YCSB, theta in (0,1)) | sorted
  --pages P              page size of the big arrays: 4k | 2m (transparent huge pages)
  --workload FILL RUN    YCSB-style workload files (braid-bench workload writes them)
  --repetitions N        timed repetitions per technique (medians are reported)
  --seed N               seed of every generator (recorded in the output)
  --quick                small sizes and few repetitions: a smoke test in seconds
  --format F             table (default) | csv | json (one JSON object per line)
  --out DIR              also write DIR/EXPERIMENT.csv and DIR/EXPERIMENT.jsonl
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
  std::cout << " --repetitions --seed --quick --format --out\n";
  if (!definition.techniques.empty()) {
    std::cout << "techniques:";
    for (const std::string& technique : definition.techniques) std::cout << ' ' << technique;
    std::cout << '\n';
  }
}

void write_outputs(const run_context& context, const options& given) {
  run_metadata metadata = run_metadata::collect();
  metadata.facts["seed"] = std::to_string(context.seed());
  for (const auto& [key, value] : context.notes()) metadata.facts[key] = value;

  switch (given.format) {
    case output_format::table:
      for (const auto& [key, value] : metadata.facts) std::cout << "# " << key << ": " << value << '\n';
      write_table(std::cout, context.rows());
      break;
    case output_format::csv: write_csv(std::cout, context.rows(), metadata); break;
    case output_format::json: write_json_lines(std::cout, context.rows(), metadata); break;
  }
  if (given.out_dir) {
    const std::filesystem::path directory(*given.out_dir);
    std::filesystem::create_directories(directory);
    const std::string name = context.definition().name;
    std::ofstream csv(directory / (name + ".csv"));
    write_csv(csv, context.rows(), metadata);
    std::ofstream json(directory / (name + ".jsonl"));
    write_json_lines(json, context.rows(), metadata);
    if (!csv || !json) throw std::runtime_error("could not write results to " + directory.string());
  }
}

int run_experiment(const std::vector<std::string>& arguments) {
  if (arguments.empty()) throw usage_error("run: which experiment? (braid-bench list shows them)");
  if (arguments[0] == "--help" || arguments[0] == "-h") {
    std::cout << run_help;
    return 0;
  }
  const experiment* definition = find_experiment(arguments[0]);
  if (definition == nullptr) {
    throw usage_error("unknown experiment '" + arguments[0] + "' (braid-bench list shows them)");
  }
  const std::vector<std::string> rest(arguments.begin() + 1, arguments.end());
  for (const std::string& argument : rest) {
    if (argument == "--help" || argument == "-h") {
      print_experiment_help(*definition);
      return 0;
    }
  }
  options given = parse_run_options(rest);
  check_options(*definition, given);
  run_context context(*definition, given, std::cerr);
  definition->run(context);
  context.progress("done\n");
  write_outputs(context, given);
  return 0;
}

const command_registration run{command{
    .name = "run",
    .usage = "run EXPERIMENT [options]",
    .summary = "run one experiment; `braid-bench run --help` for the options",
    .run = run_experiment,
}};

}  // namespace
}  // namespace braid::bench
