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

// Data at least this many times the last-level cache is DRAM-resident: nearly every line a
// random access touches comes from memory, whatever the machine's cache size.
constexpr std::size_t dram_cache_multiple = 16;

// The default size of a DRAM-resident experiment on this machine: 16 times the last-level
// cache (1 GiB when its size is unknown), rounded up to a whole MiB, and capped by a quarter
// of the available memory (a structure's build needs room beside its data). `--size dram`
// names it on the command line; figure presets and the headline use it for their DRAM panels,
// so one command measures the same thing on a 32 MiB and on a 260 MiB cache.
std::size_t dram_resident_bytes();

// Where data of `size_bytes` lives once warm, by its ratio to the last-level cache: "cache"
// when it fits, "dram" from 16 times the cache on, "partly cached" in between (empty when the
// cache size is unknown). Rows with a `size_bytes` get a `residency` field from this, and a
// `data_to_llc` ratio, when they are emitted.
std::string residency_of(std::size_t size_bytes);
// size_bytes over the last-level cache, 0 when the cache size is unknown.
double data_to_llc(std::size_t size_bytes);

}  // namespace braid::bench
