#include "experiment.hpp"

#include <unistd.h>

#include <algorithm>
#include <ostream>

namespace braid::bench {

namespace {

std::vector<experiment>& registry() {
  static std::vector<experiment> all;
  return all;
}

}  // namespace

registration::registration(experiment definition) {
  registry().push_back(std::move(definition));
  std::sort(registry().begin(), registry().end(),
            [](const experiment& a, const experiment& b) { return a.name < b.name; });
}

const std::vector<experiment>& experiments() { return registry(); }

namespace {
std::vector<command>& command_registry() {
  static std::vector<command> all;
  return all;
}
}  // namespace

command_registration::command_registration(command definition) {
  command_registry().push_back(std::move(definition));
  std::sort(command_registry().begin(), command_registry().end(),
            [](const command& a, const command& b) { return a.name < b.name; });
}

const std::vector<command>& commands() { return command_registry(); }

const experiment* find_experiment(const std::string& name) {
  for (const experiment& candidate : registry()) {
    if (candidate.name == name) return &candidate;
  }
  return nullptr;
}

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
  for (const auto& [name, value] : row.fields()) complete.set(name, value);
  rows_.push_back(std::move(complete));
}

void run_context::progress(const std::string& message) const {
  if (progress_enabled_) progress_stream_ << "\r\033[K" << definition_.name << ": " << message << std::flush;
}

}  // namespace braid::bench
