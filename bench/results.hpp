// Result rows and where they go: the terminal table, CSV and JSON-lines files, each with the
// run's metadata (machine, compiler, flags, page size obtained, seeds, git revision).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

namespace braid::bench {

using field_value = std::variant<std::int64_t, double, std::string>;

// One measured configuration. The standard fields come first in every output; experiments
// add their own (`depth`, `hit_rate`, `pages`...) with set().
class result_row {
 public:
  result_row& set(const std::string& field, field_value value);
  [[nodiscard]] const std::vector<std::pair<std::string, field_value>>& fields() const { return fields_; }
  [[nodiscard]] const field_value* find(const std::string& field) const;
  [[nodiscard]] std::optional<double> number(const std::string& field) const;

 private:
  std::vector<std::pair<std::string, field_value>> fields_;
};

// The fields DESIGN.md promises in every result, in output order.
inline const std::vector<std::string>& standard_fields() {
  static const std::vector<std::string> fields = {
      "experiment", "structure", "technique", "group", "threads", "size_bytes", "ops",
      "ns_per_op", "mops", "speedup_vs_naive", "instructions_per_op", "roofline_fraction"};
  return fields;
}

// Facts about the run, printed above the table and stored beside the results.
struct run_metadata {
  std::map<std::string, std::string> facts;  // cpu, caches, cores, compiler, flags, git, ...
  static run_metadata collect();
};

// The terminal table of the given columns (standard fields first, then the others, when empty).
void write_table(std::ostream& out, const std::vector<result_row>& rows, const std::vector<std::string>& columns = {});
// A GitHub-flavoured Markdown table of the given columns (all present ones when empty).
void write_markdown_table(std::ostream& out, const std::vector<result_row>& rows,
                          const std::vector<std::string>& columns = {});
void write_csv(std::ostream& out, const std::vector<result_row>& rows, const run_metadata& metadata);
void write_json_lines(std::ostream& out, const std::vector<result_row>& rows, const run_metadata& metadata);

std::string to_text(const field_value& value);

// Size of the largest data cache of CPU 0 (sysfs), 0 when unknown.
std::size_t last_level_cache_bytes();

// Where data of `size_bytes` lives once warm: "cache" when it fits in the last-level cache,
// "dram" otherwise (empty when the cache size is unknown). Rows with a `size_bytes` get a
// `residency` field from this when they are emitted.
std::string residency_of(std::size_t size_bytes);

}  // namespace braid::bench
