#include "report.hpp"

#include <chrono>
#include <ctime>
#include <ostream>

#include "experiment.hpp"
#include "headline.hpp"

namespace braid::bench {

namespace {

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm parts{};
  ::gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &parts);
  return text;
}

std::string cell(std::string text) {
  std::string escaped;
  for (char c : text) escaped += c == '|' ? std::string("\\|") : std::string(1, c);
  return escaped;
}

// The rows a paper number is compared with: the measured ones or the model's.
comparison compare_in(const paper_number& number, const figure_result& result) {
  return compare(number, number.of_model ? result.model.rows : result.rows);
}

void write_comparisons(std::ostream& out, const figure_result& result) {
  if (result.definition.paper.empty()) return;
  out << "\n#### Ours beside the papers\n\n"
      << "| source | the paper says | paper | ours | shape | conditions that differ |\n"
      << "| --- | --- | ---: | ---: | --- | --- |\n";
  for (const paper_number& number : result.definition.paper) {
    const comparison ours = compare_in(number, result);
    out << "| " << cell(number.source) << " | " << cell(number.claim) << " | " << paper_text(number) << " | "
        << ours.ours_text() << " | " << ours.verdict() << " | " << cell(number.caveat.empty() ? "-" : number.caveat)
        << " |\n";
  }
  out << "\nOurs is computed from this run's rows by the row filter, field and statistic stored with each paper "
         "number (`braid-bench run "
      << result.definition.name << " --help` lists them).\n";
}

void write_model(std::ostream& out, const figure_result& result) {
  if (result.definition.model.techniques.empty()) return;
  out << "\n#### Analytical model (thesis §3.1) beside the measured optimum\n\n";
  if (!result.model.rows.empty()) {
    write_markdown_table(out, result.model.rows);
    out << "\nT_compute is the naive time per operation on cache-resident data of the same work (hardware counters "
           "are not available, so stalls on cache hits count as compute); T_stall = naive − T_compute per miss; "
           "T_switch = (group-1 time − naive time) per suspension. predicted_group is Formula 3.2, "
           "predicted_speedup_max Formula 3.4.\n";
  }
  for (const std::string& skipped : result.model.skipped) out << "\n- not evaluated: " << skipped << '\n';
}

void write_figure(std::ostream& out, const report_figure& entry) {
  const figure_result& result = *entry.result;
  const figure& definition = result.definition;
  out << "\n### " << definition.name << "\n\n"
      << "Reproduces: " << definition.reproduces << ".";
  if (!definition.summary.empty()) out << " " << definition.summary << ".";
  out << "\n\n" << result.rows.size() << " rows in " << format_duration(result.seconds) << ". Each panel is equivalent to:\n\n```\n";
  for (const std::string& command : result.panel_commands) out << command << '\n';
  out << "```\n";
  if (!entry.plot_file.empty()) out << "\n![" << definition.name << "](" << entry.plot_file << ")\n";
  write_comparisons(out, result);
  write_model(out, result);
}

}  // namespace

std::vector<std::string> shape_differences(const figure_result& result) {
  std::vector<std::string> lines;
  for (const paper_number& number : result.definition.paper) {
    const comparison ours = compare_in(number, result);
    if (!ours.same_shape || *ours.same_shape) continue;
    lines.push_back(result.definition.name + " — " + number.source + ": \"" + number.claim + "\": paper " +
                    paper_text(number) + ", ours " + ours.ours_text() + " (" + number.field + ")" +
                    (number.caveat.empty() ? "" : "; conditions: " + number.caveat));
  }
  return lines;
}

