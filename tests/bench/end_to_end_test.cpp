// braid-bench as a user runs it: the program itself, its exit status and its output. Built with
// the path of the braid-bench of the same build; skipped in builds without the program.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "blink_tree_driver.hpp"
#include "process.hpp"

namespace braid::bench {
namespace {

#ifdef BRAID_BENCH_PROGRAM
const std::string program = BRAID_BENCH_PROGRAM;
#else
const std::string program;
#endif

class BenchProgram : public ::testing::Test {
 protected:
  void SetUp() override {
    if (program.empty()) GTEST_SKIP() << "this build has no braid-bench";
    directory_ = std::filesystem::temp_directory_path() / ("braid-end-to-end-" + std::to_string(::getpid()));
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override {
    if (!directory_.empty()) std::filesystem::remove_all(directory_);
  }
  std::string file(const std::string& name, const std::string& text) const {
    const std::filesystem::path path = directory_ / name;
    std::ofstream(path) << text;
    return path.string();
  }
  static program_result bench(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), program);
    return run_program(arguments);
  }

  std::filesystem::path directory_;
};

// The CSV lines whose `phase` column is `phase`, as field name -> value.
std::vector<std::map<std::string, std::string>> csv_rows(const std::string& output, const std::string& phase) {
  std::istringstream lines(output);
  std::string line;
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  auto split = [](const std::string& text) {
    std::vector<std::string> cells;
    std::stringstream stream(text);
    std::string cell;
    while (std::getline(stream, cell, ',')) cells.push_back(cell);
    return cells;
  };
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header.empty()) {
      header = split(line);
      continue;
    }
    const std::vector<std::string> cells = split(line);
    std::map<std::string, std::string> row;
    for (std::size_t index = 0; index < header.size() && index < cells.size(); ++index) row[header[index]] = cells[index];
    if (row["phase"] == phase) rows.push_back(row);
  }
  return rows;
}

TEST_F(BenchProgram, RunsTheWorkloadFilesItIsGiven) {
  const std::string fill = file("fill", "INSERT 42\n");
  const std::string run = file("run", "READ 42\n");
  const program_result result = bench({"run", "blink-tree-ycsb", "--workload", fill, run, "--threads", "1",
                                       "--technique", "threads-olc", "--repetitions", "1", "--quick", "--format", "csv"});
  ASSERT_EQ(result.exit_status, 0) << result.output;
  // The fill inserted key 42 (checksum: one insert, 7); the run found it with the value the
  // driver writes for the first request (its value, plus 3 for one found key).
  const auto fills = csv_rows(result.output, "fill");
  ASSERT_EQ(fills.size(), 1u) << result.output;
  EXPECT_EQ(fills[0].at("checksum"), "7");
  EXPECT_EQ(fills[0].at("ops"), "1");
  const auto reads = csv_rows(result.output, "read-zipf:0.99");
  ASSERT_EQ(reads.size(), 1u) << result.output;
  EXPECT_EQ(reads[0].at("checksum"), std::to_string(blink_bench::request_value(42, 0) + 3));
  EXPECT_EQ(reads[0].at("ops"), "1");
}

TEST_F(BenchProgram, MissingOrMalformedWorkloadFilesExitTwoBeforeRunning) {
  const std::string fill = file("fill", "INSERT 42\n");
  const std::string malformed = file("malformed", "READ 42\nREAD forty-two\n");
  const std::string absent = (directory_ / "absent").string();
  const program_result missing = bench({"run", "blink-tree-ycsb", "--workload", fill, absent, "--threads", "1"});
  EXPECT_EQ(missing.exit_status, 2) << missing.output;
  EXPECT_NE(missing.output.find(absent), std::string::npos) << missing.output;
  const program_result bad = bench({"run", "blink-tree-ycsb", "--workload", fill, malformed, "--threads", "1"});
  EXPECT_EQ(bad.exit_status, 2) << bad.output;
  EXPECT_NE(bad.output.find(malformed + ":2"), std::string::npos) << bad.output;
  // Nothing ran: no table, only the one-line error.
  EXPECT_EQ(std::count(bad.output.begin(), bad.output.end(), '\n'), 1) << bad.output;
}

// --callgrind where counting cannot work (here: no valgrind on the PATH) is refused before the
// timed run, not answered with rows that lack the counts.
TEST_F(BenchProgram, CallgrindThatCannotCountExitsTwoBeforeRunning) {
  const program_result result = run_program({program, "run", "task-cost", "--quick", "--callgrind"},
                                            {{"PATH", directory_.string()}});
  EXPECT_EQ(result.exit_status, 2) << result.output;
  EXPECT_NE(result.output.find("--callgrind: valgrind not found"), std::string::npos) << result.output;
  EXPECT_EQ(std::count(result.output.begin(), result.output.end(), '\n'), 1) << result.output;
}

}  // namespace
}  // namespace braid::bench
