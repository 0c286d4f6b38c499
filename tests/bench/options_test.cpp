// braid-bench option parsing: sizes, lists, distributions; malformed values are usage
// errors that name the option.
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

#include "experiment.hpp"
#include "options.hpp"

namespace braid::bench {
namespace {

TEST(Options, Sizes) {
  EXPECT_EQ(parse_size("4096", "--size"), 4096u);
  EXPECT_EQ(parse_size("64KiB", "--size"), 65536u);
  EXPECT_EQ(parse_size("1.5MiB", "--size"), 1572864u);
  EXPECT_EQ(parse_size("1GiB", "--size"), 1073741824u);
  EXPECT_EQ(parse_size("2G", "--size"), 2147483648u);
  EXPECT_EQ(parse_size("1MB", "--size"), 1000000u);
  for (const char* bad : {"", "abc", "1XB", "-5", "1.2.3MiB", "0", "GiB", "1e9"}) {
    EXPECT_THROW(parse_size(bad, "--size"), usage_error) << bad;
  }
  try {
    parse_size("12parsecs", "--size");
  } catch (const usage_error& error) {
    EXPECT_NE(std::string(error.what()).find("--size"), std::string::npos);
  }
}

TEST(Options, RunOptions) {
  const options parsed = parse_run_options({"--size", "1MiB,2MiB", "--group", "1,4,16", "--threads", "2", "--technique",
                                            "naive,coro", "--dist", "zipf:0.8", "--pages", "4k", "--quick", "--format",
                                            "csv", "--seed", "9", "--repetitions", "3", "--keys", "1000"});
  EXPECT_EQ(parsed.sizes_bytes, (std::vector<std::size_t>{1 << 20, 2 << 20}));
  EXPECT_EQ(parsed.groups, (std::vector<std::size_t>{1, 4, 16}));
  EXPECT_EQ(parsed.threads, (std::vector<unsigned>{2}));
  EXPECT_EQ(parsed.techniques, (std::vector<std::string>{"naive", "coro"}));
  ASSERT_TRUE(parsed.distribution);
  EXPECT_EQ(parsed.distribution->shape, key_distribution::kind::zipf);
  EXPECT_DOUBLE_EQ(parsed.distribution->theta, 0.8);
  EXPECT_EQ(parsed.pages, page_size::small_4k);
  EXPECT_TRUE(parsed.quick);
  EXPECT_EQ(parsed.format, output_format::csv);
  EXPECT_EQ(parsed.seed, 9u);
  EXPECT_EQ(parsed.repetitions, 3u);
  EXPECT_EQ(parsed.keys, 1000u);
}

TEST(Options, SettingsAreNameValuePairsInTheOrderGiven) {
  const options parsed = parse_run_options({"--set", "mix=read-only", "--set", "log-dir=/a=b,c"});
  EXPECT_EQ(parsed.settings, (std::vector<std::pair<std::string, std::string>>{{"mix", "read-only"}, {"log-dir", "/a=b,c"}}));
  for (const std::vector<std::string>& bad :
       std::vector<std::vector<std::string>>{{"--set"}, {"--set", "mix"}, {"--set", "=x"}, {"--set", "mix="},
                                             {"--set", "Mix=x"}, {"--set", "a b=x"}, {"--set", "m=1", "--set", "m=2"}}) {
    EXPECT_THROW(parse_run_options(bad), usage_error) << bad.back();
  }
  try {
    parse_run_options({"--set", "m=1", "--set", "m=2"});
  } catch (const usage_error& error) {
    EXPECT_NE(std::string(error.what()).find("given twice"), std::string::npos) << error.what();
  }
}

TEST(Options, MalformedValuesAreUsageErrors) {
  const std::vector<std::vector<std::string>> bad = {
      {"--group", "0"},        {"--group", "4,,8"},      {"--group", "x"},      {"--group", "5000"},
      {"--threads", "0"},      {"--dist", "pareto"},     {"--dist", "zipf:1.5"}, {"--dist", "zipf:abc"},
      {"--pages", "1g"},       {"--format", "xml"},      {"--size"},            {"--bogus"},
      {"--repetitions", "0"},  {"--keys", "0"},          {"--technique", ""},   {"--seed", "-1"}};
  for (const auto& arguments : bad) {
    EXPECT_THROW(parse_run_options(arguments), usage_error) << arguments[0];
  }
}

TEST(Options, ExperimentsRefuseOptionsAndTechniquesTheyDoNotKnow) {
  const experiment definition{.name = "demo",
                              .reproduces = "nothing",
                              .summary = "test",
                              .techniques = {"naive", "coro"},
                              .accepted = accepts_group | accepts_technique,
                              .run = [](run_context&) {}};
  EXPECT_NO_THROW(check_options(definition, parse_run_options({"--group", "4", "--technique", "coro"})));
  EXPECT_THROW(check_options(definition, parse_run_options({"--technique", "amac"})), usage_error);
  EXPECT_THROW(check_options(definition, parse_run_options({"--size", "1GiB"})), usage_error);
  // Settings: only the names the experiment declares.
  EXPECT_THROW(check_options(definition, parse_run_options({"--set", "mix=ycsb-a"})), usage_error);
  experiment with_settings = definition;
  with_settings.settings = {{.name = "mix", .values = "ycsb-a", .meaning = "test"}};
  EXPECT_NO_THROW(check_options(with_settings, parse_run_options({"--set", "mix=ycsb-a"})));
  try {
    check_options(with_settings, parse_run_options({"--set", "ops=3"}));
    ADD_FAILURE() << "an undeclared setting was accepted";
  } catch (const usage_error& error) {
    EXPECT_NE(std::string(error.what()).find("settings: mix"), std::string::npos) << error.what();
  }
}

TEST(Options, ImpossibleMemoryRequestsAreRefused) {
  const experiment definition{.name = "demo", .reproduces = "", .summary = "", .techniques = {}, .accepted = 0,
                              .run = [](run_context&) {}};
  run_context context(definition, options{}, std::cerr);
  EXPECT_THROW(context.require_memory(std::size_t{1} << 50, "the array"), usage_error);
  EXPECT_NO_THROW(context.require_memory(1 << 20, "the array"));
}

// braid-bench's exit status: 0 and silence, 2 and one line for a usage error or an invalid
// argument (even when the message quotes an argument with line breaks, found by fuzzing), 1
// and one line for any other failure.
TEST(Options, ExitStatusAndOneLineMessages) {
  std::ostringstream quiet;
  EXPECT_EQ(run_with_exit_status([] { return 0; }, quiet), 0);
  EXPECT_EQ(quiet.str(), "");

  std::ostringstream usage;
  EXPECT_EQ(run_with_exit_status([]() -> int { (void)parse_run_options({"--size", "1\nGiB\x01"}); return 0; }, usage), 2);
  EXPECT_EQ(usage.str().find("braid-bench: --size"), 0u) << usage.str();
  EXPECT_NE(usage.str().find("1\\nGiB\\x01"), std::string::npos) << usage.str();
  EXPECT_EQ(usage.str().find('\n'), usage.str().size() - 1) << usage.str();

  std::ostringstream invalid;
  EXPECT_EQ(run_with_exit_status([]() -> int { throw std::invalid_argument("bad\rgroup"); }, invalid), 2);
  EXPECT_EQ(invalid.str(), "braid-bench: bad\\x0dgroup\n");

  std::ostringstream failed;
  EXPECT_EQ(run_with_exit_status([]() -> int { throw std::runtime_error("disagree"); }, failed), 1);
  EXPECT_EQ(failed.str(), "braid-bench: run failed: disagree\n");
}

}  // namespace
}  // namespace braid::bench
