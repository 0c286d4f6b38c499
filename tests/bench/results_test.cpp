// Result tables: Markdown and terminal columns, residency of a data size.
#include <gtest/gtest.h>

#include <sstream>

#include "experiment.hpp"
#include "results.hpp"

namespace braid::bench {
namespace {

TEST(Results, MarkdownTablesAlignNumbersRightAndEscapePipes) {
  std::vector<result_row> rows;
  rows.push_back(result_row().set("what", "a|b").set("value", 1.5));
  rows.push_back(result_row().set("what", "c").set("unit", "ns"));
  std::ostringstream all;
  write_markdown_table(all, rows);
  EXPECT_EQ(all.str(), "| what | value | unit |\n| --- | ---: | --- |\n| a\\|b | 1.500 | - |\n| c | - | ns |\n");
  std::ostringstream chosen;
  write_markdown_table(chosen, rows, {"unit", "what", "absent"});
  EXPECT_EQ(chosen.str(), "| unit | what |\n| --- | --- |\n| - | a\\|b |\n| ns | c |\n");
  std::ostringstream none;
  write_markdown_table(none, {});
  EXPECT_EQ(none.str(), "(no results)\n");
}

TEST(Results, TerminalTableTakesAColumnOrder) {
  std::vector<result_row> rows = {result_row().set("b", std::int64_t{2}).set("a", std::int64_t{1})};
  std::ostringstream out;
  write_table(out, rows, {"a", "b"});
  EXPECT_EQ(out.str().substr(0, out.str().find('\n')), "a  b");
}

TEST(Results, ResidencyFollowsTheLastLevelCache) {
  const std::size_t cache = last_level_cache_bytes();
  if (cache == 0) {
    EXPECT_EQ(residency_of(1), "");
    GTEST_SKIP() << "cache size unknown on this machine";
  }
  EXPECT_EQ(residency_of(cache), "cache");
  EXPECT_EQ(residency_of(cache + 1), "partly cached");
  EXPECT_EQ(residency_of(16 * cache - 1), "partly cached");
  EXPECT_EQ(residency_of(16 * cache), "dram");
  EXPECT_EQ(residency_of(std::size_t{1} << 40), "dram");
  EXPECT_DOUBLE_EQ(data_to_llc(4 * cache), 4.0);
}

TEST(Results, TheDramSizeIsSixteenCachesWithinAvailableMemory) {
  const std::size_t bytes = dram_resident_bytes();
  EXPECT_EQ(bytes % (std::size_t{1} << 20), 0u);
  const std::size_t available = available_memory_bytes();
  if (available != 0) {
    EXPECT_LE(bytes, std::max(std::size_t{1} << 20, available / 4));
  }
  const std::size_t cache = last_level_cache_bytes();
  if (cache != 0 && available / 4 >= 16 * cache) {
    EXPECT_GE(bytes, 16 * cache);
    EXPECT_EQ(residency_of(bytes), "dram");
  }
  EXPECT_EQ(parse_size("dram", "--size"), bytes);
}

TEST(Results, EmittedRowsCarryTheirResidency) {
  if (last_level_cache_bytes() == 0) GTEST_SKIP() << "cache size unknown on this machine";
  const experiment definition{.name = "residency", .reproduces = "-", .summary = "-", .techniques = {}, .accepted = 0,
                              .run = [](run_context&) {}};
  std::ostringstream quiet;
  run_context context(definition, options{}, quiet);
  context.emit(result_row().set("size_bytes", std::int64_t{1} << 40));
  context.emit(result_row().set("size_bytes", std::int64_t{4096}));
  context.emit(result_row().set("size_bytes", std::int64_t{4096}).set("residency", "told"));
  context.emit(result_row());
  EXPECT_EQ(to_text(*context.rows()[0].find("residency")), "dram");
  EXPECT_EQ(to_text(*context.rows()[1].find("residency")), "cache");
  EXPECT_EQ(to_text(*context.rows()[2].find("residency")), "told");
  EXPECT_EQ(context.rows()[3].find("residency"), nullptr);
}

TEST(Results, DurationsForProgressAndBudgets) {
  EXPECT_EQ(format_duration(0.4), "0s");
  EXPECT_EQ(format_duration(42), "42s");
  EXPECT_EQ(format_duration(65), "1m05s");
  EXPECT_EQ(format_duration(600), "10m00s");
  EXPECT_EQ(format_duration(-1), "?");
}

}  // namespace
}  // namespace braid::bench
