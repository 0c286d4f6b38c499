// Running another program from braid-bench (gnuplot, valgrind) without a shell: arguments are
// passed as they are, so no path or label needs quoting.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace braid::bench {

struct program_result {
  bool started = false;   // false: the program could not be executed (not found, not executable)
  int exit_status = -1;   // exit code, or 128 + signal number when a signal ended it
  std::string output;     // stdout and stderr, interleaved
};

// Runs `arguments[0]` (looked up on the PATH) with `arguments`, adding `environment` to this
// process's environment, and waits for it. Output is captured unless `output_to` names a file.
program_result run_program(const std::vector<std::string>& arguments,
                           const std::vector<std::pair<std::string, std::string>>& environment = {},
                           const std::string& output_to = "");

// Whether `name` is an executable file in a directory of the PATH.
bool program_on_path(const std::string& name);

// This program's own executable (/proc/self/exe), for re-running itself.
std::string own_executable();

}  // namespace braid::bench
