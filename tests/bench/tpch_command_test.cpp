// braid-bench tpch end to end: --scale, --tables, --seed and --out reach the generator (the
// program's files are byte-identical to the library's for the same arguments, only the tables
// asked for are written, another seed writes other bytes), its summary lists each table's rows
// and bytes, and bad arguments exit 2 with one line naming the problem.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench_program.hpp"
#include "tpch.hpp"

namespace braid::bench {
namespace {

using namespace test_support;

std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class TpchCommand : public bench_program_test {
 protected:
  void SetUp() override {
    bench_program_test::SetUp();
    root_ = std::filesystem::temp_directory_path() /
            ("braid-tpch-command-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  static program_result tpch(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), {program, "tpch"});
    return run_program(arguments);
  }

  std::filesystem::path root_;
};

TEST_F(TpchCommand, WritesTheTablesAskedForAsTheLibraryDoes) {
  const std::filesystem::path out = root_ / "new" / "dir";  // created by the command
  const program_result result = tpch({"--scale", "0.01", "--out", out.string(), "--tables", "orders,customer", "--seed", "9"});
  ASSERT_EQ(result.exit_status, 0) << result.output;
  EXPECT_NE(result.output.find("table,rows,bytes,seconds\n"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("customer,1500," + std::to_string(std::filesystem::file_size(out / "customer.tbl")) + ","),
            std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("orders,15000,"), std::string::npos) << result.output;
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(out)) files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"customer.tbl", "orders.tbl"}));

  const std::filesystem::path library = root_ / "library";
  std::filesystem::create_directories(library);
  tpch::generate({.scale_factor = 0.01, .seed = 9, .out = library, .tables = {tpch::table_id::customer, tpch::table_id::orders}});
  EXPECT_EQ(file_bytes(out / "customer.tbl"), file_bytes(library / "customer.tbl"));
  EXPECT_EQ(file_bytes(out / "orders.tbl"), file_bytes(library / "orders.tbl"));

  const std::filesystem::path other = root_ / "other";
  ASSERT_EQ(tpch({"--scale", "0.01", "--out", other.string(), "--tables", "orders", "--seed", "10"}).exit_status, 0);
  EXPECT_NE(file_bytes(other / "orders.tbl"), file_bytes(out / "orders.tbl"));
}

TEST_F(TpchCommand, DefaultsToAllTablesAndSeedZero) {
  const std::filesystem::path out = root_ / "all";
  const program_result result = tpch({"--scale", "0.001", "--out", out.string()});
  ASSERT_EQ(result.exit_status, 0) << result.output;
  const std::filesystem::path library = root_ / "library";
  std::filesystem::create_directories(library);
  tpch::generate({.scale_factor = 0.001, .seed = 0, .out = library, .tables = {}});
  for (const std::string_view name : tpch::table_names) {
    const std::string file = std::string(name) + ".tbl";
    EXPECT_EQ(file_bytes(out / file), file_bytes(library / file)) << file;
    EXPECT_NE(result.output.find(std::string(name) + ","), std::string::npos) << name;
  }
}

TEST_F(TpchCommand, RefusesBadArgumentsWithExitTwo) {
  std::ofstream(root_ / "a-file") << "x";
  const std::string out = (root_ / "out").string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--scale", "0", "--out", out}, "--scale: must be above 0"},
      {{"--scale", "-1", "--out", out}, "--scale: must be above 0"},
      {{"--scale", "abc", "--out", out}, "is not a number"},
      {{"--scale", "1x", "--out", out}, "is not a number"},
      {{"--scale", "0.0001", "--out", out}, "at least 0.001"},
      {{"--scale", "1e9", "--out", out}, "at most 100000"},
      {{"--out", out}, "--scale is required"},
      {{"--scale", "0.01"}, "--out is required"},
      {{"--scale", "0.01", "--out", out, "--tables", "orders,custard"}, "unknown table 'custard'"},
      {{"--scale", "0.01", "--out", out, "--seed", "-3"}, "--seed"},
      {{"--scale", "0.01", "--out", out, "--bogus", "1"}, "unknown option '--bogus'"},
      {{"--scale", "0.01", "--out"}, "--out: needs a value"},
      {{"--scale", "0.01", "--out", (root_ / "a-file").string()}, "a-file"},
      {{"--scale", "0.01", "--out", (root_ / "a-file" / "below").string()}, "--out: cannot create"},
  };
  for (const auto& [arguments, message] : cases) {
    const program_result result = tpch(arguments);
    const std::string shown = arguments.back() + ": " + result.output;
    EXPECT_EQ(result.exit_status, 2) << shown;
    EXPECT_EQ(std::count(result.output.begin(), result.output.end(), '\n'), 1) << shown;
    EXPECT_NE(result.output.find(message), std::string::npos) << shown << " (expected '" << message << "')";
  }
  EXPECT_FALSE(std::filesystem::exists(out)) << "a refused command made its output directory";
}

TEST_F(TpchCommand, HelpExitsZero) {
  const program_result result = tpch({"--help"});
  EXPECT_EQ(result.exit_status, 0);
  EXPECT_NE(result.output.find("usage: braid-bench tpch --scale SF --out DIR"), std::string::npos);
}

}  // namespace
}  // namespace braid::bench
