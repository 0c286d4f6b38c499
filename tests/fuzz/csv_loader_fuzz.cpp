// libFuzzer target: the column store's schema parser and CSV loader. The first byte picks a
// schema (integers, decimals of several scales, varchars of 1 to 65535 bytes, mixes) or, with
// bit 0x40, says the schema is the input's first line ("name:type,...;key"): a schema text
// either parses (and its to_string() parses back to the same schema) or is refused with
// std::invalid_argument. The rest is the CSV text, loaded into a table that already holds generated rows (half of the
// time merged into Main). A text either loads — every data line becomes one row, whose values
// print and parse back to themselves — or is refused with a braid::csv_error "fuzz:LINE: what"
// (LINE within the text) and the table unchanged.
// Any other exception, a crash or a sanitizer report is a bug.
#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "braid/column/table.hpp"
#include "fuzz_input.hpp"

namespace {

const char* const schemas[] = {
    "id:int64",
    "id:int64,q:int32",
    "id:int64,p:decimal(6,2),q:int32",
    "a:decimal(1,0),b:decimal(18,18),c:decimal(18,0)",
    "k:int32,v:int64,w:decimal(9,3)",
    "id:int64,name:varchar(8)",
    "s:varchar(1),t:varchar(3),p:decimal(4,2)",
    "n:varchar(20),q:int32,x:varchar(65535)",
};

std::vector<std::vector<braid::value>> contents(const braid::table& t) {
  std::vector<std::vector<braid::value>> rows;
  for (std::size_t row = 0; row < t.size(); ++row) rows.push_back(t.reconstruct(row, braid::reconstruction::naive, 1));
  return rows;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using braid::fuzzing::fuzz_check;
  if (size == 0) return 0;
  std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  braid::column_schema schema;
  if ((data[0] & 0x40) == 0) {
    schema = braid::column_schema::parse(schemas[data[0] % std::size(schemas)]);
  } else {
    const std::string line = text.substr(0, text.find('\n'));
    text.erase(0, std::min(text.size(), line.size() + 1));
    const std::size_t semicolon = line.find(';');
    try {
      schema = braid::column_schema::parse(std::string_view(line).substr(0, semicolon),
                                           semicolon == std::string::npos ? "" : std::string_view(line).substr(semicolon + 1));
    } catch (const std::invalid_argument&) {
      return 0;
    }
    const braid::column_schema again = braid::column_schema::parse(schema.to_string(), schema.columns[schema.key].name);
    fuzz_check(again.to_string() == schema.to_string() && again.key == schema.key, "a schema that does not print and parse back");
    if (schema.columns.size() > 32) return 0;  // wide tables: parsed, not loaded (keeps runs fast)
  }
  braid::table t(schema);
  t.generate(3, 2, data[0]);
  if (data[0] & 0x80) t.merge();
  const auto before = contents(t);
  // Lines as the loader counts them: split at '\n', a last empty piece is no line.
  std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  if (!text.empty() && text.back() != '\n') ++lines;
  std::istringstream in(text);
  try {
    t.load_csv(in, "fuzz");
  } catch (const braid::csv_error& e) {
    const std::string message = e.what();
    fuzz_check(message.starts_with("fuzz:" + std::to_string(e.line()) + ": "), "an error not naming fuzz:LINE");
    fuzz_check(e.line() >= 1 && e.line() <= std::max<std::size_t>(lines, 1), "an error line outside the text");
    fuzz_check(contents(t) == before, "a refused text changed the table");
    return 0;
  }
  fuzz_check(lines >= 1, "a text without a header loaded");
  fuzz_check(t.size() == before.size() + lines - 1, "not one row per data line");
  for (std::size_t c = 0; c < t.column_count(); ++c) fuzz_check(t.at(c).size() == t.size(), "columns of different lengths");
  const auto after = contents(t);
  fuzz_check(std::equal(before.begin(), before.end(), after.begin()), "loading changed earlier rows");
  for (const auto& row : after) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      const braid::column_spec& spec = schema.columns[c];
      fuzz_check(braid::fits(spec, row[c]), "a loaded value outside its type");
      fuzz_check(braid::parse_value(spec, braid::format_value(spec, row[c])) == row[c], "a value that does not print and parse back");
    }
  }
  return 0;
}
