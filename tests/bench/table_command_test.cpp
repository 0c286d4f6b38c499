// braid-bench table: a CSV file loaded with the schema of the command line answers the
// IN-predicate and SELECT by key as a plain reference over the same rows does, with every
// technique; --key, --merge, --technique, --group and --reconstruction reach the queries; bad
// input exits 2 with one line naming it (a malformed line as FILE:LINE).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bench_program.hpp"

namespace braid::bench {
namespace {

using namespace test_support;

struct order {
  long id;
  int quantity;
  long price_cents;
};

class TableCommand : public bench_program_test {
 protected:
  void SetUp() override {
    bench_program_test::SetUp();
    directory_ = std::filesystem::temp_directory_path() /
                 ("braid-table-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(directory_);
    std::mt19937_64 random(7);
    for (long i = 0; i < 300; ++i) {
      orders_.push_back({1000 - 3 * i, static_cast<int>(random() % 20) - 5, static_cast<long>(random() % 100000) - 500});
    }
    // Columns in another order than the schema's: the header decides.
    std::ofstream out(csv());
    out << "price,id,qty\n";
    for (const order& o : orders_) out << decimal(o.price_cents) << ',' << o.id << ',' << o.quantity << '\n';
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  static std::string decimal(long cents) {
    const long magnitude = cents < 0 ? -cents : cents;
    const std::string fraction = std::to_string(magnitude % 100);
    return (cents < 0 ? "-" : "") + std::to_string(magnitude / 100) + "." + (fraction.size() == 1 ? "0" : "") + fraction;
  }
  [[nodiscard]] std::string csv() const { return (directory_ / "orders.csv").string(); }

  program_result table(std::vector<std::string> arguments) const {
    arguments.insert(arguments.begin(), {program, "table", "--schema", "id:int64,qty:int32,price:decimal(10,2)", "--csv", csv()});
    return run_program(arguments);
  }
  [[nodiscard]] std::string expected_count(const std::set<int>& quantities) const {
    std::size_t count = 0;
    for (const order& o : orders_) count += quantities.count(o.quantity);
    return std::to_string(count);
  }

  std::filesystem::path directory_;
  std::vector<order> orders_;
};

// The count line: main_rows,delta_rows,count.
std::vector<std::string> count_line(const program_result& result) {
  const auto newline = result.output.find('\n');
  EXPECT_EQ(result.output.substr(0, newline), "main_rows,delta_rows,count") << result.output;
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream line(result.output.substr(newline + 1));
  while (std::getline(line, cell, ',')) cells.push_back(cell);
  if (!cells.empty() && !cells.back().empty() && cells.back().back() == '\n') cells.back().pop_back();
  return cells;
}

TEST_F(TableCommand, CountInAgreesWithTheRowsForEveryTechniqueOnMainAndDelta) {
  const std::set<int> wanted = {-5, 0, 3, 14, 99};
  const std::string values = "-5,0,3,3,14,99";
  const std::string expected = expected_count(wanted);
  for (const std::string technique : {"naive", "gp", "amac", "coro", "coro_nested", "fiber", "adaptive"}) {
    for (const std::string group : {"1", "4", "1000"}) {
      const program_result merged = table({"--merge", "--count-in", "qty", "--values", values, "--main-technique", technique,
                                           "--delta-technique", "naive", "--group", group});
      ASSERT_EQ(merged.exit_status, 0) << technique << ": " << merged.output;
      EXPECT_EQ(count_line(merged), (std::vector<std::string>{expected, "0", expected})) << technique;
    }
    // Without --merge the rows are in the Delta, whose tree has no gp / amac: refused (as they
    // are for --technique, which names both fragments, even after a merge).
    const program_result delta = table({"--count-in", "qty", "--values", values, "--technique", technique});
    if (technique == "gp" || technique == "amac") {
      EXPECT_EQ(delta.exit_status, 2) << delta.output;
      EXPECT_NE(delta.output.find(technique), std::string::npos) << delta.output;
    } else {
      ASSERT_EQ(delta.exit_status, 0) << technique << ": " << delta.output;
      EXPECT_EQ(count_line(delta), (std::vector<std::string>{"0", expected, expected})) << technique;
    }
  }
  EXPECT_EQ(table({"--merge", "--count-in", "qty", "--values", values, "--technique", "gp"}).exit_status, 2);
  const program_result delta_named = table({"--count-in", "qty", "--values", values, "--delta-technique", "coro_nested"});
  EXPECT_EQ(count_line(delta_named), (std::vector<std::string>{"0", expected, expected}));
  EXPECT_EQ(table({"--count-in", "qty", "--values", values, "--delta-technique", "amac"}).exit_status, 2);
  EXPECT_EQ(table({"--count-in", "qty", "--values", values, "--main-technique", "amac"}).exit_status, 0);
  const program_result empty_list = table({"--count-in", "qty", "--values", "1000000"});
  EXPECT_EQ(count_line(empty_list), (std::vector<std::string>{"0", "0", "0"}));
}

TEST_F(TableCommand, SelectPrintsTheRowByKeyWithEveryReconstruction) {
  const order& wanted = orders_[123];
  const std::string row = std::to_string(wanted.id) + "," + std::to_string(wanted.quantity) + "," + decimal(wanted.price_cents);
  for (const std::string how : {"naive", "nested", "elided", "flat"}) {
    for (const bool merge : {false, true}) {
      std::vector<std::string> arguments = {"--select", std::to_string(wanted.id), "--reconstruction", how, "--group", "2"};
      if (merge) arguments.emplace_back("--merge");
      const program_result found = table(arguments);
      ASSERT_EQ(found.exit_status, 0) << found.output;
      EXPECT_EQ(found.output, "id,qty,price\n" + row + "\n") << how;
    }
  }
  EXPECT_EQ(table({"--select", "1001"}).output, "id,qty,price\n");  // absent
  // --key picks the key column: the first row whose price is the 123rd's.
  const program_result by_price = table({"--key", "price", "--select", decimal(wanted.price_cents)});
  ASSERT_EQ(by_price.exit_status, 0) << by_price.output;
  for (const order& o : orders_) {
    if (o.price_cents != wanted.price_cents) continue;
    EXPECT_EQ(by_price.output, "id,qty,price\n" + std::to_string(o.id) + "," + std::to_string(o.quantity) + "," +
                                   decimal(o.price_cents) + "\n");
    break;
  }
}

TEST_F(TableCommand, VarcharColumnsLoadCountAndSelect) {
  const std::string path = (directory_ / "names.csv").string();
  {
    std::ofstream out(path);
    out << "id,name\n1,apple\n2,\n3,banana\n4,apple\n5,applesauce\n";
  }
  auto names = [&](std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), {program, "table", "--schema", "id:int64,name:varchar(10)", "--csv", path});
    return run_program(arguments);
  };
  for (const std::string technique : {"naive", "coro", "adaptive"}) {
    for (const bool merge : {false, true}) {
      std::vector<std::string> arguments = {"--count-in", "name", "--values", "apple,,cherry,applesauc2", "--technique", technique};
      if (merge) arguments.emplace_back("--merge");
      const program_result counted = names(arguments);
      ASSERT_EQ(counted.exit_status, 0) << technique << ": " << counted.output;
      EXPECT_EQ(count_line(counted), merge ? (std::vector<std::string>{"3", "0", "3"}) : (std::vector<std::string>{"0", "3", "3"}))
          << technique;
    }
  }
  EXPECT_EQ(names({"--select", "2"}).output, "id,name\n2,\n");
  EXPECT_EQ(names({"--key", "name", "--select", "banana", "--reconstruction", "flat"}).output, "id,name\n3,banana\n");
  EXPECT_EQ(names({"--count-in", "name", "--values", "apple", "--technique", "gp"}).exit_status, 2);
  EXPECT_EQ(names({"--count-in", "name", "--values", "apple,applesauce2"}).exit_status, 2);  // no varchar(10) value
  {
    std::ofstream out(path, std::ios::app);
    out << "6,elevenchars\n";
  }
  const program_result too_long = names({"--select", "1"});
  EXPECT_EQ(too_long.exit_status, 2) << too_long.output;
  EXPECT_NE(too_long.output.find(path + ":7:"), std::string::npos) << too_long.output;
}

TEST_F(TableCommand, RefusesBadInputWithOneLine) {
  {
    std::ofstream out(csv(), std::ios::app);
    out << "1.00,5,not-a-number\n";
  }
  const program_result malformed = table({"--select", "1000"});
  EXPECT_EQ(malformed.exit_status, 2) << malformed.output;
  EXPECT_NE(malformed.output.find(csv() + ":" + std::to_string(orders_.size() + 2) + ":"), std::string::npos) << malformed.output;
  std::filesystem::remove(csv());
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{program, "table", "--csv", csv(), "--select", "1"}, "--schema is required"},
      {{program, "table", "--schema", "id:int64", "--select", "1"}, "--csv is required"},
      {{program, "table", "--schema", "id:int64", "--csv", csv(), "--select", "1"}, "cannot open"},
      {{program, "table", "--schema", "id:int64", "--csv", csv()}, "give one query"},
      {{program, "table", "--schema", "id:int64", "--csv", csv(), "--select", "1", "--count-in", "id", "--values", "1"},
       "give one query"},
      {{program, "table", "--schema", "id:int64", "--csv", csv(), "--count-in", "id"}, "--count-in needs --values"},
      {{program, "table", "--schema", "id:int64", "--csv", csv(), "--select", "1", "--group", "0"}, "--group"},
      {{program, "table", "--schema", "id:int64", "--csv", csv(), "--select", "1", "--technique", "warp"}, "warp"},
      {{program, "table", "--schema", "id:int64", "--csv", csv(), "--select", "1", "--reconstruction", "x"}, "x"},
      {{program, "table", "--schema", "id:int64", "--csv", csv(), "--select", "1", "--colour", "red"}, "--colour"},
      {{program, "table", "--schema", "id:float", "--csv", csv(), "--select", "1"}, "float"},
      {{program, "table", "--schema", "id:int64", "--key", "nope", "--csv", csv(), "--select", "1"}, "nope"},
  };
  for (const auto& [arguments, message] : cases) {
    const program_result result = run_program(arguments);
    EXPECT_EQ(result.exit_status, 2) << message << ": " << result.output;
    EXPECT_EQ(std::count(result.output.begin(), result.output.end(), '\n'), 1) << result.output;
    EXPECT_NE(result.output.find(message), std::string::npos) << result.output;
  }
}

}  // namespace
}  // namespace braid::bench
