// libFuzzer target: the join layer's .tbl reader and relation loader. Byte 0 picks the longest
// line accepted (8, 64, 300 or 65536 bytes), the read block (1 to 16 bytes, so lines straddle
// blocks) and whether the text is read from a file (a memfd) or from memory; byte 1 picks the
// key column and the payload column (or none: the row number). The rest is the text.
//
// Checked against a reference split written the plain way (std::string, line by line): the
// reader hands on exactly the reference's rows with their line numbers, or refuses the text
// with a tbl_error "fuzz:LINE: what" at the reference's first bad line for the same reason.
// The loader returns one tuple per row whose key and payload are the reference's fields parsed
// digit by digit, or refuses with FILE:LINE within the text and returns nothing.
// Any other exception, a crash or a sanitizer report is a bug.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "braid/join/tbl_reader.hpp"
#include "fuzz_input.hpp"

namespace {

using braid::fuzzing::fuzz_check;

struct reference_result {
  std::vector<std::vector<std::string>> rows;
  std::uint64_t error_line = 0;  // 0: no error
  std::string error_reason;
};

reference_result reference_split(const std::string& text, std::size_t max_line_bytes) {
  reference_result result;
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t newline = text.find('\n', start);
    if (newline == std::string::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, newline - start));
    start = newline + 1;
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string line = lines[i];
    const auto fail = [&](const char* reason) {
      result.error_line = i + 1;
      result.error_reason = reason;
    };
    if (line.size() > max_line_bytes) {
      fail("line longer than");
      return result;
    }
    if (line.find('\0') != std::string::npos) {
      fail("NUL byte");
      return result;
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      fail("empty line");
      return result;
    }
    if (line.back() == '|') line.pop_back();
    std::vector<std::string> fields(1);
    for (const char c : line) {
      if (c == '|') {
        fields.emplace_back();
      } else {
        fields.back() += c;
      }
    }
    result.rows.push_back(fields);
  }
  return result;
}

std::optional<std::uint64_t> reference_integer(const std::string& field) {
  constexpr std::uint64_t largest = ~std::uint64_t{0};
  if (field.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (const char c : field) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (largest - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

// The line the loader must refuse: the first row without an integer key (or payload), or the
// reader's own error line; 0 when every row loads.
std::uint64_t expected_load_error(const reference_result& expected, std::size_t key_column,
                                  std::optional<std::size_t> payload_column) {
  for (std::size_t row = 0; row < expected.rows.size(); ++row) {
    const std::vector<std::string>& fields = expected.rows[row];
    const bool key_ok = fields.size() > key_column && reference_integer(fields[key_column]);
    const bool payload_ok = !payload_column || (fields.size() > *payload_column && reference_integer(fields[*payload_column]));
    if (!key_ok || !payload_ok) return row + 1;
  }
  return expected.error_line;
}

// A file holding `text`, removed when it goes: a memfd, read through /proc/self/fd.
class memory_file {
 public:
  explicit memory_file(const std::string& text) : fd_(::memfd_create("tbl", 0)) {
    fuzz_check(fd_ >= 0, "memfd_create failed");
    for (std::size_t done = 0; done < text.size();) {
      const ::ssize_t wrote = ::write(fd_, text.data() + done, text.size() - done);
      fuzz_check(wrote > 0, "write to the memfd failed");
      done += static_cast<std::size_t>(wrote);
    }
  }
  memory_file(const memory_file&) = delete;
  memory_file& operator=(const memory_file&) = delete;
  ~memory_file() { ::close(fd_); }
  [[nodiscard]] std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  constexpr std::size_t max_lines[] = {8, 64, 300, 65536};
  braid::join::tbl_read_options options;
  options.max_line_bytes = max_lines[data[0] & 3];
  options.block_bytes = static_cast<std::size_t>((data[0] >> 2) & 15) + 1;
  const bool from_file = (data[0] & 0x40) != 0;
  const std::size_t key_column = data[1] & 3;
  const std::optional<std::size_t> payload_column =
      (data[0] & 0x80) != 0 ? std::optional<std::size_t>((data[1] >> 2) & 3) : std::nullopt;
  const std::string text(reinterpret_cast<const char*>(data + 2), size - 2);
  const reference_result expected = reference_split(text, options.max_line_bytes);

  std::optional<memory_file> file;
  if (from_file) file.emplace(text);
  const std::string name = from_file ? file->path() : std::string("fuzz");

  // The row reader.
  std::vector<std::vector<std::string>> rows;
  try {
    const auto on_row = [&](std::span<const std::string_view> fields, std::uint64_t line) {
      fuzz_check(line == rows.size() + 1, "a row's line number is not its position");
      rows.emplace_back(fields.begin(), fields.end());
    };
    if (from_file) {
      braid::join::read_tbl_file(name, on_row, options);
    } else {
      braid::join::read_tbl_text(text, name, on_row, options);
    }
    fuzz_check(expected.error_line == 0, "a text the reference refuses was read");
    fuzz_check(rows == expected.rows, "rows differ from the reference split");
  } catch (const braid::join::tbl_error& e) {
    const std::string message = e.what();
    fuzz_check(expected.error_line != 0, "a text the reference reads was refused");
    fuzz_check(e.line() == expected.error_line, "refused at another line than the reference");
    fuzz_check(message.starts_with(name + ":" + std::to_string(e.line()) + ": "), "an error not naming FILE:LINE");
    fuzz_check(message.find(expected.error_reason) != std::string::npos, "refused for another reason than the reference");
    fuzz_check(rows == std::vector<std::vector<std::string>>(expected.rows.begin(),
                                                               expected.rows.begin() + static_cast<std::ptrdiff_t>(rows.size())),
               "rows before the error differ from the reference");
  }

  // The relation loader.
  std::vector<braid::join::tuple> relation;
  try {
    relation = from_file ? braid::join::load_join_relation(name, key_column, payload_column, options)
                         : braid::join::load_join_relation_text(text, name, key_column, payload_column, options);
  } catch (const braid::join::tbl_error& e) {
    const std::string message = e.what();
    fuzz_check(relation.empty(), "a refused load returned tuples");
    fuzz_check(e.line() == expected_load_error(expected, key_column, payload_column), "a load refused at another line");
    fuzz_check(message.starts_with(name + ":" + std::to_string(e.line()) + ": "), "a load error not naming FILE:LINE");
    return 0;
  }
  fuzz_check(expected_load_error(expected, key_column, payload_column) == 0, "a text with a bad row was loaded");
  fuzz_check(relation.size() == expected.rows.size(), "not one tuple per line");
  for (std::size_t row = 0; row < relation.size(); ++row) {
    const std::vector<std::string>& fields = expected.rows[row];
    fuzz_check(reference_integer(fields[key_column]) == relation[row].key, "a key differs from its field");
    const std::uint64_t payload = payload_column ? *reference_integer(fields[*payload_column]) : row;
    fuzz_check(relation[row].payload == payload, "a payload differs from its field or row number");
  }
  return 0;
}
