// braid-bench headline: what `make bench` runs. Every registered headline entry (headline.hpp),
// in order: the roofline probe first, then the machinery, then each structure's budgeted
// configuration. Prints the headline tables and the time of each part against its budget;
// writes every part's CSV, JSON lines and plot, the headline tables, and report.md to the
// output directory (results/ by default).
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "commands.hpp"
#include "experiment.hpp"
#include "figure_run.hpp"
#include "headline.hpp"
#include "report.hpp"

namespace braid::bench {
namespace {

constexpr const char* headline_help = R"(usage: braid-bench headline [--quick] [--full-size] [--out DIR]

Runs the headline: this machine's limits (roofline probe), the cost of the coroutine machinery,
and for each structure its best technique against the naive loop and against what a user would
use instead (the peer), DRAM-resident and cache-resident, with roofline fractions. Budgeted to
10 minutes on 2 cores; the parts share that total (time one part leaves unused goes to the
next), and each part's time is printed beside its budget and its allowance.

  --quick       every part in its quick configuration: seconds (the CI smoke test)
  --full-size   DRAM panels at this machine's full DRAM size (--size dram: 16x the last-level
                cache) even where that is above 1 GiB; by default they are capped at 1 GiB so
                that the headline keeps its 10 minutes on a large cache (rows then say
                "partly cached")
  --out DIR     where the report, tables and plots go (default: results)

Writes DIR/report.md (machine, headline tables, every part's plot and the papers' numbers beside
ours, where ours differs in shape), DIR/headline.csv|.jsonl, DIR/machine.csv|.jsonl and each
part's DIR/NAME.csv|.jsonl|.png.
)";

struct headline_options {
  bool quick = false;
  bool full_size = false;
  std::string out_dir = "results";
};

// The DRAM panels' size in the headline: --size dram, capped at 1 GiB unless --full-size. On
// a 32 MiB cache the cap changes nothing; on a 260 MiB one it keeps ten minutes from becoming
// thirty, and the rows say that the data is partly cached.
constexpr std::size_t headline_dram_cap = std::size_t{1} << 30;

std::vector<panel> capped_dram_panels(std::vector<panel> panels) {
  for (panel& current : panels) {
    for (std::size_t position = 0; position + 1 < current.arguments.size(); ++position) {
      if (current.arguments[position] == "--size" && current.arguments[position + 1] == "dram") {
        current.arguments[position + 1] = format_bytes(headline_dram_cap);
      }
    }
  }
  return panels;
}

headline_options parse_headline_options(const std::vector<std::string>& arguments) {
  headline_options parsed;
  for (std::size_t position = 0; position < arguments.size(); ++position) {
    const std::string& argument = arguments[position];
    if (argument == "--quick") {
      parsed.quick = true;
    } else if (argument == "--full-size") {
      parsed.full_size = true;
    } else if (argument == "--out") {
      if (position + 1 >= arguments.size()) throw usage_error("--out: needs a value");
      parsed.out_dir = arguments[++position];
    } else {
      throw usage_error("headline: unknown option '" + argument + "' (braid-bench headline --help)");
    }
  }
  return parsed;
}

void write_table_files(const std::filesystem::path& directory, const std::string& name, const std::vector<result_row>& rows,
                       const run_metadata& metadata) {
  std::ofstream csv(directory / (name + ".csv"));
  write_csv(csv, rows, metadata);
  std::ofstream json(directory / (name + ".jsonl"));
  write_json_lines(json, rows, metadata);
  if (!csv || !json) throw std::runtime_error("could not write " + (directory / name).string() + ".csv/.jsonl");
}

}  // namespace

