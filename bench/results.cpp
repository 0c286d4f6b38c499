#include "results.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <thread>

#include "braid/core/memory_probe.hpp"
#include "braid/core/thread_runner.hpp"
#include "options.hpp"

#ifndef BRAID_SOURCE_DIR
#define BRAID_SOURCE_DIR "."
#endif
#ifndef BRAID_CXX_FLAGS
#define BRAID_CXX_FLAGS "unknown"
#endif

namespace braid::bench {

result_row& result_row::set(const std::string& field, field_value value) {
  for (auto& [name, existing] : fields_) {
    if (name == field) {
      existing = std::move(value);
      return *this;
    }
  }
  fields_.emplace_back(field, std::move(value));
  return *this;
}

const field_value* result_row::find(const std::string& field) const {
  for (const auto& [name, value] : fields_) {
    if (name == field) return &value;
  }
  return nullptr;
}

std::optional<double> result_row::number(const std::string& field) const {
  const field_value* value = find(field);
  if (value == nullptr) return std::nullopt;
  if (const auto* integer = std::get_if<std::int64_t>(value)) return static_cast<double>(*integer);
  if (const auto* real = std::get_if<double>(value)) return *real;
  return std::nullopt;
}

std::string to_text(const field_value& value) {
  if (const auto* integer = std::get_if<std::int64_t>(&value)) return std::to_string(*integer);
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  const double real = std::get<double>(value);
  std::ostringstream out;
  const double magnitude = std::abs(real);
  if (magnitude != 0 && (magnitude < 0.01 || magnitude >= 1e7)) out << std::setprecision(3) << real;
  else out << std::fixed << std::setprecision(magnitude >= 100 ? 1 : magnitude >= 10 ? 2 : 3) << real;
  return out.str();
}

namespace {

// Columns: standard fields present in any row, then the others in first-seen order.
std::vector<std::string> columns_of(const std::vector<result_row>& rows) {
  std::vector<std::string> columns;
  auto present = [&](const std::string& field) {
    return std::any_of(rows.begin(), rows.end(), [&](const result_row& row) { return row.find(field) != nullptr; });
  };
  for (const std::string& field : standard_fields()) {
    if (present(field)) columns.push_back(field);
  }
  for (const result_row& row : rows) {
    for (const auto& [name, value] : row.fields()) {
      if (std::find(columns.begin(), columns.end(), name) == columns.end()) columns.push_back(name);
    }
  }
  return columns;
}

std::string csv_escape(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string escaped = "\"";
  for (char c : text) {
    if (c == '"') escaped += '"';
    escaped += c;
  }
  return escaped + "\"";
}

std::string json_escape(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    switch (c) {
      case '"': escaped += "\\\""; break;
      case '\\': escaped += "\\\\"; break;
      case '\n': escaped += "\\n"; break;
      case '\t': escaped += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
          escaped += buffer;
        } else {
          escaped += c;
        }
    }
  }
  return escaped;
}

std::string json_value(const field_value& value) {
  if (const auto* text = std::get_if<std::string>(&value)) return "\"" + json_escape(*text) + "\"";
  if (const auto* integer = std::get_if<std::int64_t>(&value)) return std::to_string(*integer);
  std::ostringstream out;
  out << std::setprecision(6) << std::get<double>(value);
  return out.str();
}

std::string command_output(const std::string& command) {
  std::string output;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    std::array<char, 256> buffer;
    while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) output += buffer.data();
    ::pclose(pipe);
  }
  while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
  return output;
}

std::string read_first_line(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

// Columns present in `rows` among `wanted`, or all of them when `wanted` is empty.
std::vector<std::string> chosen_columns(const std::vector<result_row>& rows, const std::vector<std::string>& wanted) {
  if (wanted.empty()) return columns_of(rows);
  std::vector<std::string> columns;
  for (const std::string& column : wanted) {
    if (std::any_of(rows.begin(), rows.end(), [&](const result_row& row) { return row.find(column) != nullptr; })) {
      columns.push_back(column);
    }
  }
  return columns;
}

std::size_t parse_cache_size(const std::string& text) {
  // sysfs writes "32768K" (or "2M").
  std::size_t value = 0;
  std::size_t position = 0;
  while (position < text.size() && std::isdigit(static_cast<unsigned char>(text[position]))) {
    value = value * 10 + static_cast<std::size_t>(text[position] - '0');
    ++position;
  }
  if (position < text.size() && (text[position] == 'K' || text[position] == 'k')) value <<= 10;
  if (position < text.size() && (text[position] == 'M' || text[position] == 'm')) value <<= 20;
  return value;
}

}  // namespace