void write_report(std::ostream& out, const report& contents) {
  const auto git = contents.metadata.facts.find("git");
  out << "# " << contents.title << "\n\n"
      << "Measured " << utc_now() << " at revision "
      << (git == contents.metadata.facts.end() ? std::string("unknown") : git->second)
      << ". Every number below comes from this run on this machine; the papers' numbers are quoted from the papers.\n";

  out << "\n## Machine\n\n| fact | value |\n| --- | --- |\n";
  for (const auto& [key, value] : contents.metadata.facts) out << "| " << cell(key) << " | " << cell(value) << " |\n";

  if (!contents.structures.empty() || !contents.machine.empty() || !contents.timing.empty()) {
    out << "\n## Headline\n";
    if (!contents.structures.empty()) {
      out << "\n### Each structure: best technique vs naive vs peer\n\n";
      write_markdown_table(out, contents.structures, structure_columns());
      out << "\nbest: the fastest technique at any group size; naive: the plain loop; peer: the fastest of what a user "
             "would use instead, and peer_compares says what that comparison means: the same keys and operations on "
             "the container a user would pick, or (\"paper's long chains vs user's map\") the paper's 100k-bucket "
             "chained table, kept for its long chains, against a user's map with a bucket per key: not like for like; "
             "the bucket-per-key line is. coro_vs_amac: the fastest coroutine run over the fastest AMAC run, each at its own "
             "best group size. Speedups are throughput ratios within one run. roofline_fraction: the cache-line "
             "fetch rate over the best rate of this machine's k-chain probe (DRAM-resident rows).\n";
    }
    if (!contents.machine.empty()) {
      out << "\n### This machine's limits and the cost of the machinery\n\n";
      write_markdown_table(out, contents.machine, machine_columns());
    }
    if (!contents.timing.empty()) {
      out << "\n### Time per part\n\n";
      write_markdown_table(out, contents.timing);
    }
  }
  if (!contents.failures.empty()) {
    out << "\n## Failed parts\n\n";
    for (const std::string& failure : contents.failures) out << "- " << failure << '\n';
  }
  if (!contents.figures.empty()) {
    out << "\n## Figures\n";
    for (const report_figure& entry : contents.figures) write_figure(out, entry);
  }

  std::vector<std::string> differences;
  std::size_t compared = 0;
  std::size_t unmeasured = 0;
  for (const report_figure& entry : contents.figures) {
    for (const paper_number& number : entry.result->definition.paper) {
      const comparison ours = compare_in(number, *entry.result);
      if (!ours.measured) ++unmeasured;
      else if (ours.same_shape) ++compared;
    }
    const std::vector<std::string> lines = shape_differences(*entry.result);
    differences.insert(differences.end(), lines.begin(), lines.end());
  }
  out << "\n## Where ours differs in shape\n\n";
  if (differences.empty()) {
    out << "Nowhere among the " << compared << " paper numbers with a shape test measured in this run.\n";
  } else {
    out << differences.size() << " of the " << compared << " paper numbers with a shape test measured in this run:\n\n";
    for (const std::string& line : differences) out << "- " << line << '\n';
  }
  if (unmeasured > 0) {
    out << "\n" << unmeasured << " paper numbers were not measured by this run's configuration (run the figure preset "
        << "itself for its full sweep).\n";
  }

  out << "\n## How the numbers were obtained\n\n"
      << "- Techniques compared in one table ran in the same process, their repetitions interleaved (the order "
         "rotates each repetition); times are medians of the repetitions, ratios are taken within the run.\n"
      << "- roofline_fraction = cache lines fetched per ns by the technique (per thread) / the highest rate of k "
         "independent pointer chases (k = 1..64) measured by `braid-bench roofline` in the same process.\n"
      << "- The analytical model takes T_compute from the naive loop on cache-resident data (no hardware counters "
         "here), T_stall from the naive loop on the DRAM-resident data, T_switch from the group-1 run.\n"
      << "- instructions_per_op, where present, is counted by callgrind in a second run of the same command "
         "(`--callgrind`).\n"
      << "- A paper number \"agrees in shape\" when ours is on the same side of 1 (a speedup or a slowdown) or within "
         "the stated factor of the paper's value; the rule is stored with each number.\n";
}

}  // namespace braid::bench
