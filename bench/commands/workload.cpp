// braid-bench workload: writes a YCSB core workload as two plain-text files (fill + run), the
// format the public MxTasking benchmark reads; experiments take them with --workload FILL RUN.
#include <algorithm>
#include <array>
#include <iostream>

#include "commands.hpp"
#include "experiment.hpp"
#include "workload_files.hpp"

namespace braid::bench {
namespace {

constexpr const char* workload_help = R"(usage: braid-bench workload --ycsb W --records N [options]

Writes YCSB core workload W as a fill file (INSERT of every record, YCSB's hashed insert order:
key = FNV-64 of the insert number) and a run file (YCSB's operation mix and request
distribution), one operation a line. Deterministic for a seed; no Java, no download.

  --ycsb W            a | b | c | d | e | f  (A 50/50 read/update, B 95/5, C read only,
                      D 95 read / 5 insert with reads of the latest, E 95 scan / 5 insert,
                      F 50 read / 50 read-modify-write)
  --records N         records in the fill file (20M, 1000000, 50K: K/M/G are decimal)
  --operations N      operations in the run file (default: as many as records)
  --dist D            zipf[:theta] (YCSB's scrambled Zipfian, default 0.99) | uniform
  --seed N            random seed (default 42)
  --fill FILE         default ycsb-W-fill.txt
  --run FILE          default ycsb-W-DIST-run.txt
)";

std::uint64_t parse_decimal_count(const std::string& text, const std::string& option) {
  std::string digits = text;
  std::uint64_t multiplier = 1;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'k': case 'K': multiplier = 1'000; break;
      case 'm': case 'M': multiplier = 1'000'000; break;
      case 'g': case 'G': multiplier = 1'000'000'000; break;
      default: break;
    }
    if (multiplier != 1) digits.pop_back();
  }
  const std::uint64_t count = parse_count(digits, option);
  if (count > ~std::uint64_t{0} / multiplier) throw usage_error(option + ": '" + text + "' is too large");
  return count * multiplier;
}

}  // namespace

int workload_command(const std::vector<std::string>& arguments) {
  ycsb_spec spec;
  spec.requests.shape = key_distribution::kind::zipf;
  bool have_workload = false;
  std::optional<std::uint64_t> operations;
  std::string fill_path;
  std::string run_path;
  for (std::size_t position = 0; position < arguments.size(); ++position) {
    const std::string& name = arguments[position];
    if (name == "--help" || name == "-h") {
      std::cout << workload_help;
      return 0;
    }
    if (position + 1 >= arguments.size()) throw usage_error(name + ": needs a value (braid-bench workload --help)");
    const std::string& value = arguments[++position];
    if (name == "--ycsb") {
      spec.workload = parse_ycsb_workload(value);
      have_workload = true;
    } else if (name == "--records") {
      spec.records = parse_decimal_count(value, name);
    } else if (name == "--operations") {
      operations = parse_decimal_count(value, name);
    } else if (name == "--dist") {
      spec.requests = parse_distribution(value);
      if (spec.requests.shape == key_distribution::kind::sorted) {
        throw usage_error("--dist: YCSB requests are zipf[:theta] or uniform");
      }
    } else if (name == "--seed") {
      spec.seed = parse_count(value, name);
    } else if (name == "--fill") {
      fill_path = value;
    } else if (name == "--run") {
      run_path = value;
    } else {
      throw usage_error("workload: unknown option '" + name + "' (braid-bench workload --help)");
    }
  }
  if (!have_workload) throw usage_error("workload: --ycsb is required (a..f)");
  if (spec.records == 0) throw usage_error("workload: --records is required");
  spec.operations = operations.value_or(spec.records);
  const char letter = static_cast<char>(spec.workload);
  if (fill_path.empty()) fill_path = std::string("ycsb-") + letter + "-fill.txt";
  if (run_path.empty()) {
    std::string distribution = spec.workload == ycsb_workload::d ? "latest" : spec.requests.describe();
    std::replace(distribution.begin(), distribution.end(), ':', '-');
    run_path = std::string("ycsb-") + letter + "-" + distribution + "-run.txt";
  }

  const generated_workload made = generate_ycsb(spec);
  write_workload_file(fill_path, made.fill);
  write_workload_file(run_path, made.run);

  std::array<std::size_t, 5> counts{};
  for (const workload_operation& operation : made.run) ++counts[static_cast<std::size_t>(operation.kind)];
  std::cout << "wrote " << fill_path << " (" << made.fill.size() << " INSERT)\n"
            << "wrote " << run_path << " (";
  const char* separator = "";
  for (std::size_t kind = 0; kind < counts.size(); ++kind) {
    if (counts[kind] == 0) continue;
    std::cout << separator << counts[kind] << ' ' << to_string(static_cast<workload_operation_kind>(kind));
    separator = ", ";
  }
  std::cout << ")\n";
  return 0;
}

}  // namespace braid::bench
