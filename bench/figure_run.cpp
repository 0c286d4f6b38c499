#include "figure_run.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <fstream>
#include <iostream>

#include "experiment.hpp"
#include "plots.hpp"
#include "report.hpp"
#include "workload_files.hpp"

namespace braid::bench {

figure figure_named(const std::string& name) {
  if (const figure* preset = find_figure(name)) return *preset;
  const experiment* definition = find_experiment(name);
  if (definition == nullptr) {
    throw usage_error("unknown experiment or figure '" + name + "' (braid-bench list shows them)");
  }
  figure plain;
  plain.name = definition->name;
  plain.experiment = definition->name;
  plain.reproduces = definition->reproduces;
  plain.summary = definition->summary;
  plain.panels = {panel{}};
  plain.axes.x = "";  // the swept field
  return plain;
}

namespace {

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : " ") + word;
  return text;
}

// The user's options as command-line words (for the panel command lines in reports).
std::vector<std::string> words_of(const options& given) {
  std::vector<std::string> words;
  auto list = [&](const char* name, const auto& values, auto text) {
    if (values.empty()) return;
    std::string joined_values;
    for (const auto& value : values) joined_values += (joined_values.empty() ? "" : ",") + text(value);
    words.push_back(name);
    words.push_back(joined_values);
  };
  list("--size", given.sizes_bytes, [](std::size_t bytes) { return format_bytes(bytes); });
  if (given.keys) words.insert(words.end(), {"--keys", std::to_string(*given.keys)});
  list("--group", given.groups, [](std::size_t group) { return std::to_string(group); });
  list("--threads", given.threads, [](unsigned threads) { return std::to_string(threads); });
  list("--technique", given.techniques, [](const std::string& technique) { return technique; });
  if (given.distribution) words.insert(words.end(), {"--dist", given.distribution->describe()});
  if (given.pages) words.insert(words.end(), {"--pages", to_string(*given.pages)});
  if (given.repetitions) words.insert(words.end(), {"--repetitions", std::to_string(*given.repetitions)});
  if (given.seed) words.insert(words.end(), {"--seed", std::to_string(*given.seed)});
  if (given.quick) words.push_back("--quick");
  if (given.workload_files) words.insert(words.end(), {"--workload", given.workload_files->first, given.workload_files->second});
  return words;
}

}  // namespace

figure_result run_figure(const figure& definition, const options& user, std::ostream& progress) {
  const experiment* runner = find_experiment(definition.experiment);
  if (runner == nullptr) {
    throw usage_error("figure '" + definition.name + "' runs experiment '" + definition.experiment +
                      "', which this build does not have");
  }
  figure_result result;
  result.definition = definition;
  result.user = user;
  const auto start = std::chrono::steady_clock::now();
  // Check every panel's options before running any, so a bad option fails at once.
  std::vector<options> panel_options;
  for (const panel& current : definition.panels) {
    options preset;
    try {
      preset = parse_run_options(user.quick ? current.quick_arguments : current.arguments);
    } catch (const usage_error& error) {
      throw std::logic_error("figure '" + definition.name + "', panel '" + current.label + "': " + error.what());
    }
    options merged = merge_options(preset, user);
    check_options(*runner, merged);
    panel_options.push_back(std::move(merged));
  }
  // Workload files are read and validated whole before anything runs; panels share them.
  std::shared_ptr<const workload_file_pair> workload;
  if (user.workload_files) workload = std::make_shared<const workload_file_pair>(read_workload_files(*user.workload_files));
  for (std::size_t index = 0; index < definition.panels.size(); ++index) {
    const panel& current = definition.panels[index];
    run_context context(*runner, panel_options[index], progress);
    if (panel_options[index].workload_files == user.workload_files) context.set_workload(workload);
    if (definition.panels.size() > 1 || !current.label.empty()) {
      std::string prefix = "panel " + std::to_string(index + 1) + "/" + std::to_string(definition.panels.size());
      if (!current.label.empty()) prefix += " (" + current.label + ")";
      if (index > 0) {
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        prefix += ", about " +
                  format_duration(elapsed / static_cast<double>(index) * static_cast<double>(definition.panels.size() - index)) +
                  " left";
      }
      context.set_progress_prefix(prefix);
    }
    runner->run(context);
    for (std::size_t row = 0; row < context.rows().size(); ++row) {
      result_row tagged = context.rows()[row];
      if (!current.label.empty()) tagged.set("panel", current.label);
      result.rows.push_back(std::move(tagged));
      result.passes.push_back(context.passes()[row]);
    }
    for (const auto& note : context.notes()) {
      if (std::find(result.notes.begin(), result.notes.end(), note) == result.notes.end()) result.notes.push_back(note);
    }
    result.notes.emplace_back("seed", std::to_string(context.seed()));
    std::vector<std::string> command = {"braid-bench", "run", definition.experiment};
    const std::vector<std::string> words = words_of(panel_options[index]);
    command.insert(command.end(), words.begin(), words.end());
    result.panel_commands.push_back(joined(command));
  }
  if (::isatty(2) == 1) progress << "\r\033[K" << std::flush;
  // One seed note per run: panels share the user's seed.
  std::vector<std::pair<std::string, std::string>> unique_notes;
  for (const auto& note : result.notes) {
    if (std::find(unique_notes.begin(), unique_notes.end(), note) == unique_notes.end()) unique_notes.push_back(note);
  }
  result.notes = std::move(unique_notes);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.model = evaluate_model(result.rows, definition.model);
  return result;
}

