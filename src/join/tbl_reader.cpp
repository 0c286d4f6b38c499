#include "braid/join/tbl_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

namespace braid::join {
namespace {

void check_options(const tbl_read_options& options) {
  if (options.block_bytes == 0) throw std::invalid_argument("tbl reader: block_bytes must be at least 1");
  if (options.max_line_bytes == 0) throw std::invalid_argument("tbl reader: max_line_bytes must be at least 1");
}

// Splits lines (without their '\n') into fields and hands them on; counts lines.
class line_splitter {
 public:
  line_splitter(const std::string& name, const tbl_read_options& options, tbl_row_handler on_row)
      : name_(name), max_line_bytes_(options.max_line_bytes), on_row_(on_row) {}

  void line(const char* begin, const char* end) {
    ++line_;
    const auto length = static_cast<std::size_t>(end - begin);
    if (length > max_line_bytes_) refuse_long_line(line_);
    if (length > 0 && std::memchr(begin, '\0', length) != nullptr) throw tbl_error(name_, line_, "NUL byte in the line");
    if (end > begin && end[-1] == '\r') --end;
    if (end == begin) throw tbl_error(name_, line_, "empty line");
    if (end[-1] == '|') --end;
    fields_.clear();
    for (const char* field = begin;;) {
      const auto* bar = static_cast<const char*>(std::memchr(field, '|', static_cast<std::size_t>(end - field)));
      if (bar == nullptr) {
        fields_.emplace_back(field, static_cast<std::size_t>(end - field));
        break;
      }
      fields_.emplace_back(field, static_cast<std::size_t>(bar - field));
      field = bar + 1;
    }
    on_row_(fields_, line_);
  }

  [[noreturn]] void refuse_long_line(std::uint64_t line) const {
    throw tbl_error(name_, line, "line longer than " + std::to_string(max_line_bytes_) + " bytes");
  }
  [[nodiscard]] std::uint64_t lines() const noexcept { return line_; }  // lines handed on so far

 private:
  const std::string& name_;
  std::size_t max_line_bytes_;
  tbl_row_handler on_row_;
  std::vector<std::string_view> fields_;
  std::uint64_t line_ = 0;
};

// Hands every complete line of [begin, end) to `lines`; returns where the unfinished rest begins.
const char* split_complete_lines(const char* begin, const char* end, line_splitter& lines) {
  while (begin < end) {
    const auto* newline = static_cast<const char*>(std::memchr(begin, '\n', static_cast<std::size_t>(end - begin)));
    if (newline == nullptr) break;
    lines.line(begin, newline);
    begin = newline + 1;
  }
  return begin;
}

class file_descriptor {
 public:
  explicit file_descriptor(int fd) noexcept : fd_(fd) {}
  file_descriptor(const file_descriptor&) = delete;
  file_descriptor& operator=(const file_descriptor&) = delete;
  ~file_descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  [[nodiscard]] int get() const noexcept { return fd_; }

 private:
  int fd_;
};

int open_for_reading(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw tbl_error(path, 0, std::string("cannot open: ") + std::strerror(errno));
  return fd;
}

void refuse_directory(const file_descriptor& file, const std::string& path) {
  struct stat status {};
  if (::fstat(file.get(), &status) != 0) throw tbl_error(path, 0, std::string("cannot stat: ") + std::strerror(errno));
  if (S_ISDIR(status.st_mode)) throw tbl_error(path, 0, "cannot open: is a directory");
}

// Reads up to `capacity` bytes; 0 at the end of the file.
std::size_t read_some(const file_descriptor& file, char* into, std::size_t capacity, const std::string& path,
                      std::uint64_t line) {
  while (true) {
    const ::ssize_t got = ::read(file.get(), into, capacity);
    if (got >= 0) return static_cast<std::size_t>(got);
    if (errno != EINTR) throw tbl_error(path, line, std::string("read failed: ") + std::strerror(errno));
  }
}


// The relation builder behind both load_join_relation forms.
class relation_builder {
 public:
  relation_builder(const std::string& name, std::size_t key_column, std::optional<std::size_t> payload_column,
                   const tbl_read_options& options)
      : name_(name), key_column_(key_column), payload_column_(payload_column) {
    // A line of at most max_line_bytes has at most max_line_bytes + 1 fields.
    const std::size_t last_column = std::max(key_column, payload_column.value_or(0));
    if (last_column > options.max_line_bytes) {
      throw std::invalid_argument("load_join_relation: column " + std::to_string(last_column) +
                                  " cannot exist in lines of at most " + std::to_string(options.max_line_bytes) + " bytes");
    }
    fields_needed_ = last_column + 1;
  }

