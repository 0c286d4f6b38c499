// Command-line options of `braid-bench run` and their validation. Every malformed value is a
// usage_error naming the option and the problem; main() prints it on one line and exits 2.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "braid/core/huge_buffer.hpp"

namespace braid::bench {

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class output_format { table, csv, json };

struct key_distribution {
  enum class kind { uniform, zipf, sorted } shape = kind::uniform;
  double theta = 0.99;  // zipf only
  [[nodiscard]] std::string describe() const;
  friend bool operator==(const key_distribution&, const key_distribution&) = default;
};

// Values given on the command line; unset ones take the experiment's defaults.
struct options {
  std::vector<std::size_t> sizes_bytes;  // --size 1GiB[,4MiB...]
  std::optional<std::size_t> keys;       // --keys N (lookups per repetition)
  std::vector<std::size_t> groups;       // --group 1,4,16
  std::vector<unsigned> threads;         // --threads 1,2
  std::vector<std::string> techniques;   // --technique naive,coro
  std::optional<key_distribution> distribution;  // --dist uniform|zipf:0.99|sorted
  std::optional<page_size> pages;        // --pages 4k|2m
  std::optional<unsigned> repetitions;   // --repetitions N
  std::optional<std::uint64_t> seed;     // --seed N
  bool quick = false;                    // --quick
  bool callgrind = false;                // --callgrind: instruction counts per operation
  output_format format = output_format::table;
  std::optional<std::string> out_dir;    // --out DIR
  std::optional<std::pair<std::string, std::string>> workload_files;  // --workload FILL RUN
  // --set NAME=VALUE (repeatable): settings of one experiment (`--set mix=read-only`), in the
  // order given, each name once; the experiment declares the names it knows (experiment.hpp).
  std::vector<std::pair<std::string, std::string>> settings;

  friend bool operator==(const options&, const options&) = default;
};

// Every field of `options`, as a tuple of references in declaration order. The structured
// binding must name each field once, so a field added to `options` and not here does not
// compile; code that walks the fields (merge_options, the tests) therefore cannot miss one.
template <class Options>
  requires std::same_as<std::remove_const_t<Options>, options>
constexpr auto fields_of(Options& given) {
  auto& [sizes_bytes, keys, groups, threads, techniques, distribution, pages, repetitions, seed, quick, callgrind,
         format, out_dir, workload_files, settings] = given;
  return std::tie(sizes_bytes, keys, groups, threads, techniques, distribution, pages, repetitions, seed, quick,
                  callgrind, format, out_dir, workload_files, settings);
}

// A figure preset's options overridden by the user's: every field the user set (a non-empty
// list, an engaged optional, a flag that is on, a format other than the default) replaces the
// preset's; every other field keeps the preset's value. Settings (--set) merge by name: the
// user's value of a name replaces the preset's, the preset's other settings stay.
options merge_options(const options& preset, const options& user);

// Parsers, exposed for tests. Each throws usage_error with the option name in the message.
std::size_t parse_size(std::string_view text, std::string_view option);
std::uint64_t parse_count(std::string_view text, std::string_view option);
std::vector<std::string> split_list(std::string_view text);
key_distribution parse_distribution(std::string_view text);
// NAME=VALUE of --set: NAME of lowercase letters, digits and '-', VALUE not empty.
std::pair<std::string, std::string> parse_setting(std::string_view text);

// Parses the arguments after `run EXPERIMENT`. Checks syntax and ranges; which options and
// techniques an experiment accepts is checked by the experiment registry.
options parse_run_options(const std::vector<std::string>& arguments);

// Bytes the kernel reports as available (MemAvailable), or 0 when unknown.
std::size_t available_memory_bytes();

std::string format_bytes(std::size_t bytes);

// braid-bench's exit status for `body`: its own status, or, when it throws, 2 for a usage_error
// or std::invalid_argument (one line "braid-bench: problem" on `errors`) and 1 for any other
// std::exception ("braid-bench: run failed: problem"). main() and the parsers' fuzz targets use it.
int run_with_exit_status(const std::function<int()>& body, std::ostream& errors);

}  // namespace braid::bench
