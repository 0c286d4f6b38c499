// tools/imlp: malformed kernels are refused by the generator with this file and the line of the
// offending call (under Clang, whose source_location reports a chain's first line, as under
// GCC); a well-formed kernel's header has its named states, its comments and every backend.
#include "imlp.hpp"

#include <gtest/gtest.h>

#include <string>

namespace braid::imlp {
namespace {

// Runs the generator; expects an imlp::error at this file and `line` whose text has `words`.
void expect_refused(const coroutine& kernel, unsigned line, const std::string& words) {
  try {
    (void)kernel.generate();
    ADD_FAILURE() << "accepted; expected: " << words;
  } catch (const error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.where().line, line) << message;
    EXPECT_NE(e.where().file.find("imlp_test.cpp"), std::string::npos) << message;
    EXPECT_EQ(message.find(e.where().file + ":" + std::to_string(line) + ": "), 0u) << message;
    EXPECT_NE(message.find(words), std::string::npos) << message;
  }
}

coroutine lookup() {
  return Coroutine("lookup").Result("int").Arg("const int*", "p").Variable("int", "v");
}

TEST(Imlp, LocalOfAnOpaqueStatementUsedAcrossAYieldIsRefused) {
  const unsigned line = __LINE__ + 4;
  expect_refused(lookup().Body(
                     Stmt("int doubled = *p * 2;").
                     Prefetch("p").Yield().
                     Return("doubled")),
                 line, "'doubled' is a local of the opaque statement");
}

TEST(Imlp, YieldInsideOpaqueTextIsRefused) {
  const unsigned line = __LINE__ + 3;
  expect_refused(lookup().Body(
                     Prefetch("p").Yield().
                     Stmt("v = *p; Yield();").
                     Return("v")),
                 line, "suspension");
  const unsigned co_line = __LINE__ + 2;
  expect_refused(lookup().Body(Assign("v", "1").
                               Stmt("co_await something;").
                               Return("v")),
                 co_line, "suspension");
}

TEST(Imlp, UnknownNamesAreRefused) {
  const unsigned line = __LINE__ + 3;
  expect_refused(lookup().Body(
                     Prefetch("p").Yield().
                     Assign("w", "*p").
                     Return("v")),
                 line, "'w' is not an Arg or a Variable");
  const unsigned load_line = __LINE__ + 1;
  expect_refused(lookup().Body(Load("missing", "p").Return("v")), load_line, "'missing' is not an Arg or a Variable");
}

TEST(Imlp, MisplacedStatementsAreRefused) {
  const unsigned then_line = __LINE__ + 3;
  expect_refused(lookup().Body(
                     Assign("v", "1").
                     Then(Return("v")).
                     Return("v")),
                 then_line, "Then without an If");
  const unsigned break_line = __LINE__ + 2;
  expect_refused(lookup().Body(Assign("v", "1").
                               Break().
                               Return("v")),
                 break_line, "Break outside");
  const unsigned while_line = __LINE__ + 2;
  expect_refused(lookup().Body(Assign("v", "1").
                               While("v < 3").
                               Return("v")),
                 while_line, "While without Do");
  const unsigned name_line = __LINE__ + 2;
  expect_refused(lookup().Body(Prefetch("p").Yield("here").
                               Prefetch("p").Yield("here").
                               Return("v")),
                 name_line, "used twice");
}

TEST(Imlp, DeclarationsAndTheEndAreChecked) {
  const unsigned twice_line = __LINE__ + 1;
  expect_refused(Coroutine("twice").Arg("int", "a").Variable("int", "a").Body(Return()), twice_line,
                 "declared twice");
  const unsigned end_line = __LINE__ + 1;
  expect_refused(lookup().Body(Prefetch("p").Yield().Assign("v", "*p")), end_line, "run off its end");
  const unsigned call_line = __LINE__ + 1;
  expect_refused(lookup().Body(Call({"p", "p"})), call_line, "Call passes 2 arguments");
}

TEST(Imlp, AWellFormedKernelHasEveryBackendNamedStatesAndItsComments) {
  const std::string header =
      Coroutine("sum")
          .Result("long")
          .SharedArg("const long*", "base")
          .Arg("long", "count")
          .Variable("long", "total")
          .Body(Assign("total", "0").
                While("count > 0").Do(
                    Prefetch("base + count").Yield("at_element").  // wait for the element
                    Switch("count % 2").Case("0", Stmt("total += base[count];")).Default(Stmt("total -= base[count];")).
                    Stmt("--count;")).
                Return("total"))
          .generate();
  for (const char* part : {"static result_type plain(", "static bool step(", "static bool step_goto(",
                           "static bool step_at(", "super_step_static(", "super_step_hybrid(", "struct aos",
                           "struct soa", "enum class state : unsigned char { start, at_element, finished };",
                           "case state::at_element:", "resume_at_element:", "// wait for the element",
                           "switch (count % 2) {"}) {
    EXPECT_NE(header.find(part), std::string::npos) << part << "\n" << header;
  }
}

// A Return hands its value to the step's sink (the context by default); a braced value is
// built as the result type, and a void kernel that runs off its end calls the sink too.
TEST(Imlp, ReturnsGoToTheSink) {
  const std::string braced = Coroutine("pair")
                                 .Result("std::pair<int, int>")
                                 .Arg("const int*", "p")
                                 .Body(Prefetch("p").Yield().Return("{*p, 1}"))
                                 .generate();
  EXPECT_NE(braced.find("imlp_sink(imlp_slots, imlp_i, result_type{*p, 1});"), std::string::npos) << braced;
  EXPECT_NE(braced.find("imlp_slots.result(imlp_i) = std::forward<ImlpValue>(imlp_value);"), std::string::npos) << braced;
  EXPECT_NE(braced.find("return {*p, 1};"), std::string::npos) << braced;  // the plain routine
  const std::string touch = Coroutine("touch").Arg("int*", "p").Body(Prefetch("p").Yield().Stmt("++*p;")).generate();
  EXPECT_NE(touch.find("imlp_sink(imlp_slots, imlp_i);\n"), std::string::npos) << touch;
  EXPECT_EQ(touch.find("imlp_slots.result("), std::string::npos) << touch;
}

TEST(Imlp, ASwitchThatYieldsBecomesAnIfChain) {
  const std::string header = lookup()
                                 .Body(Switch("*p").Case("1", Prefetch("p").Yield("one").Assign("v", "1")).
                                       Default(Assign("v", "2")).
                                       Return("v"))
                                 .generate();
  EXPECT_NE(header.find("if ((*p) == (1)) {"), std::string::npos) << header;
  EXPECT_NE(header.find("} while (false);"), std::string::npos) << header;
}

}  // namespace
}  // namespace braid::imlp
