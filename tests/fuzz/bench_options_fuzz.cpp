// libFuzzer target: braid-bench's command-line parser, in process. The input is split at NUL
// bytes into the arguments after `run EXPERIMENT`; parse_run_options runs under braid-bench's
// own exit-status mapping (run_with_exit_status, what main() uses): a parse either succeeds
// (exit 0, nothing printed; merging the result over an empty preset gives it back) or is
// rejected with exit 2 and one line "braid-bench: problem". Exit 1 (an unexpected exception),
// an escaping exception, a crash or a sanitizer report is a bug. The first argument also goes
// through the single-value parsers (sizes, counts, distributions, lists, YCSB letters).
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "options.hpp"
#include "workload_files.hpp"

namespace {

using braid::fuzzing::fuzz_check;

std::vector<std::string> split_arguments(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> arguments(1);
  for (std::size_t index = 0; index < size; ++index) {
    if (data[index] == 0) {
      arguments.emplace_back();
    } else {
      arguments.back().push_back(static_cast<char>(data[index]));
    }
  }
  if (arguments.back().empty()) arguments.pop_back();
  return arguments;
}

// Runs `parse` as braid-bench would: exit 0 and silence, or exit 2 and one message line.
template <class Parse>
void expect_parsed_or_usage_error(Parse&& parse) {
  std::ostringstream errors;
  const int status = braid::bench::run_with_exit_status(
      [&] {
        parse();
        return 0;
      },
      errors);
  const std::string message = errors.str();
  if (status == 0) {
    fuzz_check(message.empty(), "a parse that succeeded printed an error");
    return;
  }
  fuzz_check(status == 2, "a rejected input must exit 2 (exit 1 means an unexpected exception)");
  const std::string prefix = "braid-bench: ";
  fuzz_check(message.size() > prefix.size() + 1 && message.starts_with(prefix) && message.back() == '\n' &&
                 message.find('\n') == message.size() - 1,
             "a rejected input must print one line naming the problem");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> arguments = split_arguments(data, size);
  expect_parsed_or_usage_error([&] {
    const braid::bench::options parsed = braid::bench::parse_run_options(arguments);
    fuzz_check(braid::bench::merge_options(braid::bench::options{}, parsed) == parsed, "merge over an empty preset");
  });
  if (arguments.empty()) return 0;
  const std::string& value = arguments.front();
  expect_parsed_or_usage_error([&] { (void)braid::bench::parse_size(value, "--size"); });
  expect_parsed_or_usage_error([&] { (void)braid::bench::parse_count(value, "--keys"); });
  expect_parsed_or_usage_error([&] {
    const braid::bench::key_distribution distribution = braid::bench::parse_distribution(value);
    fuzz_check(distribution.shape != braid::bench::key_distribution::kind::zipf ||
                   (distribution.theta > 0 && distribution.theta < 1),
               "zipf theta outside (0, 1)");
  });
  expect_parsed_or_usage_error([&] { (void)braid::bench::parse_ycsb_workload(value); });
  const std::vector<std::string> items = braid::bench::split_list(value);
  std::string joined;
  for (std::size_t index = 0; index < items.size(); ++index) joined += (index == 0 ? "" : ",") + items[index];
  fuzz_check(joined == value, "split_list loses or adds characters");
  return 0;
}
