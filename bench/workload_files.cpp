#include "workload_files.hpp"

#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <optional>
#include <stdexcept>

#include "workloads.hpp"

namespace braid::bench {

const char* to_string(workload_operation_kind kind) noexcept {
  switch (kind) {
    case workload_operation_kind::insert: return "INSERT";
    case workload_operation_kind::read: return "READ";
    case workload_operation_kind::update: return "UPDATE";
    case workload_operation_kind::erase: return "DELETE";
    case workload_operation_kind::scan: return "SCAN";
  }
  return "?";
}

namespace {

// Parses one line at a time, counting lines across the chunks of a file.
class workload_parser {
 public:
  explicit workload_parser(std::string source) : source_(std::move(source)) {}

  void parse_line(std::string_view line) {
    ++line_number_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::array<std::string_view, 4> tokens{};
    std::size_t count = 0;
    std::size_t position = 0;
    while (count < tokens.size()) {
      position = line.find_first_not_of(" \t", position);
      if (position == std::string_view::npos) break;
      const std::size_t end = std::min(line.find_first_of(" \t", position), line.size());
      tokens[count++] = line.substr(position, end - position);
      position = end;
    }
    if (count == 0) return;  // blank line
    workload_operation operation;
    const std::optional<workload_operation_kind> kind = kind_of(tokens[0]);
    if (!kind) {
      fail("unknown operation '" + std::string(tokens[0]) + "' (expected INSERT, READ, UPDATE, DELETE or SCAN)");
    }
    operation.kind = *kind;
    if (count < 2) fail(std::string(to_string(operation.kind)) + " needs a key");
    operation.key = parse_number(tokens[1], "key", ~std::uint64_t{0});
    std::size_t used = 2;
    if (operation.kind == workload_operation_kind::scan) {
      if (count < 3) fail("SCAN needs a key and a length");
      operation.scan_length = static_cast<std::uint32_t>(parse_number(tokens[2], "scan length", 0xFFFF'FFFFull));
      if (operation.scan_length == 0) fail("scan length must be at least 1");
      used = 3;
    }
    if (count > used) fail("unexpected '" + std::string(tokens[used]) + "' after the operation");
    operations_.push_back(operation);
  }

  std::vector<workload_operation> take() { return std::move(operations_); }
  void reserve(std::size_t bytes) { operations_.reserve(bytes / 20); }

 private:
  static std::optional<workload_operation_kind> kind_of(std::string_view token) {
    for (auto kind : {workload_operation_kind::insert, workload_operation_kind::read, workload_operation_kind::update,
                      workload_operation_kind::erase, workload_operation_kind::scan}) {
      if (token == to_string(kind)) return kind;
    }
    return std::nullopt;
  }

  std::uint64_t parse_number(std::string_view token, const char* what, std::uint64_t largest) {
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (error == std::errc::result_out_of_range || (error == std::errc{} && end == token.data() + token.size() && value > largest)) {
      fail(std::string(what) + " '" + std::string(token) + "' is out of range (largest " + std::to_string(largest) + ")");
    }
    if (error != std::errc{} || end != token.data() + token.size()) {
      fail(std::string(what) + " '" + std::string(token) + "' is not a decimal unsigned integer");
    }
    return value;
  }

  [[noreturn]] void fail(const std::string& problem) const {
    throw usage_error(source_ + ":" + std::to_string(line_number_) + ": " + problem);
  }

  std::string source_;
  std::size_t line_number_ = 0;
  std::vector<workload_operation> operations_;
};

}  // namespace

std::vector<workload_operation> parse_workload(std::string_view text, const std::string& source) {
  workload_parser parser(source);
  parser.reserve(text.size());
  std::size_t position = 0;
  while (position < text.size()) {
    const std::size_t end = std::min(text.find('\n', position), text.size());
    parser.parse_line(text.substr(position, end - position));
    position = end + 1;
  }
  return parser.take();
}

std::vector<workload_operation> read_workload_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw usage_error(path + ": cannot open (" + std::strerror(errno) + ")");
  file.seekg(0, std::ios::end);
  const auto size = static_cast<std::size_t>(std::max<std::streamoff>(file.tellg(), 0));
  file.seekg(0, std::ios::beg);
  workload_parser parser(path);
  parser.reserve(size);
  // Chunks of 16 MiB; a line cut by a chunk's end waits for the next chunk.
  constexpr std::size_t chunk_bytes = std::size_t{16} << 20;
  std::string chunk(chunk_bytes, '\0');
  std::string carried;
  for (;;) {
    file.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto got = static_cast<std::size_t>(file.gcount());
    if (got == 0) break;
    std::string_view text(chunk.data(), got);
    std::size_t position = 0;
    for (;;) {
      const std::size_t end = text.find('\n', position);
      if (end == std::string_view::npos) break;
      if (!carried.empty()) {
        carried.append(text.substr(position, end - position));
        parser.parse_line(carried);
        carried.clear();
      } else {
        parser.parse_line(text.substr(position, end - position));
      }
      position = end + 1;
    }
    carried.append(text.substr(position));
    if (file.eof()) break;
  }
  if (file.bad()) throw usage_error(path + ": read error");
  if (!carried.empty()) parser.parse_line(carried);  // a last line without a newline
  return parser.take();
}

std::string format_workload(std::span<const workload_operation> operations) {
  std::string text;
  text.reserve(operations.size() * 28);
  char number[24];
  for (const workload_operation& operation : operations) {
    text += to_string(operation.kind);
    text += ' ';
    text.append(number, std::to_chars(number, number + sizeof(number), operation.key).ptr);
    if (operation.kind == workload_operation_kind::scan) {
      text += ' ';
      text.append(number, std::to_chars(number, number + sizeof(number), operation.scan_length).ptr);
    }
    text += '\n';
  }
  return text;
}

void write_workload_file(const std::string& path, std::span<const workload_operation> operations) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) throw std::runtime_error(path + ": cannot create (" + std::strerror(errno) + ")");
  constexpr std::size_t chunk_operations = 1 << 16;
  for (std::size_t begin = 0; begin < operations.size(); begin += chunk_operations) {
    const std::string text = format_workload(operations.subspan(begin, std::min(chunk_operations, operations.size() - begin)));
    file.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  file.close();
  if (!file) throw std::runtime_error(path + ": write failed");
}

ycsb_workload parse_ycsb_workload(std::string_view text) {
  if (text.size() == 1) {
    const char letter = static_cast<char>(text[0] | 0x20);
    if (letter >= 'a' && letter <= 'f') return static_cast<ycsb_workload>(letter);
  }
  throw usage_error("--ycsb: '" + std::string(text) + "' is not a YCSB core workload (a, b, c, d, e or f)");
}

namespace {

struct proportions {
  double read = 0;
  double update = 0;
  double insert = 0;
  double scan = 0;
  double read_modify_write = 0;
};

proportions proportions_of(ycsb_workload workload) {
  switch (workload) {
    case ycsb_workload::a: return {.read = 0.5, .update = 0.5};
    case ycsb_workload::b: return {.read = 0.95, .update = 0.05};
    case ycsb_workload::c: return {.read = 1.0};
    case ycsb_workload::d: return {.read = 0.95, .insert = 0.05};
    case ycsb_workload::e: return {.insert = 0.05, .scan = 0.95};
    case ycsb_workload::f: return {.read = 0.5, .read_modify_write = 0.5};
  }
  return {};
}

// YCSB's SkewedLatestGenerator: the latest inserts are the most popular. Draws
// max - zipfian(max) over the insert numbers so far (as YCSB, never insert number 0); the
// Zipfian constant is extended incrementally as inserts arrive.
class latest_generator {
 public:
  latest_generator(std::uint64_t inserted, double theta) : theta_(theta), items_(inserted), zetan_(zeta(inserted, theta)) {}
  std::uint64_t next(random_source& random, std::uint64_t inserted) {
    while (items_ < inserted) {
      ++items_;
      zetan_ += std::pow(static_cast<double>(items_), -theta_);
      generator_.reset();
    }
    const std::uint64_t latest = inserted - 1;
    if (latest == 0) return 0;
    if (!generator_) generator_.emplace(latest, theta_, zeta_of(latest));
    return latest - generator_->next(random);
  }

