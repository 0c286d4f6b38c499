// braid-imlp: writes the header of every registered IMLP kernel (the kernel files compiled into
// this program) as <out>/braid/index/generated/<kernel>.hpp, rewriting a header only when its
// text changes. A malformed kernel is reported as "file:line: message" and exits 1; a bad
// command line exits 2.
//
//   braid-imlp --out DIR [--source-root DIR] [--list]
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "imlp.hpp"

namespace {

int usage(const std::string& message) {
  std::cerr << "braid-imlp: " << message << "\nusage: braid-imlp --out DIR [--source-root DIR] [--list]\n";
  return 2;
}

void write_if_changed(const std::filesystem::path& path, const std::string& text) {
  std::ifstream in(path);
  std::ostringstream old;
  old << in.rdbuf();
  if (in && old.str() == text) return;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out, root;
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--list") {
      list = true;
    } else if ((arg == "--out" || arg == "--source-root") && i + 1 < argc) {
      (arg == "--out" ? out : root) = argv[++i];
    } else {
      return usage("unknown or incomplete option '" + arg + "'");
    }
  }
  if (list) {
    for (const auto& [name, make] : braid::imlp::registry()) std::cout << name << '\n';
    return 0;
  }
  if (out.empty()) return usage("--out is required");
  try {
    for (const auto& [name, make] : braid::imlp::registry()) {
      write_if_changed(std::filesystem::path(out) / "braid" / "index" / "generated" / (name + ".hpp"),
                       make().generate(root));
    }
  } catch (const braid::imlp::error& e) {
    std::cerr << e.what() << '\n';
    return 1;
  }
  return 0;
}
