// Running the braid-bench program of the same build from a test and reading its CSV output:
// the rows of the common schema as field maps. `program` is empty in builds without the
// program (the tests skip then).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
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

}  // namespace braid::bench::test_support
