// braid-bench table: the column store's two queries over a CSV file, the table's schema given
// on the command line. Loads the file (all or nothing: a malformed line names file:line and
// exits 2), optionally merges every Delta into its Main, then answers
//   --count-in COLUMN --values V,V,...   SELECT COUNT(*) WHERE COLUMN IN (values)
//   --select KEY                         SELECT * WHERE key = KEY (the row as CSV, or nothing)
// with the technique given, so a user can check any technique on their own data against naive.
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "braid/column/table.hpp"
#include "commands.hpp"
#include "experiment.hpp"

namespace braid::bench {
namespace {

constexpr const char* table_help = R"(usage: braid-bench table --schema S --csv FILE [--key NAME] [--merge] QUERY [options]

Loads FILE into a column-store table (header line naming every column, then one row a line,
comma-separated, no quoting) and runs one query:
  --count-in COLUMN --values V,V,...  SELECT COUNT(*) WHERE COLUMN IN (V, ...); prints
                                      main_rows, delta_rows and count
  --select KEY                        SELECT * WHERE key = KEY; prints the header and the row
                                      (no row when absent)

  --schema S          name:type,... with type int32, int64, decimal(p,s) or varchar(n)
  --key NAME          the key column (default: the first)
  --csv FILE          the table's rows; a malformed line is reported as FILE:LINE and exits 2
  --merge             merge every column's Delta into its Main before the query
  --technique T       the IN-list's locate in Main and in Delta: naive, gp, amac, coro,
                      coro_nested, fiber, adaptive (default naive); a technique a fragment lacks
                      is refused, even when that fragment is empty (integer Deltas have no gp
                      and amac, VARCHAR Mains no fiber, and VARCHAR Deltas no gp, amac, fiber
                      and coro_nested)
  --main-technique T, --delta-technique T   the same for one fragment
  --group N           lookups in flight for the interleaved techniques (default 16)
  --reconstruction R  --select's tuple reconstruction: naive, nested, elided, flat (default naive)
)";

struct table_options {
  std::string schema;
  std::string key;
  std::string csv;
  bool merge = false;
  std::optional<std::string> count_in;
  std::optional<std::string> values;
  std::optional<std::string> select;
  technique main_locate = technique::naive;
  technique delta_locate = technique::naive;
  std::size_t group = 16;
  reconstruction how = reconstruction::naive;
};

table_options parse_table_options(const std::vector<std::string>& arguments) {
  table_options options;
  for (std::size_t position = 0; position < arguments.size(); ++position) {
    const std::string& name = arguments[position];
    if (name == "--merge") {
      options.merge = true;
      continue;
    }
    if (position + 1 >= arguments.size()) throw usage_error(name + ": needs a value (braid-bench table --help)");
    const std::string& given = arguments[++position];
    if (name == "--schema") {
      options.schema = given;
    } else if (name == "--key") {
      options.key = given;
    } else if (name == "--csv") {
      options.csv = given;
    } else if (name == "--count-in") {
      options.count_in = given;
    } else if (name == "--values") {
      options.values = given;
    } else if (name == "--select") {
      options.select = given;
    } else if (name == "--technique") {
      options.main_locate = options.delta_locate = parse_technique(given);  // std::invalid_argument (exit 2) if unknown
    } else if (name == "--main-technique") {
      options.main_locate = parse_technique(given);
    } else if (name == "--delta-technique") {
      options.delta_locate = parse_technique(given);
    } else if (name == "--group") {
      options.group = parse_count(given, name);
      if (options.group == 0) throw usage_error("--group: must be at least 1");
    } else if (name == "--reconstruction") {
      try {
        options.how = parse_reconstruction(given);
      } catch (const std::invalid_argument& e) {
        throw usage_error(std::string("--reconstruction: ") + e.what());
      }
    } else {
      throw usage_error("table: unknown option '" + name + "' (braid-bench table --help)");
    }
  }
  if (options.schema.empty()) throw usage_error("table: --schema is required");
  if (options.csv.empty()) throw usage_error("table: --csv is required");
  if (options.count_in.has_value() == options.select.has_value()) {
    throw usage_error("table: give one query, --count-in COLUMN --values ... or --select KEY");
  }
  if (options.count_in.has_value() != options.values.has_value()) throw usage_error("table: --count-in needs --values");
  return options;
}

int count_in(const table& t, const table_options& options) {
  const column_spec& spec = t.schema().columns[t.schema().index_of(*options.count_in)];
  std::vector<value> list;
  for (const std::string& text : split_list(*options.values)) list.push_back(parse_value(spec, text));
  const in_predicate_result result = t.count_in(spec.name, list, {options.main_locate, options.delta_locate, options.group});
  std::cout << "main_rows,delta_rows,count\n" << result.main_rows << ',' << result.delta_rows << ',' << result.total() << '\n';
  return 0;
}

int select(const table& t, const table_options& options) {
  const column_schema& schema = t.schema();
  const std::optional<std::vector<value>> row = t.select_by_key(parse_value(schema.columns[schema.key], *options.select),
                                                                options.how, options.group);
  for (std::size_t c = 0; c < schema.columns.size(); ++c) std::cout << (c ? "," : "") << schema.columns[c].name;
  std::cout << '\n';
  if (!row) return 0;
  for (std::size_t c = 0; c < schema.columns.size(); ++c) std::cout << (c ? "," : "") << format_value(schema.columns[c], (*row)[c]);
  std::cout << '\n';
  return 0;
}

}  // namespace

int table_command(const std::vector<std::string>& arguments) {
  if (asks_for_help(arguments)) {
    std::cout << table_help;
    return 0;
  }
  const table_options options = parse_table_options(arguments);
  // The library refuses bad input with std::invalid_argument (a bad schema, a value of the wrong
  // type, a technique a fragment lacks), which exits 2; a malformed file is bad input too.
  try {
    table t(column_schema::parse(options.schema, options.key));
    t.load_csv_file(options.csv);
    if (options.merge) t.merge();
    return options.count_in ? count_in(t, options) : select(t, options);
  } catch (const csv_error& e) {
    throw usage_error(e.what());
  }
}

}  // namespace braid::bench
