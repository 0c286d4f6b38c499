#include "experiment.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <ostream>

#include "braid/core/thread_runner.hpp"
#include "registry.hpp"
#include "workload_files.hpp"

namespace braid::bench {

registration::registration(experiment definition) : name(definition.name) {
  register_sorted(std::move(definition));
}

const std::vector<experiment>& experiments() { return registered<experiment>(); }

const experiment* find_experiment(const std::string& name) { return find_registered<experiment>(name); }

void check_options(const experiment& definition, const options& given) {
  auto refuse = [&](bool present, unsigned flag, const char* option) {
    if (present && !(definition.accepted & flag)) {
      throw usage_error(std::string(option) + ": not an option of experiment '" + definition.name + "'");
    }
  };
  refuse(!given.sizes_bytes.empty(), accepts_size, "--size");
  refuse(given.keys.has_value(), accepts_keys, "--keys");
  refuse(!given.groups.empty(), accepts_group, "--group");
  refuse(!given.threads.empty(), accepts_threads, "--threads");
  refuse(!given.techniques.empty(), accepts_technique, "--technique");
  refuse(given.distribution.has_value(), accepts_dist, "--dist");
  refuse(given.pages.has_value(), accepts_pages, "--pages");
  refuse(given.workload_files.has_value(), accepts_workload, "--workload");
  for (const auto& [name, value] : given.settings) {
    const bool known = std::any_of(definition.settings.begin(), definition.settings.end(),
                                   [&name](const experiment_setting& setting) { return setting.name == name; });
    if (known) continue;
    std::string names;
    for (const experiment_setting& setting : definition.settings) names += (names.empty() ? "" : ", ") + setting.name;
    throw usage_error("--set " + name + "=" + value + ": not a setting of experiment '" + definition.name + "' (" +
                      (names.empty() ? std::string("it has none") : "settings: " + names) + ")");
  }
  const std::size_t cpus = available_cpus().size();
  for (unsigned threads : given.threads) {
    if (cpus != 0 && threads > cpus) {
      throw usage_error("--threads: " + std::to_string(threads) + " threads but only " + std::to_string(cpus) +
                        " CPUs are available to this process (thread sweeps run up to the cores present)");
    }
  }
  for (const std::string& technique : given.techniques) {
    if (std::find(definition.techniques.begin(), definition.techniques.end(), technique) ==
        definition.techniques.end()) {
      std::string known;
      for (const std::string& name : definition.techniques) known += (known.empty() ? "" : ",") + name;
      throw usage_error("--technique: unknown technique '" + technique + "' for experiment '" +
                        definition.name + "' (known: " + known + ")");
    }
  }
}

run_context::run_context(const experiment& definition, options given, std::ostream& progress_stream)
    : definition_(definition),
      options_(std::move(given)),
      progress_stream_(progress_stream),
      progress_enabled_(::isatty(STDERR_FILENO) == 1) {}

std::vector<std::size_t> run_context::sizes_or(std::vector<std::size_t> fallback) const {
  return options_.sizes_bytes.empty() ? fallback : options_.sizes_bytes;
}
std::vector<std::size_t> run_context::groups_or(std::vector<std::size_t> fallback) const {
  return options_.groups.empty() ? fallback : options_.groups;
}
std::vector<unsigned> run_context::threads_or(std::vector<unsigned> fallback) const {
  return options_.threads.empty() ? fallback : options_.threads;
}
std::size_t run_context::keys_or(std::size_t fallback) const { return options_.keys.value_or(fallback); }
unsigned run_context::repetitions_or(unsigned fallback) const {
  return options_.repetitions.value_or(fallback);
}
std::uint64_t run_context::seed() const { return options_.seed.value_or(42); }
key_distribution run_context::distribution_or(key_distribution fallback) const {
  return options_.distribution.value_or(fallback);
}
page_size run_context::pages_or(page_size fallback) const { return options_.pages.value_or(fallback); }
std::optional<std::string> run_context::setting(const std::string& name) const {
  for (const auto& [given, value] : options_.settings) {
    if (given == name) return value;
  }
  return std::nullopt;
}

const workload_file_pair* run_context::workload() const {
  if (!options_.workload_files) return nullptr;
  if (!workload_) workload_ = std::make_shared<const workload_file_pair>(read_workload_files(*options_.workload_files));
  return workload_.get();
}

bool run_context::selected(const std::string& technique) const {
  return options_.techniques.empty() ||
         std::find(options_.techniques.begin(), options_.techniques.end(), technique) != options_.techniques.end();
}

void run_context::require_memory(std::size_t bytes, const std::string& what) const {
  const std::size_t available = available_memory_bytes();
  if (available != 0 && bytes > available * 9 / 10) {
    throw usage_error("--size: " + what + " needs " + format_bytes(bytes) + " but only " +
                      format_bytes(available) + " of memory is available");
  }
}

void run_context::emit(result_row row) {
  result_row complete;
  complete.set("experiment", definition_.name);
  std::optional<std::string> pass;
  for (const auto& [name, value] : row.fields()) {
    if (name == "pass") {
      if (const auto* text = std::get_if<std::string>(&value)) pass = *text;
      continue;
    }
    complete.set(name, value);
  }
  if (const std::optional<double> bytes = complete.number("size_bytes")) {
    const auto size = static_cast<std::size_t>(*bytes);
    if (complete.find("residency") == nullptr && !residency_of(size).empty()) complete.set("residency", residency_of(size));
    if (complete.find("data_to_llc") == nullptr && data_to_llc(size) > 0) complete.set("data_to_llc", data_to_llc(size));
  }
  const field_value* technique = complete.find("technique");
  const std::string* name = technique == nullptr ? nullptr : std::get_if<std::string>(technique);
  if (pass) name = &*pass;
  passes_.push_back(name == nullptr ? std::nullopt : latest_pass_of(*name));
  rows_.push_back(std::move(complete));
}

std::string format_duration(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return "?";
  const long whole = std::lround(seconds);
  if (whole < 60) return std::to_string(whole) + "s";
  const long minutes = whole / 60;
  const long rest = whole % 60;
  return std::to_string(minutes) + "m" + (rest < 10 ? "0" : "") + std::to_string(rest) + "s";
}

void run_context::configuration(std::size_t index, std::size_t total, const std::string& label) {
  const auto now = std::chrono::steady_clock::now();
  if (configurations_total_ == 0 || index == 0) sweep_start_ = now;
  configurations_done_ = index;
  configurations_total_ = total;
  configuration_label_ = label + " [" + std::to_string(index + 1) + "/" + std::to_string(total);
  if (index > 0) {
    const double elapsed = std::chrono::duration<double>(now - sweep_start_).count();
    const double left = elapsed / static_cast<double>(index) * static_cast<double>(total - index);
    configuration_label_ += ", about " + format_duration(left) + " left";
  }
  configuration_label_ += "]";
  progress("");
}

void run_context::progress(const std::string& message) const {
  if (!progress_enabled_) return;
  std::string line = definition_.name;
  if (!progress_prefix_.empty()) line += " " + progress_prefix_;
  if (!configuration_label_.empty()) line += " " + configuration_label_;
  if (!message.empty()) line += ": " + message;
  progress_stream_ << "\r\033[K" << line << std::flush;
}

}  // namespace braid::bench