int headline_command(const std::vector<std::string>& arguments) {
  if (asks_for_help(arguments)) {
    std::cout << headline_help;
    return 0;
  }
  const headline_options given = parse_headline_options(arguments);
  const std::filesystem::path directory(given.out_dir);
  std::filesystem::create_directories(directory);

  double budget = 0;
  for (const headline_entry& entry : headline_entries()) budget += entry.budget_seconds;
  if (budget > headline_budget_seconds) {
    std::cerr << "braid-bench: headline: the parts' budgets add up to " << format_duration(budget) << ", over the "
              << format_duration(headline_budget_seconds) << " the headline promises\n";
  }

  options user;
  user.quick = given.quick;
  const bool cap_dram = !given.full_size && dram_resident_bytes() > headline_dram_cap;
  if (cap_dram) {
    std::cerr << "braid-bench: headline: DRAM panels at " << format_bytes(headline_dram_cap) << " instead of "
              << format_bytes(dram_resident_bytes()) << " (16x this machine's last-level cache) to keep the "
              << format_duration(headline_budget_seconds) << "; --full-size runs them at full size\n";
  }
  // Results live in `runs`; the report points into it, so it is filled completely first.
  std::vector<figure_result> runs;
  std::vector<const headline_entry*> ran;
  report contents;
  contents.title = std::string("braid-bench headline") + (given.quick ? " --quick" : "");
  const auto start = std::chrono::steady_clock::now();
  // The parts share the total: time a part leaves unused is added to the next part's
  // allowance, and a part that runs over takes it from those after it. A part is over budget
  // when it runs past its allowance; the promise is the total.
  double slack = 0;
  for (const headline_entry& entry : headline_entries()) {
    const figure* preset = find_figure(entry.figure);
    const double allowance = entry.budget_seconds + slack;
    result_row timing;
    timing.set("part", entry.name).set("budget_s", entry.budget_seconds).set("allowance_s", allowance);
    if (preset == nullptr) {
      contents.failures.push_back(entry.name + ": figure '" + entry.figure + "' is not registered");
      timing.set("status", "failed");
      contents.timing.push_back(std::move(timing));
      continue;
    }
    figure definition = *preset;
    if (!entry.panels.empty()) definition.panels = entry.panels;
    if (cap_dram) definition.panels = capped_dram_panels(std::move(definition.panels));
    try {
      runs.push_back(run_figure(definition, user, std::cerr));
      ran.push_back(&entry);
      const double seconds = runs.back().seconds;
      slack = allowance - seconds;
      timing.set("seconds", seconds).set("status", "ok");
      if (!given.quick && seconds > allowance) {
        timing.set("status", "over budget");
        std::cerr << "braid-bench: headline: " << over_allowance_message(entry, seconds, allowance) << '\n';
      }
    } catch (const std::exception& error) {
      contents.failures.push_back(entry.name + ": " + error.what());
      std::cerr << "braid-bench: headline: " << entry.name << " failed: " << error.what() << '\n';
      timing.set("status", "failed");
    }
    contents.timing.push_back(std::move(timing));
  }
  const double total_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result_row total;
  total.set("part", "total").set("budget_s", headline_budget_seconds).set("seconds", total_seconds);
  if (budget > headline_budget_seconds) {
    total.set("status", "parts' budgets over the total");
  } else if (!given.quick && total_seconds > headline_budget_seconds) {
    total.set("status", "over budget");
    std::cerr << "braid-bench: headline: took " << format_duration(total_seconds) << ", over the "
              << format_duration(headline_budget_seconds) << " it promises\n";
  } else {
    total.set("status", "ok");
  }
  contents.timing.push_back(std::move(total));

  run_metadata metadata = run_metadata::collect();
  const std::size_t dram_panel_bytes = cap_dram ? headline_dram_cap : dram_resident_bytes();
  const std::string ratio = last_level_cache_bytes() == 0
                                ? "last-level cache unknown"
                                : format_number(data_to_llc(dram_panel_bytes)) + "x the last-level cache";
  metadata.facts["headline_dram_panels"] =
      format_bytes(dram_panel_bytes) + " (" + ratio +
      (cap_dram ? "; capped from " + format_bytes(dram_resident_bytes()) + ", --full-size lifts the cap)" : ")");
  for (std::size_t index = 0; index < runs.size(); ++index) {
    const headline_entry& entry = *ran[index];
    const run_metadata part = metadata_of(runs[index]);
    for (const auto& [key, value] : part.facts) {
      if (!metadata.facts.contains(key)) metadata.facts[key] = value;
    }
    std::vector<result_row> lines = entry.summarize(runs[index].rows, entry.name);
    std::vector<result_row>& table = entry.table == headline_table::structures ? contents.structures : contents.machine;
    table.insert(table.end(), lines.begin(), lines.end());
  }
  contents.metadata = metadata;

  std::vector<std::string> problems;
  for (const figure_result& run : runs) {
    contents.figures.push_back({&run, write_figure_files(run, metadata_of(run), directory, problems)});
  }
  write_table_files(directory, "headline", contents.structures, metadata);
  write_table_files(directory, "machine", contents.machine, metadata);
  {
    std::ofstream file(directory / "report.md");
    write_report(file, contents);
    if (!file) throw std::runtime_error("could not write " + (directory / "report.md").string());
  }

  std::cout << "# braid-bench headline" << (given.quick ? " --quick (smoke test: sizes too small to mean anything)" : "")
            << "\n# cpu: " << metadata.facts["cpu"] << "; caches: " << metadata.facts["caches"]
            << "; git: " << metadata.facts["git"] << "\n\n";
  std::cout << "Each structure: best technique vs naive vs peer\n";
  write_table(std::cout, contents.structures, structure_columns());
  std::cout << "\nThis machine's limits and the cost of the machinery\n";
  write_table(std::cout, contents.machine, machine_columns());
  std::cout << "\nTime per part (budget: " << format_duration(headline_budget_seconds) << " on 2 cores)\n";
  write_table(std::cout, contents.timing);
  // One line per distinct problem (a missing gnuplot is said once).
  std::vector<std::string> said;
  for (const std::string& problem : problems) {
    if (std::find(said.begin(), said.end(), problem) != said.end()) continue;
    said.push_back(problem);
    std::cerr << "braid-bench: " << problem << '\n';
  }
  std::cout << "\nreport: " << (directory / "report.md").string() << '\n';
  for (const std::string& failure : contents.failures) std::cerr << "braid-bench: headline: failed: " << failure << '\n';
  return contents.failures.empty() ? 0 : 1;
}

}  // namespace braid::bench
