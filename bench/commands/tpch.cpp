// braid-bench tpch: writes the TPC-H tables as .tbl files (tpch.hpp), deterministic for a scale
// and a seed, and prints one line a table: its rows, bytes and the seconds it took.
#include <charconv>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "tpch.hpp"

namespace braid::bench {
namespace {

constexpr const char* tpch_help = R"(usage: braid-bench tpch --scale SF --out DIR [--tables T,T,...] [--seed N]

Writes the TPC-H tables region, nation, supplier, customer, part, partsupp, orders and lineitem
as DIR/<table>.tbl ('|'-ended fields, one row a line, as dbgen writes them) with the TPC-H
schema, cardinalities (SF x 10,000 suppliers, 150,000 customers, 200,000 parts, 800,000
partsupp, 1,500,000 orders of 1..7 lineitems) and value rules. The same SF and seed give
byte-identical files, whichever tables are written.

  --scale SF     scale factor: 0.001 up to 100000, taken in thousandths (0.01, 1, 10)
  --out DIR      output directory (created if missing)
  --tables T,..  the tables to write (default: all eight)
  --seed N       random seed (default 0)
)";

double parse_scale(const std::string& text) {
  double scale = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), scale);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size() || !std::isfinite(scale)) {
    throw usage_error("--scale: '" + text + "' is not a number");
  }
  if (scale <= 0) throw usage_error("--scale: must be above 0, got " + text);
  return scale;
}

tpch::generate_options parse_tpch_options(const std::vector<std::string>& arguments) {
  tpch::generate_options options;
  bool have_scale = false;
  for (std::size_t position = 0; position < arguments.size(); ++position) {
    const std::string& name = arguments[position];
    if (position + 1 >= arguments.size()) throw usage_error(name + ": needs a value (braid-bench tpch --help)");
    const std::string& given = arguments[++position];
    if (name == "--scale") {
      options.scale_factor = parse_scale(given);
      have_scale = true;
    } else if (name == "--out") {
      if (given.empty()) throw usage_error("--out: needs a directory");
      options.out = given;
    } else if (name == "--tables") {
      options.tables = tpch::parse_tables(given);  // std::invalid_argument (exit 2) if unknown
    } else if (name == "--seed") {
      options.seed = parse_count(given, name);
    } else {
      throw usage_error("tpch: unknown option '" + name + "' (braid-bench tpch --help)");
    }
  }
  if (!have_scale) throw usage_error("tpch: --scale is required");
  if (options.out.empty()) throw usage_error("tpch: --out is required");
  (void)tpch::cardinalities_at(options.scale_factor);  // refuses a scale out of range before any file is made
  return options;
}

}  // namespace

int tpch_command(const std::vector<std::string>& arguments) {
  if (asks_for_help(arguments)) {
    std::cout << tpch_help;
    return 0;
  }
  const tpch::generate_options options = parse_tpch_options(arguments);
  std::error_code error;
  std::filesystem::create_directories(options.out, error);
  if (error) throw usage_error("--out: cannot create '" + options.out.string() + "': " + error.message());
  const std::vector<tpch::generated_table> tables = tpch::generate(options);
  std::cout << "table,rows,bytes,seconds\n";
  for (const tpch::generated_table& table : tables) {
    std::cout << tpch::name_of(table.table) << ',' << table.rows << ',' << table.bytes << ',' << std::fixed
              << std::setprecision(3) << table.seconds << '\n';
  }
  return 0;
}

}  // namespace braid::bench
