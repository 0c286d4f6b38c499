// libFuzzer target: the YCSB workload-file parser (INSERT/READ/UPDATE/DELETE k, SCAN k n), in
// process, under braid-bench's exit-status mapping (run_with_exit_status): a text either parses
// (exit 0) or is rejected with exit 2 and one line "braid-bench: fuzz:LINE: problem". Exit 1,
// an escaping exception, a crash or a sanitizer report is a bug. A parsed workload, written
// back with format_workload, must parse to the same operations.
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_input.hpp"
#include "options.hpp"
#include "workload_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using braid::fuzzing::fuzz_check;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::ostringstream errors;
  const int status = braid::bench::run_with_exit_status(
      [&] {
        const std::vector<braid::bench::workload_operation> parsed = braid::bench::parse_workload(text, "fuzz");
        for (const braid::bench::workload_operation& operation : parsed) {
          fuzz_check((operation.kind == braid::bench::workload_operation_kind::scan) == (operation.scan_length >= 1),
                     "a scan length on a non-scan or a scan of length 0");
        }
        const std::string written = braid::bench::format_workload(parsed);
        fuzz_check(braid::bench::parse_workload(written, "written") == parsed, "format then parse changes the workload");
        return 0;
      },
      errors);
  const std::string message = errors.str();
  if (status == 0) {
    fuzz_check(message.empty(), "a parsed workload printed an error");
    return 0;
  }
  fuzz_check(status == 2, "a malformed workload must exit 2 (exit 1 means an unexpected exception)");
  fuzz_check(message.starts_with("braid-bench: fuzz:") && message.back() == '\n' &&
                 message.find('\n') == message.size() - 1,
             "a malformed workload must print one line naming the file and line");
  return 0;
}