 private:
  // zeta(latest) from zeta(items_) = zeta(latest + 1).
  double zeta_of(std::uint64_t latest) const { return zetan_ - std::pow(static_cast<double>(latest + 1), -theta_); }

  double theta_;
  std::uint64_t items_;
  double zetan_;
  std::optional<zipfian_generator> generator_;
};

}  // namespace

generated_workload generate_ycsb(const ycsb_spec& spec) {
  if (spec.records < 2) throw usage_error("--records: YCSB needs at least 2 records");
  if (spec.requests.shape == key_distribution::kind::sorted) {
    throw usage_error("--dist: YCSB requests are zipf or uniform, not sorted");
  }
  generated_workload made;
  made.fill.reserve(spec.records);
  for (std::uint64_t index = 0; index < spec.records; ++index) {
    made.fill.push_back({ycsb_fnv_hash64(index), 0, workload_operation_kind::insert});
  }

  const proportions mix = proportions_of(spec.workload);
  random_source random(spec.seed);
  std::uint64_t inserted = spec.records;  // insert numbers [0, inserted) exist
  const auto expected_new_keys = static_cast<std::uint64_t>(static_cast<double>(spec.operations) * mix.insert * 2.0);
  scrambled_zipfian_generator zipfian(spec.records + expected_new_keys, spec.requests.theta);
  std::optional<latest_generator> latest;
  if (spec.workload == ycsb_workload::d) latest.emplace(inserted, 0.99);

  // YCSB's key choice: the latest inserts (D), uniform over the loaded records, or the
  // scrambled Zipfian over records and expected inserts, drawn again beyond the inserted ones.
  auto choose = [&]() -> std::uint64_t {
    if (latest) return latest->next(random, inserted);
    if (spec.requests.shape == key_distribution::kind::uniform) return random.below(spec.records);
    for (;;) {
      const std::uint64_t number = zipfian.next(random);
      if (number < inserted) return number;
    }
  };

  enum class choice { read, update, insert, scan, read_modify_write };
  const std::array<std::pair<choice, double>, 5> weights = {{{choice::read, mix.read},
                                                             {choice::update, mix.update},
                                                             {choice::insert, mix.insert},
                                                             {choice::scan, mix.scan},
                                                             {choice::read_modify_write, mix.read_modify_write}}};
  auto pick = [&]() {
    double dice = random.next_double();
    choice last = choice::read;
    for (const auto& [kind, weight] : weights) {
      if (weight <= 0) continue;
      last = kind;
      if ((dice -= weight) < 0) return kind;
    }
    return last;  // rounding left the dice a hair above the total
  };

  made.run.reserve(spec.operations + (mix.read_modify_write > 0 ? spec.operations : 0));
  for (std::uint64_t operation = 0; operation < spec.operations; ++operation) {
    switch (pick()) {
      case choice::read: made.run.push_back({ycsb_fnv_hash64(choose()), 0, workload_operation_kind::read}); break;
      case choice::update: made.run.push_back({ycsb_fnv_hash64(choose()), 0, workload_operation_kind::update}); break;
      case choice::insert:
        made.run.push_back({ycsb_fnv_hash64(inserted), 0, workload_operation_kind::insert});
        ++inserted;
        break;
      case choice::scan: {
        const std::uint64_t start = choose();
        const auto length = static_cast<std::uint32_t>(1 + random.below(100));
        made.run.push_back({ycsb_fnv_hash64(start), length, workload_operation_kind::scan});
        break;
      }
      case choice::read_modify_write: {
        const std::uint64_t key = ycsb_fnv_hash64(choose());
        made.run.push_back({key, 0, workload_operation_kind::read});
        made.run.push_back({key, 0, workload_operation_kind::update});
        break;
      }
    }
  }
  return made;
}

workload_file_pair read_workload_files(const std::pair<std::string, std::string>& paths) {
  workload_file_pair files{.fill_path = paths.first, .run_path = paths.second, .fill = {}, .run = {}};
  files.fill = read_workload_file(paths.first);
  files.run = read_workload_file(paths.second);
  return files;
}

}  // namespace braid::bench
