// braid-bench list: every experiment and figure preset, with the paper figure it reproduces.
#include <iostream>

#include "commands.hpp"
#include "experiment.hpp"
#include "figures.hpp"

namespace braid::bench {

int list_command(const std::vector<std::string>& arguments) {
  if (!arguments.empty() && (arguments[0] == "--help" || arguments[0] == "-h")) {
    std::cout << "usage: braid-bench list [--names]\n\nPrints every experiment and every figure preset (an experiment with the\n"
                 "options that reproduce a paper's figure), one a line, with the figure it reproduces.\n"
                 "--names prints the names alone, one a line (for scripts).\n";
    return 0;
  }
  if (arguments.size() == 1 && arguments[0] == "--names") {
    for (const experiment& e : experiments()) std::cout << e.name << '\n';
    for (const figure& f : figures()) std::cout << f.name << '\n';
    return 0;
  }
  if (!arguments.empty()) throw usage_error("list: unknown argument '" + arguments[0] + "' (only --names)");
  std::size_t width = 0;
  for (const experiment& e : experiments()) width = std::max(width, e.name.size());
  for (const figure& f : figures()) width = std::max(width, f.name.size());
  std::cout << "experiments (braid-bench run NAME):\n";
  for (const experiment& e : experiments()) {
    std::cout << "  " << e.name << std::string(width + 2 - e.name.size(), ' ') << e.reproduces << " — " << e.summary << '\n';
  }
  std::cout << "figure presets (braid-bench run NAME; --help shows the panels and the papers' numbers):\n";
  for (const figure& f : figures()) {
    std::cout << "  " << f.name << std::string(width + 2 - f.name.size(), ' ') << f.reproduces << " — experiment "
              << f.experiment << ", " << f.panels.size() << (f.panels.size() == 1 ? " panel" : " panels") << '\n';
  }
  return 0;
}

}  // namespace braid::bench
