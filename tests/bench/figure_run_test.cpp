// Running figure presets: panels, quick arguments, user overrides, the files a run writes.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <tuple>
#include <sstream>

#include "experiment.hpp"
#include "figure_run.hpp"
#include "plots.hpp"
#include "report.hpp"
#include "workload_files.hpp"

namespace braid::bench {
namespace {

// An experiment whose rows echo its options: one naive row per size, one coro row per
// size and group (throughput = group, capped at 8).
void echo_options(run_context& context) {
  for (std::size_t size : context.sizes_or({4096})) {
    result_row naive;
    naive.set("technique", "naive").set("size_bytes", static_cast<std::int64_t>(size)).set("mops", 2.0)
        .set("ns_per_op", 500.0).set("compute_ns_per_op", 50.0).set("misses_per_op", std::int64_t{1});
    context.emit(std::move(naive));
    for (std::size_t group : context.groups_or({1})) {
      const double mops = static_cast<double>(std::min<std::size_t>(group, 8)) * (context.quick() ? 0.5 : 1.0);
      result_row row;
      row.set("technique", "coro").set("group", static_cast<std::int64_t>(group)).set("size_bytes", static_cast<std::int64_t>(size))
          .set("mops", mops).set("ns_per_op", 1000.0 / mops).set("speedup_vs_naive", mops / 2.0);
      context.emit(std::move(row));
    }
  }
  context.note("echo", "noted");
}

const registration echo{experiment{.name = "figure-run-echo", .reproduces = "nothing", .summary = "echoes its options",
                                   .techniques = {"naive", "coro"}, .accepted = accepts_size | accepts_group,
                                   .run = echo_options}};

figure two_panels() {
  return figure{.name = "figure-run-two-panels",
                .experiment = "figure-run-echo",
                .reproduces = "a test figure",
                .panels = {{.label = "small", .arguments = {"--size", "1MiB", "--group", "1,2,4"},
                            .quick_arguments = {"--size", "4KiB", "--group", "1"}},
                           {.label = "large", .arguments = {"--size", "1GiB", "--group", "1,8,16"},
                            .quick_arguments = {"--size", "8KiB", "--group", "1,2"}}},
                .axes = {.x = "group", .y = "mops"},
                .paper = {{.source = "paper Fig. 1", .claim = "up to 4x", .where = {{"panel", "large"}, {"technique", "coro"}},
                           .paper_low = 4, .paper_high = 4, .shape = shape_rule::same_side_of(1)},
                          {.source = "paper Fig. 2", .claim = "naive 2x faster", .where = {{"panel", "large"}, {"technique", "coro"}},
                           .computed = statistic::minimum, .paper_low = 0.5, .paper_high = 0.5,
                           .shape = shape_rule::same_side_of(1)},
                          {.source = "paper Fig. 3", .claim = "not measured here", .where = {{"panel", "huge"}},
                           .paper_low = 1, .paper_high = 1}},
                .model = {.techniques = {"coro"}}};
}

std::vector<std::string> texts(const std::vector<result_row>& rows, const std::string& field) {
  std::vector<std::string> values;
  for (const result_row& row : rows) values.push_back(row.find(field) ? to_text(*row.find(field)) : "");
  return values;
}

TEST(FigureRun, RunsEveryPanelAndTagsItsRows) {
  std::ostringstream progress;
  const figure_result result = run_figure(two_panels(), options{}, progress);
  ASSERT_EQ(result.rows.size(), 1u + 3u + 1u + 3u);
  EXPECT_EQ(texts(result.rows, "panel"),
            (std::vector<std::string>{"small", "small", "small", "small", "large", "large", "large", "large"}));
  EXPECT_EQ(texts(result.rows, "group")[7], "16");
  EXPECT_EQ(result.passes.size(), result.rows.size());
  ASSERT_EQ(result.panel_commands.size(), 2u);
  EXPECT_EQ(result.panel_commands[1], "braid-bench run figure-run-echo --size 1GiB --group 1,8,16");
  EXPECT_NE(std::find(result.notes.begin(), result.notes.end(), std::pair<std::string, std::string>{"echo", "noted"}),
            result.notes.end());
  // The model ran on each panel's configuration.
  EXPECT_EQ(result.model.rows.size(), 2u);
  EXPECT_TRUE(progress.str().empty());  // not a terminal: quiet
}

TEST(FigureRun, QuickUsesTheQuickArgumentsAndUserOptionsOverride) {
  std::ostringstream progress;
  options quick;
  quick.quick = true;
  const figure_result small = run_figure(two_panels(), quick, progress);
  EXPECT_EQ(small.rows.size(), 1u + 1u + 1u + 2u);
  EXPECT_EQ(texts(small.rows, "size_bytes")[0], "4096");

  options grouped;
  grouped.groups = {3};
  const figure_result overridden = run_figure(two_panels(), grouped, progress);
  EXPECT_EQ(texts(overridden.rows, "group"), (std::vector<std::string>{"", "3", "", "3"}));
  EXPECT_EQ(texts(overridden.rows, "size_bytes")[2], std::to_string(std::size_t{1} << 30));
}

TEST(FigureRun, RefusesWhatTheExperimentDoesNotAccept) {
  std::ostringstream progress;
  options threads;
  threads.threads = {1};
  EXPECT_THROW(run_figure(two_panels(), threads, progress), usage_error);
  figure bad_preset = two_panels();
  bad_preset.panels[0].arguments = {"--group", "zero"};
  EXPECT_THROW(run_figure(bad_preset, options{}, progress), std::logic_error);
  figure missing = two_panels();
  missing.experiment = "no-such-experiment";
  EXPECT_THROW(run_figure(missing, options{}, progress), usage_error);
}

TEST(FigureRun, NamesResolveToPresetsOrPlainExperiments) {
  const figure plain = figure_named("figure-run-echo");
  EXPECT_EQ(plain.experiment, "figure-run-echo");
  ASSERT_EQ(plain.panels.size(), 1u);
  EXPECT_TRUE(plain.panels[0].label.empty());
  EXPECT_TRUE(plain.axes.x.empty());
  EXPECT_THROW(figure_named("no-such-name"), usage_error);
}

TEST(FigureRun, MergedOptionsTakeTheUsersValues) {
  options preset = parse_run_options({"--size", "1GiB", "--group", "1,2", "--dist", "zipf", "--seed", "5"});
  options user = parse_run_options({"--group", "8", "--quick", "--seed", "9"});
  const options merged = merge_options(preset, user);
  EXPECT_EQ(merged.sizes_bytes, preset.sizes_bytes);
  EXPECT_EQ(merged.groups, (std::vector<std::size_t>{8}));
  EXPECT_EQ(merged.seed, 9u);
  EXPECT_TRUE(merged.distribution.has_value());
  EXPECT_TRUE(merged.quick);
}

// An experiment that accepts every option and keeps what it was given.
options last_given;
int every_option_runs = 0;
const registration every_option{experiment{
    .name = "figure-run-every-option", .reproduces = "nothing", .summary = "records its options",
    .techniques = {"naive", "coro"},
    .accepted = accepts_size | accepts_keys | accepts_group | accepts_threads | accepts_technique | accepts_dist |
                accepts_pages | accepts_workload,
    .settings = {{.name = "shape", .values = "round | square", .meaning = "a test setting"},
                 {.name = "depth", .values = "N", .meaning = "another"}},
    .run = [](run_context& context) {
      ++every_option_runs;
      last_given = context.given();
    }}};

std::string write_file(const std::string& name, const std::string& text) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("braid-figure-run-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(path) << text;
  return path.string();
}

TEST(FigureRun, EveryOptionTheUserGivesReachesTheExperiment) {
  const std::string fill = write_file("fill", "INSERT 42\n");
  const std::string run = write_file("run", "READ 42\n");
  const options user = parse_run_options({"--size", "3MiB", "--keys", "77", "--group", "5", "--threads", "1",
                                          "--technique", "coro", "--dist", "zipf:0.5", "--pages", "4k",
                                          "--repetitions", "4", "--seed", "123", "--quick", "--callgrind",
                                          "--format", "json", "--out", "somewhere", "--workload", fill, run,
                                          "--set", "shape=round"});
  // The test sets every field, so a field the merge forgot could not hide behind a default.
  std::size_t field_index = 0;
  auto expect_set = [&](const auto& field) {
    EXPECT_FALSE(field == std::remove_cvref_t<decltype(field)>{}) << "field " << field_index << " of options is unset";
    ++field_index;
  };
  std::apply([&](const auto&... field) { (expect_set(field), ...); }, fields_of(user));
  const figure preset{.name = "figure-run-every-option-preset",
                      .experiment = "figure-run-every-option",
                      .reproduces = "a test figure",
                      .panels = {{.label = "only",
                                  .arguments = {"--size", "1GiB", "--group", "1,2", "--seed", "5"},
                                  .quick_arguments = {"--size", "4KiB", "--keys", "9", "--dist", "uniform"}}}};
  std::ostringstream progress;
  every_option_runs = 0;
  run_figure(preset, user, progress);
  EXPECT_EQ(every_option_runs, 1);
  EXPECT_EQ(last_given, user);
  // And a preset's value survives where the user gave none.
  options partial = user;
  partial.keys.reset();
  run_figure(preset, partial, progress);
  EXPECT_EQ(last_given.keys, 9u);
  std::filesystem::remove(fill);
  std::filesystem::remove(run);
}

TEST(FigureRun, SettingsMergeByNameAndReachTheExperiment) {
  const figure preset{.name = "figure-run-settings-preset",
                      .experiment = "figure-run-every-option",
                      .reproduces = "a test figure",
                      .panels = {{.label = "only",
                                  .arguments = {"--set", "shape=square", "--set", "depth=3"},
                                  .quick_arguments = {"--set", "shape=square", "--set", "depth=3"}}}};
  std::ostringstream progress;
  run_figure(preset, parse_run_options({"--set", "depth=7"}), progress);
  const experiment* definition = find_experiment("figure-run-every-option");
  ASSERT_NE(definition, nullptr);
  run_context context(*definition, last_given, std::cerr);
  EXPECT_EQ(context.setting("shape"), "square");  // the preset's, kept
  EXPECT_EQ(context.setting("depth"), "7");       // the user's, over the preset's
  EXPECT_EQ(context.setting("colour"), std::nullopt);
  // A name the experiment does not declare is refused before it runs.
  every_option_runs = 0;
  EXPECT_THROW(run_figure(preset, parse_run_options({"--set", "colour=red"}), progress), usage_error);
  EXPECT_EQ(every_option_runs, 0);
}

TEST(FigureRun, WorkloadFilesAreReadOnceAndGivenToTheExperiment) {
  const std::string fill = write_file("fill-once", "INSERT 7\nINSERT 8\n");
  const std::string run = write_file("run-once", "READ 8\nSCAN 7 2\n");
  const experiment* definition = find_experiment("figure-run-every-option");
  ASSERT_NE(definition, nullptr);
  options given;
  given.workload_files = {fill, run};
  run_context context(*definition, given, std::cerr);
  const workload_file_pair* files = context.workload();
  ASSERT_NE(files, nullptr);
  EXPECT_EQ(files->fill.size(), 2u);
  ASSERT_EQ(files->run.size(), 2u);
  EXPECT_EQ(files->run[1].kind, workload_operation_kind::scan);
  EXPECT_EQ(files->run[1].scan_length, 2u);
  EXPECT_EQ(context.workload(), files);  // read once
  run_context without(*definition, options{}, std::cerr);
  EXPECT_EQ(without.workload(), nullptr);
  std::filesystem::remove(fill);
  std::filesystem::remove(run);
}

TEST(FigureRun, MissingOrMalformedWorkloadFilesFailBeforeAnythingRuns) {
  const std::string good = write_file("good", "INSERT 1\n");
  const std::string bad = write_file("bad", "INSERT 1\nREAD twelve\n");
  const figure plain = figure_named("figure-run-every-option");
  std::ostringstream progress;
  every_option_runs = 0;
  options missing;
  missing.workload_files = {good, good + "-does-not-exist"};
  EXPECT_THROW(run_figure(plain, missing, progress), usage_error);
  options malformed;
  malformed.workload_files = {good, bad};
  try {
    run_figure(plain, malformed, progress);
    ADD_FAILURE() << "a malformed workload file ran";
  } catch (const usage_error& error) {
    EXPECT_NE(std::string(error.what()).find(bad + ":2"), std::string::npos) << error.what();
  }
  EXPECT_EQ(every_option_runs, 0);
  std::filesystem::remove(good);
  std::filesystem::remove(bad);
}

TEST(FigureRun, WritesResultsPlotAndReport) {
  std::ostringstream progress;
  const figure_result result = run_figure(two_panels(), options{}, progress);
  const std::filesystem::path directory =
      std::filesystem::temp_directory_path() / ("braid-figure-run-" + std::to_string(::getpid()));
  std::vector<std::string> problems;
  const run_metadata metadata = metadata_of(result);
  EXPECT_EQ(metadata.facts.at("echo"), "noted");
  const std::string plot = write_figure_files(result, metadata, directory, problems);
  EXPECT_TRUE(std::filesystem::exists(directory / "figure-run-two-panels.csv"));
  EXPECT_TRUE(std::filesystem::exists(directory / "figure-run-two-panels.jsonl"));
  EXPECT_TRUE(std::filesystem::exists(directory / "figure-run-two-panels-model.csv"));
  EXPECT_TRUE(std::filesystem::exists(directory / "figure-run-two-panels.gp"));
  if (gnuplot_available()) {
    EXPECT_EQ(plot, "figure-run-two-panels.png");
    EXPECT_TRUE(std::filesystem::exists(directory / plot));
  } else {
    EXPECT_EQ(plot, "");
    EXPECT_EQ(problems.size(), 1u);
  }

  report contents;
  contents.title = "test report";
  contents.metadata = metadata;
  contents.figures.push_back({&result, plot});
  std::ostringstream markdown;
  write_report(markdown, contents);
  const std::string text = markdown.str();
  EXPECT_NE(text.find("# test report"), std::string::npos);
  EXPECT_NE(text.find("| echo | noted |"), std::string::npos);
  EXPECT_NE(text.find("### figure-run-two-panels"), std::string::npos);
  EXPECT_NE(text.find("braid-bench run figure-run-echo --size 1MiB --group 1,2,4"), std::string::npos);
  // Paper Fig. 1 (a 4x win) agrees with our best 4x; Fig. 2 (a loss) with our group-1 0.5x.
  EXPECT_NE(text.find("| paper Fig. 1 | up to 4x | 4 | 4 | agrees in shape |"), std::string::npos);
  EXPECT_NE(text.find("| paper Fig. 2 | naive 2x faster | 0.5 | 0.5 | agrees in shape |"), std::string::npos);
  EXPECT_NE(text.find("not measured in this run"), std::string::npos);
  EXPECT_NE(text.find("Analytical model"), std::string::npos);
  EXPECT_NE(text.find("Nowhere among the 2 paper numbers"), std::string::npos);
  std::filesystem::remove_all(directory);
}

TEST(FigureRun, ShapeDifferencesAreListed) {
  std::ostringstream progress;
  figure definition = two_panels();
  definition.paper[0].paper_low = definition.paper[0].paper_high = 0.25;  // the paper saw a loss, we see a win
  const figure_result result = run_figure(definition, options{}, progress);
  const std::vector<std::string> lines = shape_differences(result);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("paper Fig. 1"), std::string::npos);
  EXPECT_NE(lines[0].find("paper 0.25, ours 4"), std::string::npos);
  report contents;
  contents.title = "differences";
  contents.figures.push_back({&result, ""});
  std::ostringstream markdown;
  write_report(markdown, contents);
  EXPECT_NE(markdown.str().find("1 of the 2 paper numbers"), std::string::npos);
}

TEST(FigureRun, ModelNumbersAreComparedWithTheModelsRows) {
  std::ostringstream progress;
  figure definition = two_panels();
  // Large panel: naive 500 ns, compute 50 ns, coro at group 1 1000 ns: Formula 3.4 gives
  // 500 / (50 + 500) = 0.91.
  definition.paper = {{.source = "thesis model", .claim = "predicts 0.9x", .where = {{"panel", "large"}, {"technique", "coro"}},
                       .field = "predicted_speedup_max", .paper_low = 0.9, .paper_high = 0.9,
                       .shape = shape_rule::within_factor(2), .of_model = true},
                      {.source = "measured rows", .claim = "no such field", .where = {{"panel", "large"}},
                       .field = "predicted_speedup_max", .paper_low = 0.9, .paper_high = 0.9}};
  const figure_result result = run_figure(definition, options{}, progress);
  report contents;
  contents.title = "model";
  contents.figures.push_back({&result, ""});
  std::ostringstream markdown;
  write_report(markdown, contents);
  EXPECT_NE(markdown.str().find("| thesis model | predicts 0.9x | 0.9 | 0.91 | agrees in shape |"), std::string::npos)
      << markdown.str();
  EXPECT_NE(markdown.str().find("| measured rows | no such field | 0.9 | - | not measured in this run |"), std::string::npos);
}

}  // namespace
}  // namespace braid::bench
