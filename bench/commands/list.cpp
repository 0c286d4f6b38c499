// braid-bench list: every experiment, with the paper figure it reproduces.
#include <iostream>

#include "experiment.hpp"

namespace braid::bench {
namespace {

int list_experiments(const std::vector<std::string>& arguments) {
  if (!arguments.empty() && (arguments[0] == "--help" || arguments[0] == "-h")) {
    std::cout << "usage: braid-bench list\n\nPrints every experiment, one a line, with the figure it reproduces.\n";
    return 0;
  }
  if (!arguments.empty()) throw usage_error("list: takes no arguments, got '" + arguments[0] + "'");
  std::size_t width = 0;
  for (const experiment& e : experiments()) width = std::max(width, e.name.size());
  for (const experiment& e : experiments()) {
    std::cout << e.name << std::string(width + 2 - e.name.size(), ' ') << e.reproduces << " — " << e.summary << '\n';
  }
  return 0;
}

const command_registration list{command{
    .name = "list",
    .usage = "list",
    .summary = "experiments, one a line, with the figure they reproduce",
    .run = list_experiments,
}};

}  // namespace
}  // namespace braid::bench
