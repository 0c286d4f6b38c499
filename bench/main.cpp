// braid-bench: what interleaving buys on this machine, next to what the papers reported.
// Commands live in commands/ (listed in commands.cpp), experiments in experiments/ (each
// registers itself).
//
// Exit status: 0 on success, 2 on a usage error (one line on stderr naming the problem),
// 1 when a run fails (for example techniques disagreeing on their results).
#include <iostream>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "experiment.hpp"

namespace braid::bench {
namespace {

void print_help(std::ostream& out) {
  out << "braid-bench: interleaving benchmarks\n\nusage:\n";
  std::size_t width = 0;
  for (const command& c : commands()) width = std::max(width, c.usage.size());
  for (const command& c : commands()) {
    out << "  braid-bench " << c.usage << std::string(width + 2 - c.usage.size(), ' ') << c.summary << '\n';
  }
  out << "  braid-bench --help" << std::string(width > 6 ? width - 4 : 2, ' ') << "this text\n\n"
      << "Every command takes --help. Results go to the terminal (table, or --format csv|json) and,\n"
         "with --out DIR, to CSV and JSON-lines files carrying the machine, compiler, flags, page\n"
         "size obtained, seeds and git revision.\n";
}

int dispatch(const std::vector<std::string>& arguments) {
  if (arguments.empty()) {
    print_help(std::cerr);
    return 2;
  }
  const std::string& name = arguments[0];
  if (name == "help" || name == "--help" || name == "-h") {
    print_help(std::cout);
    return 0;
  }
  for (const command& c : commands()) {
    if (c.name == name) return c.run(std::vector<std::string>(arguments.begin() + 1, arguments.end()));
  }
  throw usage_error("unknown command '" + name + "' (braid-bench --help lists them)");
}

}  // namespace
}  // namespace braid::bench

int main(int argc, char** argv) {
  const std::vector<std::string> arguments(argv + 1, argv + argc);
  return braid::bench::run_with_exit_status([&] { return braid::bench::dispatch(arguments); }, std::cerr);
}