namespace {

// The largest data or unified cache sysfs reports for cpu0; 0 when it reports none.
std::size_t last_level_cache_from_sysfs() {
  std::size_t largest = 0;
  for (int index = 0; index < 8; ++index) {
    const std::string base = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    const std::string level = read_first_line(base + "level");
    if (level.empty()) break;
    if (read_first_line(base + "type") == "Instruction") continue;
    largest = std::max(largest, parse_cache_size(read_first_line(base + "size")));
  }
  return largest;
}

struct last_level_cache {
  std::size_t bytes = 0;
  std::string source;
};

// sysfs when it knows the caches; otherwise measured by a chase over growing working sets
// (once per process, about a second).
const last_level_cache& this_machines_last_level_cache() {
  static const last_level_cache cache = [] {
    if (const std::size_t reported = last_level_cache_from_sysfs(); reported != 0) return last_level_cache{reported, "sysfs"};
    const cache_measurement measured = measure_last_level_cache();
    if (measured.last_level_bytes == 0) return last_level_cache{0, "unknown: no sysfs entry, no cache boundary measured"};
    return last_level_cache{measured.last_level_bytes, "measured: latency of growing working sets, no sysfs entry"};
  }();
  return cache;
}

}  // namespace

std::size_t last_level_cache_bytes() { return this_machines_last_level_cache().bytes; }

std::size_t dram_resident_bytes() {
  constexpr std::size_t mebibyte = std::size_t{1} << 20;
  const std::size_t cache = last_level_cache_bytes();
  const std::size_t wanted = cache == 0 ? std::size_t{1} << 30 : dram_cache_multiple * cache;
  std::size_t bytes = (wanted + mebibyte - 1) / mebibyte * mebibyte;
  if (const std::size_t available = available_memory_bytes(); available != 0) {
    bytes = std::min(bytes, std::max(mebibyte, available / 4 / mebibyte * mebibyte));
  }
  return bytes;
}

std::string residency_of(std::size_t size_bytes) {
  const std::size_t cache = last_level_cache_bytes();
  if (cache == 0) return "";
  if (size_bytes <= cache) return "cache";
  return size_bytes >= dram_cache_multiple * cache ? "dram" : "partly cached";
}

double data_to_llc(std::size_t size_bytes) {
  const std::size_t cache = last_level_cache_bytes();
  return cache == 0 ? 0.0 : static_cast<double>(size_bytes) / static_cast<double>(cache);
}

void write_markdown_table(std::ostream& out, const std::vector<result_row>& rows,
                          const std::vector<std::string>& wanted) {
  if (rows.empty()) {
    out << "(no results)\n";
    return;
  }
  const std::vector<std::string> columns = chosen_columns(rows, wanted);
  auto cell_text = [](std::string text) {
    std::string escaped;
    for (char c : text) escaped += c == '|' ? std::string("\\|") : std::string(1, c);
    return escaped;
  };
  out << '|';
  for (const std::string& column : columns) out << ' ' << cell_text(column) << " |";
  out << "\n|";
  for (const std::string& column : columns) {
    const bool numeric = std::any_of(rows.begin(), rows.end(), [&](const result_row& row) {
      const field_value* value = row.find(column);
      return value != nullptr && !std::holds_alternative<std::string>(*value);
    });
    out << (numeric ? " ---: |" : " --- |");
  }
  out << '\n';
  for (const result_row& row : rows) {
    out << '|';
    for (const std::string& column : columns) {
      const field_value* value = row.find(column);
      out << ' ' << (value == nullptr ? std::string("-") : cell_text(to_text(*value))) << " |";
    }
    out << '\n';
  }
}

