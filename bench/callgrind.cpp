#include "callgrind.hpp"

#include <stdlib.h>
#include <unistd.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define BRAID_HAVE_CALLGRIND_HEADER 1
#endif

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "process.hpp"

#ifndef BRAID_SOURCE_DIR
#define BRAID_SOURCE_DIR "."
#endif

namespace braid::bench {

namespace {

constexpr const char* child_variable = "BRAID_CALLGRIND_COUNTING";
constexpr const char* label_prefix = "braid-pass:";

struct call_log {
  std::mutex mutex;
  std::vector<std::vector<std::string>> calls;
};

call_log& log() {
  static call_log instance;
  return instance;
}

}  // namespace

std::size_t record_measurement_call(const std::vector<std::string>& techniques) {
  call_log& calls = log();
  std::lock_guard lock(calls.mutex);
  calls.calls.push_back(techniques);
  return calls.calls.size() - 1;
}

std::optional<pass_key> latest_pass_of(const std::string& technique) {
  call_log& calls = log();
  std::lock_guard lock(calls.mutex);
  for (std::size_t call = calls.calls.size(); call-- > 0;) {
    const std::vector<std::string>& names = calls.calls[call];
    if (std::find(names.begin(), names.end(), technique) != names.end()) return pass_key{call, technique};
  }
  return std::nullopt;
}

bool counting_instructions() {
  static const bool counting = [] {
    const char* flag = std::getenv(child_variable);
    if (flag == nullptr || std::string(flag) != "1") return false;
#ifdef BRAID_HAVE_CALLGRIND_HEADER
    return RUNNING_ON_VALGRIND != 0;
#else
    return false;
#endif
  }();
  return counting;
}

void begin_counted_pass() {
#ifdef BRAID_HAVE_CALLGRIND_HEADER
  CALLGRIND_ZERO_STATS;
  CALLGRIND_START_INSTRUMENTATION;
#endif
}

void end_counted_pass(const pass_key& pass) {
#ifdef BRAID_HAVE_CALLGRIND_HEADER
  CALLGRIND_STOP_INSTRUMENTATION;
  const std::string label = label_prefix + std::to_string(pass.call) + ":" + pass.technique;
  CALLGRIND_DUMP_STATS_AT(label.c_str());
#else
  (void)pass;
#endif
}

std::optional<std::pair<pass_key, double>> parse_callgrind_dump(std::istream& dump) {
  const std::string trigger = std::string("desc: Trigger: Client Request: ") + label_prefix;
  std::optional<pass_key> pass;
  std::optional<double> total;
  std::string line;
  while (std::getline(dump, line)) {
    if (line.starts_with(trigger)) {
      const std::string label = line.substr(trigger.size());
      const std::size_t colon = label.find(':');
      if (colon == std::string::npos) return std::nullopt;
      std::size_t call = 0;
      const auto [end, error] = std::from_chars(label.data(), label.data() + colon, call);
      if (error != std::errc{} || end != label.data() + colon) return std::nullopt;
      pass = pass_key{call, label.substr(colon + 1)};
    } else if (line.starts_with("totals:")) {
      // "totals: <Ir> [<other events>...]": the first event is Ir (the default event set).
      const std::string values = line.substr(7);
      const std::size_t start = values.find_first_not_of(' ');
      if (start == std::string::npos) return std::nullopt;
      std::uint64_t instructions = 0;
      const char* first = values.data() + start;
      const auto [end, error] = std::from_chars(first, values.data() + values.size(), instructions);
      if (error != std::errc{} || end == first) return std::nullopt;
      total = static_cast<double>(instructions);
    }
  }
  if (!pass || !total) return std::nullopt;
  return std::make_pair(*pass, *total);
}

namespace {

// The executable to count: this one, unless it uses instructions valgrind cannot decode.
std::string counting_program(std::string& problem) {
  if (const char* chosen = std::getenv("BRAID_CALLGRIND_PROGRAM")) return chosen;
#if defined(__AVX512F__)
  const std::filesystem::path portable = std::filesystem::path(BRAID_SOURCE_DIR) / "build/callgrind/bench/braid-bench";
  if (::access(portable.c_str(), X_OK) != 0) {
    problem = "this build uses AVX-512, which valgrind cannot run; build the portable one with `make callgrind`";
    return "";
  }
  // The counting run must execute the same experiments as this one.
  std::error_code error;
  const auto portable_time = std::filesystem::last_write_time(portable, error);
  const auto own_time = std::filesystem::last_write_time(own_executable(), error);
  if (!error && portable_time < own_time) {
    problem = "the portable build for callgrind is older than this program; rebuild it with `make callgrind`";
    return "";
  }
  return portable.string();
#else
  (void)problem;
  return own_executable();
#endif
}

}  // namespace

std::string counting_unavailable() {
#ifndef BRAID_HAVE_CALLGRIND_HEADER
  return "built without <valgrind/callgrind.h> (install valgrind and rebuild)";
#else
  if (!program_on_path("valgrind")) return "valgrind not found (install valgrind)";
  std::string problem;
  if (counting_program(problem).empty() && problem.empty()) problem = "cannot find this program's executable";
  return problem;
#endif
}

instruction_counts count_instructions(const std::vector<std::string>& arguments) {
  instruction_counts counts;
  counts.problem = counting_unavailable();
  if (!counts.problem.empty()) return counts;
#ifdef BRAID_HAVE_CALLGRIND_HEADER
  counts.program = counting_program(counts.problem);
  std::string directory_template = (std::filesystem::temp_directory_path() / "braid-callgrind-XXXXXX").string();
  if (::mkdtemp(directory_template.data()) == nullptr) {
    counts.problem = "cannot create a temporary directory";
    return counts;
  }
  const std::filesystem::path directory(directory_template);
  std::vector<std::string> command = {"valgrind", "--tool=callgrind", "--instr-atstart=no",
                                      "--callgrind-out-file=" + (directory / "pass.out").string(), counts.program};
  command.insert(command.end(), arguments.begin(), arguments.end());
  const std::filesystem::path log_path = directory / "run.log";
  const program_result result = run_program(command, {{child_variable, "1"}}, log_path.string());
  if (!result.started || result.exit_status != 0) {
    std::ifstream log_file(log_path);
    std::string line, last;
    while (std::getline(log_file, line)) {
      if (!line.empty() && !line.starts_with("==")) last = line;
    }
    counts.problem = "the counting run failed (exit " + std::to_string(result.exit_status) + ")" +
                     (last.empty() ? "" : ": " + last);
  } else {
    for (const auto& entry : std::filesystem::directory_iterator(directory)) {
      if (!entry.path().filename().string().starts_with("pass.out")) continue;
      std::ifstream dump(entry.path());
      if (const auto parsed = parse_callgrind_dump(dump)) counts.instructions[parsed->first] = parsed->second;
    }
    if (counts.instructions.empty()) counts.problem = "the counting run measured no pass";
  }
  std::error_code ignored;
  std::filesystem::remove_all(directory, ignored);
#endif
  return counts;
}

}  // namespace braid::bench
