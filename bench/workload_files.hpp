// YCSB-style workload files, the plain-text format the public MxTasking benchmark reads, so
// that braid and another system can run the very same operations:
//
//   INSERT 8294857120394857     one operation a line: INSERT, READ, UPDATE, DELETE with a
//   READ 12                     decimal 64-bit key; SCAN with a key and a length (>= 1)
//   SCAN 77 40
//
// Tokens are separated by spaces or tabs; "\r\n" line ends and blank lines are accepted. A
// file is read whole and validated before anything uses it: a malformed line throws a
// usage_error "FILE:LINE: problem" (braid-bench exits 2).
//
// `generate_ycsb` writes YCSB's core workloads without Java: a fill phase inserting
// `records` keys in YCSB's hashed order (key = FNV-64 of the insert index), and a run phase of
// `operations` operations with YCSB's proportions:
//   A 50 % read / 50 % update     B 95 / 5 read / update       C 100 % read
//   D 95 % read / 5 % insert, reads skewed to the latest inserts (YCSB's "latest")
//   E 95 % scan (length uniform 1..100) / 5 % insert
//   F 50 % read / 50 % read-modify-write (written as a READ line and an UPDATE line)
// Request keys follow YCSB's scrambled Zipfian (theta 0.99 by default) or a uniform choice
// over the inserted records, as YCSB chooses them (new inserts extend the key space;
// Zipfian draws beyond the inserted records are drawn again). Deterministic for a seed.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "options.hpp"

namespace braid::bench {

enum class workload_operation_kind : std::uint8_t { insert, read, update, erase, scan };

struct workload_operation {
  std::uint64_t key = 0;
  std::uint32_t scan_length = 0;  // SCAN only
  workload_operation_kind kind = workload_operation_kind::read;
  friend bool operator==(const workload_operation&, const workload_operation&) = default;
};

const char* to_string(workload_operation_kind kind) noexcept;  // "INSERT", "READ", ...

// Parses text (`source` names it in errors). Throws usage_error "source:line: problem".
std::vector<workload_operation> parse_workload(std::string_view text, const std::string& source);
// Reads and parses a whole file. Throws usage_error on an unreadable file or a malformed line.
std::vector<workload_operation> read_workload_file(const std::string& path);
// Writes one operation a line. Throws std::runtime_error when the file cannot be written.
void write_workload_file(const std::string& path, std::span<const workload_operation> operations);
std::string format_workload(std::span<const workload_operation> operations);

// The two files of `--workload FILL RUN`, each read and validated whole.
struct workload_file_pair {
  std::string fill_path;
  std::string run_path;
  std::vector<workload_operation> fill;
  std::vector<workload_operation> run;
};
// Throws usage_error naming the file (and line) that cannot be read or parsed.
workload_file_pair read_workload_files(const std::pair<std::string, std::string>& paths);

enum class ycsb_workload : char { a = 'a', b = 'b', c = 'c', d = 'd', e = 'e', f = 'f' };
ycsb_workload parse_ycsb_workload(std::string_view text);  // "a".."f" (either case); usage_error otherwise

struct ycsb_spec {
  ycsb_workload workload = ycsb_workload::c;
  std::uint64_t records = 0;
  std::uint64_t operations = 0;
  key_distribution requests{};  // zipf (scrambled) or uniform; D always uses "latest"
  std::uint64_t seed = 42;
};

struct generated_workload {
  std::vector<workload_operation> fill;
  std::vector<workload_operation> run;
};

generated_workload generate_ycsb(const ycsb_spec& spec);

}  // namespace braid::bench
