// Running the braid-bench program of the same build from a test and reading its CSV output:
// the rows of the common schema as field maps. `program` is empty in builds without the
// program (the tests skip then).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "process.hpp"

namespace braid::bench::test_support {

#ifdef BRAID_BENCH_PROGRAM
inline const std::string program = BRAID_BENCH_PROGRAM;
#else
inline const std::string program;
#endif

using row = std::map<std::string, std::string>;

struct run_output {
  int exit_status = -1;
  std::string text;
  std::vector<row> rows;
  std::vector<std::string> header;
};

// The CSV output's rows (after the "# key: value" metadata lines and the header).
inline run_output parse_csv(const program_result& result) {
  run_output parsed{.exit_status = result.exit_status, .text = result.output, .rows = {}, .header = {}};
  std::istringstream lines(result.output);
  std::string line;
  auto split = [](const std::string& text) {
    std::vector<std::string> cells;
    std::stringstream stream(text);
    std::string cell;
    while (std::getline(stream, cell, ',')) cells.push_back(cell);
    if (!text.empty() && text.back() == ',') cells.emplace_back();
    return cells;
  };
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (parsed.header.empty()) {
      parsed.header = split(line);
      continue;
    }
    const std::vector<std::string> cells = split(line);
    EXPECT_EQ(cells.size(), parsed.header.size()) << "a row of another width: " << line;
    row fields;
    for (std::size_t i = 0; i < parsed.header.size() && i < cells.size(); ++i) fields[parsed.header[i]] = cells[i];
    parsed.rows.push_back(fields);
  }
  return parsed;
}

inline double number(const row& fields, const std::string& name) {
  const auto found = fields.find(name);
  if (found == fields.end() || found->second.empty()) {
    ADD_FAILURE() << "row without " << name;
    return -1;
  }
  return std::stod(found->second);
}

// `braid-bench run <experiment> <arguments>`: the exit status and the output.
inline program_result run_experiment(const std::string& experiment, const std::vector<std::string>& arguments) {
  std::vector<std::string> command = {program, "run", experiment};
  command.insert(command.end(), arguments.begin(), arguments.end());
  return run_program(command);
}

// The same with `--format csv`, its rows parsed.
inline run_output run_experiment_csv(const std::string& experiment, std::vector<std::string> arguments) {
  arguments.insert(arguments.end(), {"--format", "csv"});
  return parse_csv(run_experiment(experiment, arguments));
}

// An invocation the program must refuse, and what its one-line message must contain ("": any).
struct refused_arguments {
  std::vector<std::string> arguments;
  std::string message;
};

// Each invocation exits with status 2 and one line on its output naming the problem.
inline void expect_refused(const std::string& experiment, const std::vector<refused_arguments>& cases) {
  for (const auto& [arguments, message] : cases) {
    const program_result result = run_experiment(experiment, arguments);
    const std::string shown = experiment + " " + (arguments.empty() ? "" : arguments.back()) + ": " + result.output;
    EXPECT_EQ(result.exit_status, 2) << shown;
    EXPECT_EQ(std::count(result.output.begin(), result.output.end(), '\n'), 1) << shown;
    EXPECT_NE(result.output.find(message), std::string::npos) << shown;
  }
}

// Tests of the program skip in builds without it.
// The rows of `braid-bench run EXPERIMENT ARGUMENTS --format csv --repetitions 1`, which must
// succeed.
inline std::vector<row> run_rows(const std::string& experiment, std::vector<std::string> arguments) {
  arguments.insert(arguments.begin(), {program, "run", experiment});
  arguments.insert(arguments.end(), {"--format", "csv", "--repetitions", "1"});
  const program_result result = run_program(arguments);
  EXPECT_EQ(result.exit_status, 0) << result.output;
  return parse_csv(result).rows;
}

// The distinct values of `field` over `rows`.
inline std::set<std::string> values_of(const std::vector<row>& rows, const std::string& field) {
  std::set<std::string> values;
  for (const row& r : rows) values.insert(r.at(field));
  return values;
}

// Each `braid-bench run ARGUMENTS --quick` exits 2 with one line that contains its text.
using usage_error_case = std::pair<std::vector<std::string>, std::string>;
inline void expect_usage_errors(const std::vector<usage_error_case>& cases) {
  for (const auto& [arguments, expected] : cases) {
    std::vector<std::string> command = {program, "run"};
    command.insert(command.end(), arguments.begin(), arguments.end());
    command.push_back("--quick");
    const program_result result = run_program(command);
    EXPECT_EQ(result.exit_status, 2) << arguments.back() << ": " << result.output;
    EXPECT_EQ(std::count(result.output.begin(), result.output.end(), '\n'), 1) << result.output;
    EXPECT_NE(result.output.find(expected), std::string::npos) << result.output;
  }
}

class bench_program_test : public ::testing::Test {
 protected:
  void SetUp() override {
    if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
  }
};

}  // namespace braid::bench::test_support
