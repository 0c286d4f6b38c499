// Running other programs without a shell.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "process.hpp"

namespace braid::bench {
namespace {

TEST(Process, CapturesOutputAndExitStatus) {
  const program_result echoed = run_program({"sh", "-c", "echo \"$0 $GREETING\"; echo to-stderr >&2; exit 3", "it's"},
                                            {{"GREETING", "hello world"}});
  EXPECT_TRUE(echoed.started);
  EXPECT_EQ(echoed.exit_status, 3);
  EXPECT_NE(echoed.output.find("it's hello world"), std::string::npos);
  EXPECT_NE(echoed.output.find("to-stderr"), std::string::npos);
}

TEST(Process, ReportsProgramsThatDoNotExist) {
  const program_result missing = run_program({"braid-no-such-program-anywhere"});
  EXPECT_FALSE(missing.started);
  EXPECT_FALSE(program_on_path("braid-no-such-program-anywhere"));
  EXPECT_TRUE(program_on_path("sh"));
  EXPECT_FALSE(run_program({}).started);
}

TEST(Process, SignalsAndOutputFiles) {
  EXPECT_EQ(run_program({"sh", "-c", "kill -9 $$"}).exit_status, 128 + 9);
  const std::filesystem::path file = std::filesystem::temp_directory_path() / ("braid-process-" + std::to_string(::getpid()));
  const program_result written = run_program({"sh", "-c", "echo into-the-file"}, {}, file.string());
  EXPECT_EQ(written.exit_status, 0);
  EXPECT_TRUE(written.output.empty());
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "into-the-file");
  std::filesystem::remove(file);
}

TEST(Process, KnowsItsOwnExecutable) { EXPECT_FALSE(own_executable().empty()); }

}  // namespace
}  // namespace braid::bench