std::string add_instruction_counts(figure_result& result, const std::vector<std::string>& arguments) {
  const instruction_counts counts = count_instructions(arguments);
  if (!counts.problem.empty()) return counts.problem;
  std::size_t filled = 0;
  std::size_t unattributed = 0;
  std::map<pass_key, std::size_t> uses;
  for (const std::optional<pass_key>& pass : result.passes) {
    if (pass) ++uses[*pass];
  }
  for (std::size_t row = 0; row < result.rows.size(); ++row) {
    const std::optional<pass_key>& pass = result.passes[row];
    const std::optional<double> ops = result.rows[row].number("ops");
    if (!pass || !ops || *ops <= 0) continue;
    const auto found = counts.instructions.find(*pass);
    // Two rows claiming one pass means the experiment emitted rows out of step with its
    // measurements: leave them without a count rather than guess.
    if (found == counts.instructions.end() || uses[*pass] > 1) {
      ++unattributed;
      continue;
    }
    result.rows[row].set("instructions_per_op", found->second / *ops);
    ++filled;
  }
  result.notes.emplace_back("instructions_counted_by", "callgrind on " + counts.program);
  if (filled == 0) return "no row could be matched to a counted pass (is " + counts.program + " built from the same sources?)";
  if (unattributed > 0) {
    return std::to_string(unattributed) + " rows could not be matched to a counted pass (is " + counts.program +
           " built from the same sources?)";
  }
  return "";
}

run_metadata metadata_of(const figure_result& result) {
  run_metadata metadata = run_metadata::collect();
  for (const auto& [key, value] : result.notes) {
    auto& slot = metadata.facts[key];
    slot = slot.empty() ? value : (slot.find(value) == std::string::npos ? slot + "; " + value : slot);
  }
  return metadata;
}

std::string write_figure_files(const figure_result& result, const run_metadata& metadata,
                               const std::filesystem::path& directory, std::vector<std::string>& problems) {
  std::filesystem::create_directories(directory);
  const std::string name = result.definition.name;
  std::ofstream csv(directory / (name + ".csv"));
  write_csv(csv, result.rows, metadata);
  std::ofstream json(directory / (name + ".jsonl"));
  write_json_lines(json, result.rows, metadata);
  if (!result.model.rows.empty()) {
    std::ofstream model(directory / (name + "-model.csv"));
    write_csv(model, result.model.rows, metadata);
  }
  if (!csv || !json) throw std::runtime_error("could not write results to " + directory.string());
  const std::string plot_file = name + ".png";
  const std::string script =
      gnuplot_script(result.rows, result.definition.axes, result.definition.name, (directory / plot_file).string());
  if (script.empty()) return "";
  std::string problem;
  if (!render_plot(script, (directory / (name + ".gp")).string(), problem)) {
    problems.push_back(problem);
    return "";
  }
  return plot_file;
}

void print_figure(std::ostream& out, const figure_result& result, const run_metadata& metadata, output_format format) {
  switch (format) {
    case output_format::table:
      for (const auto& [key, value] : metadata.facts) out << "# " << key << ": " << value << '\n';
      write_table(out, result.rows);
      if (!result.model.rows.empty()) {
        out << "\n# analytical model (thesis §3.1, Formulas 3.2 and 3.4) beside the measured optimum\n";
        write_table(out, result.model.rows);
      }
      for (const std::string& skipped : result.model.skipped) out << "# model not evaluated: " << skipped << '\n';
      break;
    case output_format::csv: write_csv(out, result.rows, metadata); break;
    case output_format::json: write_json_lines(out, result.rows, metadata); break;
  }
}

int run_named(const std::string& name, const std::vector<std::string>& arguments) {
  const figure definition = figure_named(name);
  const options given = parse_run_options(arguments);
  if (given.callgrind) {
    if (const std::string problem = counting_unavailable(); !problem.empty()) {
      throw usage_error("--callgrind: " + problem);
    }
  }
  figure_result result = run_figure(definition, given, std::cerr);
  bool counted = true;
  if (given.callgrind) {
    // The counting run repeats this command without --callgrind and without output files.
    std::vector<std::string> command = {"run", name};
    for (std::size_t position = 0; position < arguments.size(); ++position) {
      if (arguments[position] == "--callgrind") continue;
      if (arguments[position] == "--out" || arguments[position] == "--format") {
        ++position;
        continue;
      }
      command.push_back(arguments[position]);
    }
    const std::string problem = add_instruction_counts(result, command);
    counted = problem.empty();
    if (!counted) std::cerr << "braid-bench: --callgrind: " << problem << '\n';
  }
  const run_metadata metadata = metadata_of(result);
  print_figure(std::cout, result, metadata, given.format);
  if (given.out_dir) {
    const std::filesystem::path directory(*given.out_dir);
    std::vector<std::string> problems;
    const std::string plot = write_figure_files(result, metadata, directory, problems);
    for (const std::string& problem : problems) std::cerr << "braid-bench: " << problem << '\n';
    std::ofstream section(directory / (definition.name + ".md"));
    report contents;
    contents.title = "braid-bench run " + name;
    contents.metadata = metadata;
    contents.figures.push_back({&result, plot});
    write_report(section, contents);
    if (!section) throw std::runtime_error("could not write " + (directory / (definition.name + ".md")).string());
  }
  return counted ? 0 : 1;
}

}  // namespace braid::bench
