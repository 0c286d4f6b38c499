// The top-level commands of braid-bench (`list`, `run`, ...): one function a command, each in
// its own file under commands/, listed once in commands() (commands.cpp) with its usage line
// and summary for `braid-bench --help`.
#pragma once

#include <string>
#include <vector>

namespace braid::bench {

// Each receives the arguments after the command name and returns the exit status; it throws
// usage_error for bad input (exit 2).
using command_function = int (*)(const std::vector<std::string>& arguments);

int headline_command(const std::vector<std::string>& arguments);
int join_command(const std::vector<std::string>& arguments);
int list_command(const std::vector<std::string>& arguments);
int query_command(const std::vector<std::string>& arguments);
int roofline_command(const std::vector<std::string>& arguments);
int run_command(const std::vector<std::string>& arguments);
int table_command(const std::vector<std::string>& arguments);
int tpch_command(const std::vector<std::string>& arguments);
int workload_command(const std::vector<std::string>& arguments);

struct command {
  std::string name;     // "run"
  std::string usage;    // "run EXPERIMENT [options]"
  std::string summary;  // one line for `braid-bench --help`
  command_function run;
};

// Every command, by name.
const std::vector<command>& commands();

// Whether any of the arguments is --help or -h.
bool asks_for_help(const std::vector<std::string>& arguments);

}  // namespace braid::bench