  void operator()(std::span<const std::string_view> fields, std::uint64_t line) {
    if (fields.size() < fields_needed_) {
      throw tbl_error(name_, line, std::to_string(fields.size()) + (fields.size() == 1 ? " field" : " fields") +
                                       ", but column " + std::to_string(fields_needed_ - 1) + " is read");
    }
    const std::uint64_t key = integer(fields, key_column_, "key", line);
    const std::uint64_t payload = payload_column_ ? integer(fields, *payload_column_, "payload", line) : line - 1;
    rows_.push_back({key, payload});
  }
  std::vector<tuple> take() { return std::move(rows_); }

 private:
  std::uint64_t integer(std::span<const std::string_view> fields, std::size_t column, const char* role,
                        std::uint64_t line) {
    if (const std::optional<std::uint64_t> value = parse_tbl_unsigned(fields[column], problem_)) return *value;
    throw tbl_error(name_, line, std::string(role) + " column " + std::to_string(column) + ": " + problem_ + " (" +
                                     quote_tbl_field(fields[column]) + ")");
  }

  const std::string& name_;
  std::size_t key_column_;
  std::optional<std::size_t> payload_column_;
  std::size_t fields_needed_ = 0;
  std::string problem_;
  std::vector<tuple> rows_;
};

}  // namespace

void read_tbl_text(std::string_view text, const std::string& name, tbl_row_handler on_row, const tbl_read_options& options) {
  check_options(options);
  line_splitter lines(name, options, on_row);
  const char* rest = split_complete_lines(text.data(), text.data() + text.size(), lines);
  const char* end = text.data() + text.size();
  if (rest < end) lines.line(rest, end);
}

void read_tbl_file(const std::string& path, tbl_row_handler on_row, const tbl_read_options& options) {
  check_options(options);
  const file_descriptor file(open_for_reading(path));
  refuse_directory(file, path);
  line_splitter lines(path, options, on_row);
  // Room for an unfinished line (at most max_line_bytes, else it is refused) and a block after it.
  const std::size_t capacity = options.max_line_bytes + options.block_bytes;
  const std::unique_ptr<char[]> buffer(new char[capacity]);
  std::size_t filled = 0;
  while (true) {
    const std::size_t got = read_some(file, buffer.get() + filled, options.block_bytes, path, lines.lines() + 1);
    filled += got;
    const char* end = buffer.get() + filled;
    const char* rest = split_complete_lines(buffer.get(), end, lines);
    const auto unfinished = static_cast<std::size_t>(end - rest);
    if (got == 0) {
      if (unfinished > 0) lines.line(rest, end);
      return;
    }
    if (unfinished > options.max_line_bytes) lines.refuse_long_line(lines.lines() + 1);
    std::memmove(buffer.get(), rest, unfinished);
    filled = unfinished;
  }
}

std::optional<std::uint64_t> parse_tbl_unsigned(std::string_view field, std::string& problem) {
  if (field.empty()) {
    problem = "empty field";
    return std::nullopt;
  }
  std::uint64_t value = 0;
  for (const char c : field) {
    if (c < '0' || c > '9') {
      problem = "not an unsigned integer";
      return std::nullopt;
    }
    if (__builtin_mul_overflow(value, std::uint64_t{10}, &value) ||
        __builtin_add_overflow(value, static_cast<std::uint64_t>(c - '0'), &value)) {
      problem = "above 2^64 - 1";
      return std::nullopt;
    }
  }
  return value;
}

std::vector<tuple> load_join_relation(const std::string& path, std::size_t key_column,
                                      std::optional<std::size_t> payload_column, const tbl_read_options& options) {
  relation_builder builder(path, key_column, payload_column, options);
  read_tbl_file(path, builder, options);
  return builder.take();
}

std::vector<tuple> load_join_relation_text(std::string_view text, const std::string& name, std::size_t key_column,
                                           std::optional<std::size_t> payload_column, const tbl_read_options& options) {
  relation_builder builder(name, key_column, payload_column, options);
  read_tbl_text(text, name, builder, options);
  return builder.take();
}

std::string quote_tbl_field(std::string_view field) {
  constexpr std::size_t longest = 40;
  std::string text = "'";
  for (const char c : field.substr(0, longest)) {
    if (c >= 0x20 && c < 0x7f) {
      text += c;
    } else {
      constexpr const char* hex = "0123456789abcdef";
      const auto byte = static_cast<unsigned char>(c);
      text += "\\x";
      text += hex[byte >> 4];
      text += hex[byte & 15];
    }
  }
  text += field.size() > longest ? "'..." : "'";
  return text;
}

}  // namespace braid::join
