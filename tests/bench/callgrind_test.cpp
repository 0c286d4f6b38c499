// Instruction counting: parsing callgrind's dumps, and matching emitted rows to the measured
// passes they report.
#include <gtest/gtest.h>

#include <sstream>

#include "callgrind.hpp"
#include "experiment.hpp"
#include "measure.hpp"

namespace braid::bench {
namespace {

// A dump as valgrind 3.19's callgrind writes it for CALLGRIND_DUMP_STATS_AT("braid-pass:3:coro")
// with --instr-atstart=no (note `summary: 0`: the total is on the `totals:` line).
constexpr const char* pass_dump = R"(# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 31581
cmd:  braid-bench run switch-cost --quick
part: 2


desc: I1 cache: 
desc: D1 cache: 
desc: LL cache: 

desc: Timerange: Basic block 201 - 603
desc: Trigger: Client Request: braid-pass:3:coro

positions: line
events: Ir
summary: 0


ob=(1) /usr/local/bin/braid-bench
fl=(1) ???
fn=(1) main'2
0 7204

totals: 7204
)";

constexpr const char* termination_dump = R"(# callgrind format
version: 1
creator: callgrind-3.19.0
desc: Timerange: Basic block 603 - 604
desc: Trigger: Program termination
events: Ir
summary: 0
totals: 0
)";

TEST(Callgrind, ParsesThePassLabelAndTheTotal) {
  std::istringstream dump(pass_dump);
  const auto parsed = parse_callgrind_dump(dump);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->first.call, 3u);
  EXPECT_EQ(parsed->first.technique, "coro");
  EXPECT_DOUBLE_EQ(parsed->second, 7204);
}

TEST(Callgrind, TechniqueNamesMayContainColons) {
  std::string text = pass_dump;
  text.replace(text.find("3:coro"), 6, "12:task:depth-2");
  std::istringstream dump(text);
  const auto parsed = parse_callgrind_dump(dump);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->first.call, 12u);
  EXPECT_EQ(parsed->first.technique, "task:depth-2");
}

TEST(Callgrind, IgnoresDumpsWithoutAPassLabelOrTotal) {
  std::istringstream termination(termination_dump);
  EXPECT_FALSE(parse_callgrind_dump(termination).has_value());
  std::string no_total = pass_dump;
  no_total.erase(no_total.find("totals:"));
  std::istringstream truncated(no_total);
  EXPECT_FALSE(parse_callgrind_dump(truncated).has_value());
  std::string bad_call = pass_dump;
  bad_call.replace(bad_call.find("3:coro"), 6, "x:coro");
  std::istringstream malformed(bad_call);
  EXPECT_FALSE(parse_callgrind_dump(malformed).has_value());
}

TEST(Callgrind, NotCountingOutsideValgrind) { EXPECT_FALSE(counting_instructions()); }

TEST(Callgrind, RowsAreMatchedToTheLatestCallThatMeasuredTheirTechnique) {
  const experiment definition{.name = "attribution", .reproduces = "-", .summary = "-", .techniques = {}, .accepted = 0,
                              .run = [](run_context&) {}};
  std::ostringstream quiet;
  run_context context(definition, options{}, quiet);
  auto pass = [](std::uint64_t value) { return [value] { return value; }; };
  measure_interleaved({{"naive", pass(1)}, {"coro", pass(1)}}, 1);
  const std::optional<pass_key> first_coro = latest_pass_of("coro");
  measure_interleaved({{"naive", pass(2)}, {"frame-pool", pass(2)}}, 1);
  ASSERT_TRUE(first_coro.has_value());

  result_row coro_row;
  coro_row.set("technique", "coro");
  context.emit(coro_row);  // emitted after a later call: still the call that measured coro
  result_row naive_row;
  naive_row.set("technique", "naive");
  context.emit(naive_row);
  result_row unknown_row;
  unknown_row.set("technique", "never-measured");
  context.emit(unknown_row);
  context.emit(result_row{});

  result_row named_pass;
  named_pass.set("technique", "coro").set("pass", "frame-pool");
  context.emit(named_pass);

  ASSERT_EQ(context.passes().size(), 5u);
  ASSERT_TRUE(context.passes()[4].has_value());
  EXPECT_EQ(context.passes()[4]->technique, "frame-pool");
  EXPECT_EQ(context.passes()[4]->call, first_coro->call + 1);
  EXPECT_EQ(context.rows()[4].find("pass"), nullptr);
  ASSERT_TRUE(context.passes()[0].has_value());
  EXPECT_EQ(*context.passes()[0], *first_coro);
  ASSERT_TRUE(context.passes()[1].has_value());
  EXPECT_EQ(context.passes()[1]->call, first_coro->call + 1);
  EXPECT_FALSE(context.passes()[2].has_value());
  EXPECT_FALSE(context.passes()[3].has_value());
}

}  // namespace
}  // namespace braid::bench