void write_table(std::ostream& out, const std::vector<result_row>& rows, const std::vector<std::string>& wanted) {
  if (rows.empty()) {
    out << "(no results)\n";
    return;
  }
  const std::vector<std::string> columns = chosen_columns(rows, wanted);
  std::vector<std::size_t> widths;
  for (const std::string& column : columns) {
    std::size_t width = column.size();
    for (const result_row& row : rows) {
      if (const field_value* value = row.find(column)) width = std::max(width, to_text(*value).size());
    }
    widths.push_back(width);
  }
  auto line = [&](auto&& cell) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const std::string text = cell(i);
      out << (i == 0 ? "" : "  ") << std::setw(static_cast<int>(widths[i])) << std::left << text;
    }
    out << '\n';
  };
  line([&](std::size_t i) { return columns[i]; });
  line([&](std::size_t i) { return std::string(widths[i], '-'); });
  for (const result_row& row : rows) {
    line([&](std::size_t i) {
      const field_value* value = row.find(columns[i]);
      return value == nullptr ? std::string("-") : to_text(*value);
    });
  }
}

void write_csv(std::ostream& out, const std::vector<result_row>& rows, const run_metadata& metadata) {
  for (const auto& [key, value] : metadata.facts) out << "# " << key << ": " << value << '\n';
  const std::vector<std::string> columns = columns_of(rows);
  for (std::size_t i = 0; i < columns.size(); ++i) out << (i ? "," : "") << columns[i];
  out << '\n';
  for (const result_row& row : rows) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const field_value* value = row.find(columns[i]);
      out << (i ? "," : "") << (value == nullptr ? "" : csv_escape(to_text(*value)));
    }
    out << '\n';
  }
}

void write_json_lines(std::ostream& out, const std::vector<result_row>& rows, const run_metadata& metadata) {
  std::string run_facts;
  for (const auto& [key, value] : metadata.facts) {
    run_facts += (run_facts.empty() ? "" : ",") + ("\"" + json_escape(key) + "\":\"" + json_escape(value) + "\"");
  }
  for (const result_row& row : rows) {
    out << '{';
    bool first = true;
    for (const auto& [name, value] : row.fields()) {
      out << (first ? "" : ",") << '"' << json_escape(name) << "\":" << json_value(value);
      first = false;
    }
    out << (first ? "" : ",") << "\"run\":{" << run_facts << "}}\n";
  }
}

run_metadata run_metadata::collect() {
  run_metadata metadata;
  auto& facts = metadata.facts;
  {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
      if (line.starts_with("model name")) {
        facts["cpu"] = line.substr(line.find(':') + 2);
        break;
      }
    }
  }
  std::string caches;
  for (int index = 0; index < 8; ++index) {
    const std::string base = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    const std::string level = read_first_line(base + "level");
    if (level.empty()) break;
    const std::string type = read_first_line(base + "type");
    if (type == "Instruction") continue;
    caches += (caches.empty() ? "" : " ") + ("L" + level + "=" + read_first_line(base + "size"));
  }
  facts["caches"] = caches.empty() ? "unknown" : caches;
  const last_level_cache& llc = this_machines_last_level_cache();
  facts["last_level_cache"] =
      llc.bytes == 0 ? llc.source : format_bytes(llc.bytes) + ", " + llc.source;
  facts["cpus_available"] = std::to_string(available_cpus().size());
  facts["hardware_threads"] = std::to_string(std::thread::hardware_concurrency());
#if defined(__clang__)
  facts["compiler"] = std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  facts["compiler"] = std::string("gcc ") + __VERSION__;
#endif
  facts["flags"] = BRAID_CXX_FLAGS;
  utsname system{};
  if (::uname(&system) == 0) facts["kernel"] = std::string(system.sysname) + " " + system.release;
  facts["thp"] = read_first_line("/sys/kernel/mm/transparent_hugepage/enabled");
  const std::string revision = command_output("git -C '" BRAID_SOURCE_DIR "' rev-parse --short HEAD 2>/dev/null");
  const std::string dirty = command_output("git -C '" BRAID_SOURCE_DIR "' status --porcelain --untracked-files=no 2>/dev/null");
  facts["git"] = revision.empty() ? "unknown" : revision + (dirty.empty() ? "" : "-dirty");
  return metadata;
}

}  // namespace braid::bench
