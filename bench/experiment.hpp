// The experiment registry. Each experiment lives in bench/experiments/<name>.cpp and
// registers itself with a static `registration`; `braid-bench list` prints them with the
// paper figure they reproduce, `braid-bench run NAME` validates the options against what the
// experiment declares and calls it with a run_context.
#pragma once

#include <chrono>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "callgrind.hpp"
#include "options.hpp"
#include "results.hpp"

namespace braid::bench {

// The options an experiment understands; passing any other is a usage error.
enum option_flag : unsigned {
  accepts_size = 1u << 0,
  accepts_keys = 1u << 1,
  accepts_group = 1u << 2,
  accepts_threads = 1u << 3,
  accepts_technique = 1u << 4,
  accepts_dist = 1u << 5,
  accepts_pages = 1u << 6,
  accepts_workload = 1u << 7,  // --workload FILL RUN
};

class run_context;
struct workload_file_pair;

// A setting of one experiment, given as --set NAME=VALUE: what the shared options do not
// cover (a transaction's size, a log mode). The experiment checks the value when it runs (a
// bad one is a usage_error); `braid-bench run NAME --help` prints the declaration.
struct experiment_setting {
  std::string name;    // "mix"
  std::string values;  // what VALUE may be: "read-only | single-update | ycsb-a"
  std::string meaning; // what it sets, and the default: "the transactions' operations (default read-only)"
};

struct experiment {
  std::string name;                     // "switch-cost"
  std::string reproduces;               // "Killer Nanoseconds Fig. 1-2" or "machinery (no figure)"
  std::string summary;                  // one line for `list`
  std::vector<std::string> techniques;  // values --technique accepts (all run by default)
  unsigned accepted = 0;                // option_flag bits
  std::vector<experiment_setting> settings;  // names --set accepts (none by default)
  std::function<void(run_context&)> run;
};

// Registers an experiment at static-initialization time; its figure presets name it by this
// registration (figure_registration).
struct registration {
  explicit registration(experiment definition);
  std::string name;
};

const std::vector<experiment>& experiments();
const experiment* find_experiment(const std::string& name);

// What an experiment sees while it runs.
class run_context {
 public:
  run_context(const experiment& definition, options given, std::ostream& progress_stream);

  [[nodiscard]] const experiment& definition() const { return definition_; }
  [[nodiscard]] const options& given() const { return options_; }
  [[nodiscard]] bool quick() const { return options_.quick; }

  // The option's value, or the experiment's default when the user gave none.
  [[nodiscard]] std::vector<std::size_t> sizes_or(std::vector<std::size_t> fallback) const;
  [[nodiscard]] std::vector<std::size_t> groups_or(std::vector<std::size_t> fallback) const;
  [[nodiscard]] std::vector<unsigned> threads_or(std::vector<unsigned> fallback) const;
  [[nodiscard]] std::size_t keys_or(std::size_t fallback) const;
  [[nodiscard]] unsigned repetitions_or(unsigned fallback) const;
  [[nodiscard]] std::uint64_t seed() const;
  [[nodiscard]] key_distribution distribution_or(key_distribution fallback) const;
  [[nodiscard]] page_size pages_or(page_size fallback) const;
  // The value of --set NAME=VALUE, or nullopt when the user gave none for NAME.
  [[nodiscard]] std::optional<std::string> setting(const std::string& name) const;
  // The operations of --workload FILL RUN, or nullptr without the option. Figure runs read
  // and validate the files before any panel runs (set_workload); otherwise they are read on
  // the first call. Throws usage_error for an unreadable or malformed file.
  [[nodiscard]] const workload_file_pair* workload() const;
  void set_workload(std::shared_ptr<const workload_file_pair> files) { workload_ = std::move(files); }
  // Whether --technique selected this technique (all are selected by default).
  [[nodiscard]] bool selected(const std::string& technique) const;

  // Refuses (usage_error) a data size that does not fit in available memory.
  void require_memory(std::size_t bytes, const std::string& what) const;

  // A result; `experiment` is filled in, `residency` ("cache" or "dram") is added when the row
  // has a `size_bytes`, and the row is matched to the measured pass it reports, for instruction
  // counts: the latest measure_interleaved call that measured a technique_run named like the
  // row's `pass` field (which is then removed from the row) or, without one, its `technique`.
  // Set `pass` when a call measures one technique under several names ("coro@16").
  void emit(result_row row);
  [[nodiscard]] const std::vector<result_row>& rows() const { return rows_; }
  [[nodiscard]] std::vector<result_row>& rows() { return rows_; }
  // Per row, the pass it reports (nullopt for rows without a measured technique).
  [[nodiscard]] const std::vector<std::optional<pass_key>>& passes() const { return passes_; }

  // Progress for long runs: printed when stderr is a terminal, silent otherwise. The line
  // names the experiment, the figure panel and the configuration running, with an estimate of
  // the time left once a configuration has finished.
  void progress(const std::string& message) const;
  // Starts configuration `index` of `total` (0-based) of a sweep, e.g. "group 8, 1GiB":
  // progress lines show it, and the time per finished configuration gives the ETA.
  void configuration(std::size_t index, std::size_t total, const std::string& label);
  // Set by figure runs: "panel 2/4 (1 GiB zipf)".
  void set_progress_prefix(std::string prefix) { progress_prefix_ = std::move(prefix); }

  // Facts the experiment learned (page size obtained, seeds) for the run's metadata.
  void note(const std::string& key, const std::string& value) { notes_.emplace_back(key, value); }
  [[nodiscard]] const std::vector<std::pair<std::string, std::string>>& notes() const { return notes_; }

 private:
  const experiment& definition_;
  options options_;
  mutable std::shared_ptr<const workload_file_pair> workload_;
  std::ostream& progress_stream_;
  bool progress_enabled_;
  std::vector<result_row> rows_;
  std::vector<std::optional<pass_key>> passes_;
  std::vector<std::pair<std::string, std::string>> notes_;
  std::string progress_prefix_;
  std::string configuration_label_;
  std::chrono::steady_clock::time_point sweep_start_{};
  std::size_t configurations_done_ = 0;
  std::size_t configurations_total_ = 0;
};

// Validates `given` against the experiment's declared options, settings and techniques, and refuses
// --threads above the CPUs this process may run on (pinned workers would share a CPU and the
// numbers would mean nothing): a thread sweep runs up to the cores present.
void check_options(const experiment& definition, const options& given);

// "1m05s", "42s": for progress lines and time budgets.
std::string format_duration(double seconds);

}  // namespace braid::bench
