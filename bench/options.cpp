#include "options.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <ostream>
#include <sstream>

#include "results.hpp"

namespace braid::bench {

namespace {

[[noreturn]] void fail(std::string_view option, const std::string& problem) {
  throw usage_error(std::string(option) + ": " + problem);
}

}  // namespace

std::string key_distribution::describe() const {
  switch (shape) {
    case kind::uniform: return "uniform";
    case kind::sorted: return "sorted";
    case kind::zipf: {
      std::ostringstream text;
      text << "zipf:" << theta;
      return text.str();
    }
  }
  return "?";
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::size_t end = comma == std::string_view::npos ? text.size() : comma;
    items.emplace_back(text.substr(start, end - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return items;
}

std::uint64_t parse_count(std::string_view text, std::string_view option) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size()) {
    fail(option, "'" + std::string(text) + "' is not a non-negative integer");
  }
  return value;
}

std::size_t parse_size(std::string_view text, std::string_view option) {
  // <number>[unit]: unit B, KiB/MiB/GiB (binary), K/M/G (binary), KB/MB/GB (decimal); or
  // `dram`, this machine's DRAM-resident size (results.hpp).
  if (text == "dram") return dram_resident_bytes();
  std::size_t split = 0;
  while (split < text.size() && (std::isdigit(static_cast<unsigned char>(text[split])) || text[split] == '.')) ++split;
  const std::string number(text.substr(0, split));
  const std::string unit(text.substr(split));
  double value = 0;
  std::istringstream parse(number);
  if (number.empty() || !(parse >> value) || !parse.eof()) {
    fail(option, "'" + std::string(text) + "' is not a size (examples: 4096, 64KiB, 1.5MiB, 1GiB, dram)");
  }
  double multiplier = 0;
  if (unit.empty() || unit == "B") multiplier = 1;
  else if (unit == "KiB" || unit == "K" || unit == "k") multiplier = 1024.0;
  else if (unit == "MiB" || unit == "M" || unit == "m") multiplier = 1024.0 * 1024;
  else if (unit == "GiB" || unit == "G" || unit == "g") multiplier = 1024.0 * 1024 * 1024;
  else if (unit == "KB" || unit == "kB") multiplier = 1e3;
  else if (unit == "MB") multiplier = 1e6;
  else if (unit == "GB") multiplier = 1e9;
  else fail(option, "unknown unit '" + unit + "' in '" + std::string(text) + "' (use B, KiB, MiB, GiB)");
  const double bytes = value * multiplier;
  if (bytes < 1) fail(option, "size must be at least 1 byte");
  if (bytes > 1e15) fail(option, "'" + std::string(text) + "' is implausibly large");
  return static_cast<std::size_t>(std::llround(bytes));
}

key_distribution parse_distribution(std::string_view text) {
  key_distribution distribution;
  if (text == "uniform") return distribution;
  if (text == "sorted") {
    distribution.shape = key_distribution::kind::sorted;
    return distribution;
  }
  if (text == "zipf" || text.starts_with("zipf:")) {
    distribution.shape = key_distribution::kind::zipf;
    if (text.size() > 4) {
      std::istringstream parse{std::string(text.substr(5))};
      double theta = 0;
      parse >> theta;
      if (parse.fail() || !parse.eof() || !(theta > 0.0) || !(theta < 1.0)) {
        throw usage_error("--dist: zipf theta must be a number in (0, 1), got '" +
                          std::string(text.substr(5)) + "'");
      }
      distribution.theta = theta;
    }
    return distribution;
  }
  throw usage_error("--dist: '" + std::string(text) + "' is not uniform, sorted or zipf[:theta]");
}

std::pair<std::string, std::string> parse_setting(std::string_view text) {
  const std::size_t equals = text.find('=');
  if (equals == std::string_view::npos) fail("--set", "'" + std::string(text) + "' is not NAME=VALUE");
  const std::string_view name = text.substr(0, equals);
  const std::string_view value = text.substr(equals + 1);
  const bool name_ok = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
  if (!name_ok) fail("--set", "'" + std::string(name) + "' is not a setting name (lowercase letters, digits, '-')");
  if (value.empty()) fail("--set", "no value for '" + std::string(name) + "'");
  return {std::string(name), std::string(value)};
}

std::size_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::size_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

std::string format_bytes(std::size_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  std::ostringstream text;
  text << (value == std::floor(value) ? std::fixed : std::defaultfloat);
  text.precision(value == std::floor(value) ? 0 : 3);
  text << value << units[unit];
  return text.str();
}

options merge_options(const options& preset, const options& user) {
  options merged = preset;
  auto take_if_set = [](auto& target, const auto& given) {
    if (given != std::remove_cvref_t<decltype(given)>{}) target = given;
  };
  [&]<std::size_t... field>(std::index_sequence<field...>) {
    (take_if_set(std::get<field>(fields_of(merged)), std::get<field>(fields_of(user))), ...);
  }(std::make_index_sequence<std::tuple_size_v<decltype(fields_of(merged))>>{});
  merged.settings = preset.settings;
  for (const auto& [name, value] : user.settings) {
    const auto same = std::find_if(merged.settings.begin(), merged.settings.end(),
                                   [&name](const auto& setting) { return setting.first == name; });
    if (same == merged.settings.end()) merged.settings.emplace_back(name, value);
    else same->second = value;
  }
  return merged;
}

options parse_run_options(const std::vector<std::string>& arguments) {
  options parsed;
  for (std::size_t position = 0; position < arguments.size(); ++position) {
    const std::string& name = arguments[position];
    auto value = [&]() -> const std::string& {
      if (position + 1 >= arguments.size()) fail(name, "needs a value");
      return arguments[++position];
    };
    if (name == "--size") {
      for (const std::string& item : split_list(value())) parsed.sizes_bytes.push_back(parse_size(item, name));
    } else if (name == "--keys") {
      parsed.keys = parse_count(value(), name);
      if (*parsed.keys == 0) fail(name, "must be at least 1");
    } else if (name == "--group") {
      for (const std::string& item : split_list(value())) {
        const std::uint64_t group = parse_count(item, name);
        if (group == 0) fail(name, "group size 0 is meaningless (use 1 for one operation at a time)");
        if (group > 4096) fail(name, "group size " + item + " is above the supported 4096");
        parsed.groups.push_back(group);
      }
    } else if (name == "--threads") {
      for (const std::string& item : split_list(value())) {
        const std::uint64_t threads = parse_count(item, name);
        if (threads == 0 || threads > 1024) fail(name, "thread count must be in 1..1024, got " + item);
        parsed.threads.push_back(static_cast<unsigned>(threads));
      }
    } else if (name == "--technique") {
      parsed.techniques = split_list(value());
      for (const std::string& technique : parsed.techniques) {
        if (technique.empty()) fail(name, "empty technique name in the list");
      }
    } else if (name == "--dist") {
      parsed.distribution = parse_distribution(value());
    } else if (name == "--pages") {
      const std::string& pages = value();
      if (pages == "4k") parsed.pages = page_size::small_4k;
      else if (pages == "2m") parsed.pages = page_size::huge_2m;
      else fail(name, "'" + pages + "' is not 4k or 2m");
    } else if (name == "--repetitions") {
      const std::uint64_t repetitions = parse_count(value(), name);
      if (repetitions == 0 || repetitions > 1000) fail(name, "must be in 1..1000");
      parsed.repetitions = static_cast<unsigned>(repetitions);
    } else if (name == "--seed") {
      parsed.seed = parse_count(value(), name);
    } else if (name == "--quick") {
      parsed.quick = true;
    } else if (name == "--callgrind") {
      parsed.callgrind = true;
    } else if (name == "--format") {
      const std::string& format = value();
      if (format == "table") parsed.format = output_format::table;
      else if (format == "csv") parsed.format = output_format::csv;
      else if (format == "json") parsed.format = output_format::json;
      else fail(name, "'" + format + "' is not table, csv or json");
    } else if (name == "--out") {
      parsed.out_dir = value();
    } else if (name == "--workload") {
      std::string fill = value();
      parsed.workload_files = {std::move(fill), value()};
    } else if (name == "--set") {
      auto setting = parse_setting(value());
      for (const auto& given : parsed.settings) {
        if (given.first == setting.first) fail(name, "'" + given.first + "' given twice");
      }
      parsed.settings.push_back(std::move(setting));
    } else {
      throw usage_error("unknown option '" + name + "' (see braid-bench run --help)");
    }
  }
  return parsed;
}

namespace {

// A message on one line: the user's text it quotes may hold line breaks and other control
// characters, which are written as escapes (\n, \xNN).
std::string on_one_line(std::string_view message) {
  std::string line;
  for (const char c : message) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      line += "\\n";
    } else if (byte < 0x20 || byte == 0x7f) {
      static constexpr char hex[] = "0123456789abcdef";
      line += "\\x";
      line += hex[byte >> 4];
      line += hex[byte & 0xf];
    } else {
      line += c;
    }
  }
  return line;
}

}  // namespace

int run_with_exit_status(const std::function<int()>& body, std::ostream& errors) {
  try {
    return body();
  } catch (const usage_error& error) {
    errors << "braid-bench: " << on_one_line(error.what()) << '\n';
    return 2;
  } catch (const std::invalid_argument& error) {
    errors << "braid-bench: " << on_one_line(error.what()) << '\n';
    return 2;
  } catch (const std::exception& error) {
    errors << "braid-bench: run failed: " << on_one_line(error.what()) << '\n';
    return 1;
  }
}

}  // namespace braid::bench
