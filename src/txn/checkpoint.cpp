#include "braid/txn/checkpoint.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <system_error>

#include "braid/txn/detail/checkpoint_format.hpp"

namespace braid::txn {

namespace detail {

namespace {

constexpr std::string_view checkpoint_prefix = "checkpoint-";
constexpr std::string_view checkpoint_suffix = ".braidckpt";
constexpr std::string_view temp_suffix = ".tmp";
constexpr std::size_t ts_digits = 20;

bool parse_ts_digits(std::string_view digits, std::uint64_t& value) {
  if (digits.size() != ts_digits) return false;
  std::uint64_t result = 0;
  for (char digit : digits) {
    if (digit < '0' || digit > '9') return false;
    const std::uint64_t next = result * 10 + static_cast<std::uint64_t>(digit - '0');
    if (next / 10 != result) return false;
    result = next;
  }
  value = result;
  return true;
}

}  // namespace

std::string checkpoint_file_name(std::uint64_t checkpoint_ts) {
  char name[64];
  std::snprintf(name, sizeof name, "checkpoint-%020llu.braidckpt", static_cast<unsigned long long>(checkpoint_ts));
  return name;
}

bool parse_checkpoint_file_name(std::string_view name, std::uint64_t& checkpoint_ts) {
  if (name.size() != checkpoint_prefix.size() + ts_digits + checkpoint_suffix.size()) return false;
  if (!name.starts_with(checkpoint_prefix) || !name.ends_with(checkpoint_suffix)) return false;
  return parse_ts_digits(name.substr(checkpoint_prefix.size(), ts_digits), checkpoint_ts);
}

bool parse_checkpoint_temp_name(std::string_view name, std::uint64_t& checkpoint_ts) {
  return name.ends_with(temp_suffix) &&
         parse_checkpoint_file_name(name.substr(0, name.size() - temp_suffix.size()), checkpoint_ts);
}

status memory_source::read(std::byte* out, std::size_t size, std::string& message) {
  if (remaining() < size) {
    message = "unexpected end of data";
    return status::corrupt;
  }
  if (size > 0) std::memcpy(out, bytes_.data() + position_, size);
  position_ += size;
  return status::ok;
}

namespace {

struct entry {
  checkpoint_entry kind;
  std::uint32_t table_id;
  std::uint64_t oid;
  std::string_view key;
  std::string_view value;
};

std::vector<std::byte> encode_entry(const entry& e) {
  std::vector<std::byte> bytes(checkpoint_entry_header_bytes + e.key.size() + e.value.size() + 4);
  bytes[0] = static_cast<std::byte>(e.kind);
  store_u32(bytes.data() + 1, e.table_id);
  store_u64(bytes.data() + 5, e.oid);
  store_u32(bytes.data() + 13, static_cast<std::uint32_t>(e.key.size()));
  store_u32(bytes.data() + 17, static_cast<std::uint32_t>(e.value.size()));
  std::byte* out = bytes.data() + checkpoint_entry_header_bytes;
  if (!e.key.empty()) std::memcpy(out, e.key.data(), e.key.size());
  if (!e.value.empty()) std::memcpy(out + e.key.size(), e.value.data(), e.value.size());
  const std::size_t covered = bytes.size() - 4;
  store_u32(bytes.data() + covered, crc32c(bytes.data(), covered));
  return bytes;
}

status parse_failure(status result, const std::string& file_name, std::uint64_t offset, const std::string& what,
                     std::string& message) {
  message = file_name + ": " + what + " at byte offset " + std::to_string(offset);
  return result;
}

}  // namespace

status parse_checkpoint(byte_source& source, const std::string& file_name, std::optional<std::uint64_t> expected_ts,
                        const checkpoint_visitor* visit, std::uint64_t& checkpoint_ts, std::string& message) {
  std::array<std::byte, file_header_bytes> header_bytes{};
  const std::uint64_t total = source.remaining();
  std::string reason;
  if (total < file_header_bytes) return parse_failure(status::corrupt, file_name, total, "checkpoint header cut short", message);
  if (status s = source.read(header_bytes.data(), header_bytes.size(), reason); s != status::ok) {
    return parse_failure(s, file_name, 0, reason, message);
  }
  file_header header;
  switch (decode_file_header(header_bytes, checkpoint_magic, checkpoint_format_version, header)) {
    case header_check::ok: break;
    case header_check::too_short:
    case header_check::bad_checksum: return parse_failure(status::corrupt, file_name, 0, "checkpoint header fails its checksum", message);
    case header_check::wrong_magic: return parse_failure(status::corrupt, file_name, 0, "not a braid checkpoint (wrong magic)", message);
    case header_check::wrong_version:
      message = file_name + ": checkpoint format version " + std::to_string(header.format_version) +
                ", this build reads version " + std::to_string(checkpoint_format_version);
      return status::format_mismatch;
  }
  if (expected_ts && header.number != *expected_ts) {
    return parse_failure(status::corrupt, file_name, 16, "checkpoint header names timestamp " + std::to_string(header.number), message);
  }
  std::unordered_set<std::uint32_t> tables;
  std::vector<std::byte> buffer;
  std::uint64_t entries = 0;
  for (;;) {
    const std::uint64_t offset = total - source.remaining();
    if (source.remaining() == 0) return parse_failure(status::corrupt, file_name, offset, "checkpoint ends without its end entry", message);
    buffer.resize(checkpoint_entry_header_bytes);
    if (status s = source.read(buffer.data(), buffer.size(), reason); s != status::ok) {
      return parse_failure(s, file_name, offset, "entry header: " + reason, message);
    }
    const auto kind = std::to_integer<std::uint8_t>(buffer[0]);
    const std::uint64_t key_size = load_u32(buffer.data() + 13);
    const std::uint64_t value_size = load_u32(buffer.data() + 17);
    if (source.remaining() < key_size + value_size + 4) {
      return parse_failure(status::corrupt, file_name, offset, "entry runs past the end of the file", message);
    }
    buffer.resize(checkpoint_entry_header_bytes + key_size + value_size + 4);
    if (status s = source.read(buffer.data() + checkpoint_entry_header_bytes, buffer.size() - checkpoint_entry_header_bytes, reason);
        s != status::ok) {
      return parse_failure(s, file_name, offset, "entry: " + reason, message);
    }
    const std::size_t covered = buffer.size() - 4;
    if (crc32c(buffer.data(), covered) != load_u32(buffer.data() + covered)) {
      return parse_failure(status::corrupt, file_name, offset, "checkpoint entry fails its checksum", message);
    }
    const std::uint32_t table_id = load_u32(buffer.data() + 1);
    const std::uint64_t oid = load_u64(buffer.data() + 5);
    const std::string_view key = as_text(std::span<const std::byte>(buffer).subspan(checkpoint_entry_header_bytes, key_size));
    const std::string_view value =
        as_text(std::span<const std::byte>(buffer).subspan(checkpoint_entry_header_bytes + key_size, value_size));
    if (kind == static_cast<std::uint8_t>(checkpoint_entry::end)) {
      if (oid != entries || table_id != 0 || key_size != 0 || value_size != 0) {
        return parse_failure(status::corrupt, file_name, offset, "end entry does not match the entries before it", message);
      }
      if (source.remaining() != 0) {
        return parse_failure(status::corrupt, file_name, offset + buffer.size(), "bytes after the end entry", message);
      }
      checkpoint_ts = header.number;
      return status::ok;
    }
    if (kind == static_cast<std::uint8_t>(checkpoint_entry::table)) {
      if (oid != 0 || value_size != 0 || !tables.insert(table_id).second) {
        return parse_failure(status::corrupt, file_name, offset, "malformed or repeated table entry", message);
      }
      if (visit != nullptr && visit->table) visit->table(table_id, key);
    } else if (kind == static_cast<std::uint8_t>(checkpoint_entry::row)) {
      if (!tables.contains(table_id)) {
        return parse_failure(status::corrupt, file_name, offset, "row of a table not declared before it", message);
      }
      if (visit != nullptr && visit->row) visit->row(table_id, oid, key, value);
    } else {
      return parse_failure(status::corrupt, file_name, offset, "unknown entry kind " + std::to_string(kind), message);
    }
    ++entries;
  }
}

}  // namespace detail

namespace {

namespace fs = std::filesystem;
constexpr std::size_t write_buffer_bytes = 1u << 20;

// Reads a file through a buffer, for parse_checkpoint.
class file_source final : public detail::byte_source {
 public:
  status open(const fs::path& path, std::string& message) {
    path_ = path;
    if (status s = detail::open_file(path, O_RDONLY, file_, message); s != status::ok) return s;
    struct stat info {};
    if (::fstat(file_.get(), &info) != 0) {
      message = "stat " + path.string() + ": " + detail::system_error_text(errno);
      return status::io_error;
    }
    remaining_ = static_cast<std::uint64_t>(info.st_size);
    return status::ok;
  }
  [[nodiscard]] std::uint64_t remaining() const noexcept override { return remaining_; }
  status read(std::byte* out, std::size_t size, std::string& message) override {
    if (size > remaining_) {
      message = "unexpected end of file";
      return status::corrupt;
    }
    while (size > 0) {
      const ssize_t got = ::read(file_.get(), out, size);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        message = "read " + path_.string() + ": " + (got < 0 ? detail::system_error_text(errno) : "file shrank");
        return status::io_error;
      }
      out += got;
      size -= static_cast<std::size_t>(got);
      remaining_ -= static_cast<std::uint64_t>(got);
    }
    return status::ok;
  }

 private:
  fs::path path_;
  detail::unique_fd file_;
  std::uint64_t remaining_ = 0;
};

struct checkpoint_files {
  std::vector<std::pair<std::uint64_t, fs::path>> complete;  // sorted by ts
  std::vector<std::pair<std::uint64_t, fs::path>> temporary;
};

status list_checkpoints(const fs::path& directory, checkpoint_files& out, std::string& message) {
  std::error_code error;
  if (!fs::exists(directory, error)) return status::ok;
  for (fs::directory_iterator entry(directory, error), end; !error && entry != end; entry.increment(error)) {
    const std::string name = entry->path().filename().string();
    std::uint64_t ts = 0;
    if (detail::parse_checkpoint_file_name(name, ts)) out.complete.emplace_back(ts, entry->path());
    if (detail::parse_checkpoint_temp_name(name, ts)) out.temporary.emplace_back(ts, entry->path());
  }
  if (error) {
    message = "list " + directory.string() + ": " + error.message();
    return status::io_error;
  }
  std::sort(out.complete.begin(), out.complete.end());
  return status::ok;
}

}  // namespace

status checkpoint_writer::begin(const std::filesystem::path& directory, std::uint64_t checkpoint_ts,
                                std::unique_ptr<checkpoint_writer>& out) {
  out.reset();
  std::unique_ptr<checkpoint_writer> writer(new checkpoint_writer());
  checkpoint_files existing;
  if (list_checkpoints(directory, existing, writer->message_) != status::ok) return status::io_error;
  if (!existing.complete.empty() && existing.complete.back().first > checkpoint_ts) return status::invalid_argument;
  writer->directory_ = directory;
  writer->checkpoint_ts_ = checkpoint_ts;
  writer->final_path_ = directory / detail::checkpoint_file_name(checkpoint_ts);
  writer->temp_path_ = writer->final_path_;
  writer->temp_path_ += ".tmp";
  if (detail::open_file(writer->temp_path_, O_WRONLY | O_CREAT | O_TRUNC, writer->file_, writer->message_) != status::ok) {
    return status::io_error;
  }
  const auto header = detail::encode_file_header({detail::checkpoint_magic, detail::checkpoint_format_version, checkpoint_ts});
  writer->buffer_.assign(header.begin(), header.end());
  out = std::move(writer);
  return status::ok;
}

checkpoint_writer::~checkpoint_writer() {
  if (state_ != state::committed && !temp_path_.empty()) {
    file_.reset();
    std::string ignored;
    detail::remove_file(temp_path_, ignored);
  }
}

status checkpoint_writer::usable() {
  if (state_ == state::writing) return status::ok;
  message_ = state_ == state::committed ? "checkpoint already committed" : "checkpoint writer failed earlier";
  return status::invalid_argument;
}

status checkpoint_writer::add_table(std::uint32_t table_id, std::string_view name) {
  if (status s = usable(); s != status::ok) return s;
  if (tables_.contains(table_id)) {
    message_ = "table id " + std::to_string(table_id) + " added twice";
    return status::invalid_argument;
  }
  tables_.insert(table_id);
  return add_entry(static_cast<std::uint8_t>(detail::checkpoint_entry::table), table_id, 0, name, {});
}

status checkpoint_writer::add_row(std::uint32_t table_id, std::uint64_t oid, std::string_view key, std::string_view value) {
  if (status s = usable(); s != status::ok) return s;
  if (!tables_.contains(table_id)) {
    message_ = "row of table id " + std::to_string(table_id) + ", which was not added";
    return status::invalid_argument;
  }
  return add_entry(static_cast<std::uint8_t>(detail::checkpoint_entry::row), table_id, oid, key, value);
}

status checkpoint_writer::add_entry(std::uint8_t kind, std::uint32_t table_id, std::uint64_t oid, std::string_view key,
                                    std::string_view value) {
  constexpr std::size_t max_field = std::numeric_limits<std::uint32_t>::max();
  if (key.size() > max_field || value.size() > max_field) {
    message_ = "key or value of 4 GiB or more";
    return status::invalid_argument;
  }
  const std::vector<std::byte> bytes =
      detail::encode_entry({static_cast<detail::checkpoint_entry>(kind), table_id, oid, key, value});
  buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
  ++entries_;
  return buffer_.size() >= write_buffer_bytes ? write_buffer() : status::ok;
}

status checkpoint_writer::write_buffer() {
  if (detail::write_all(file_.get(), buffer_, temp_path_, message_) != status::ok) {
    state_ = state::failed;
    return status::io_error;
  }
  buffer_.clear();
  return status::ok;
}

status checkpoint_writer::commit() {
  if (status s = usable(); s != status::ok) return s;
  const std::vector<std::byte> end = detail::encode_entry({detail::checkpoint_entry::end, 0, entries_, {}, {}});
  buffer_.insert(buffer_.end(), end.begin(), end.end());
  if (status s = write_buffer(); s != status::ok) return s;
  const auto failed = [&] {
    state_ = state::failed;
    return status::io_error;
  };
  if (detail::sync_data(file_.get(), temp_path_, message_) != status::ok) return failed();
  file_.reset();
  if (::rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
    message_ = "rename " + temp_path_.string() + " to " + final_path_.string() + ": " + detail::system_error_text(errno);
    return failed();
  }
  if (detail::sync_directory(directory_, message_) != status::ok) return failed();
  state_ = state::committed;
  remove_older_files();
  return status::ok;
}

// Older checkpoints and older leftover temporary files. A failure here leaves an older file
// behind, which load_checkpoint never reads while this one is present: not an error.
void checkpoint_writer::remove_older_files() {
  checkpoint_files existing;
  std::string ignored;
  if (list_checkpoints(directory_, existing, ignored) != status::ok) return;
  bool removed = false;
  for (const auto& [ts, path] : existing.complete) {
    if (ts < checkpoint_ts_) removed |= detail::remove_file(path, ignored) == status::ok;
  }
  for (const auto& [ts, path] : existing.temporary) {
    if (ts < checkpoint_ts_) removed |= detail::remove_file(path, ignored) == status::ok;
  }
  if (removed) detail::sync_directory(directory_, ignored);
}

status load_checkpoint(const std::filesystem::path& directory, const checkpoint_visitor& visit,
                       std::uint64_t& checkpoint_ts, std::string& message) {
  checkpoint_ts = 0;
  message.clear();
  checkpoint_files existing;
  if (status s = list_checkpoints(directory, existing, message); s != status::ok) return s;
  if (existing.complete.empty()) return status::ok;
  const auto& [expected_ts, path] = existing.complete.back();
  std::uint64_t loaded_ts = 0;
  for (const checkpoint_visitor* pass : {static_cast<const checkpoint_visitor*>(nullptr), &visit}) {
    file_source source;
    status s = source.open(path, message);
    if (s == status::ok) s = detail::parse_checkpoint(source, path.string(), expected_ts, pass, loaded_ts, message);
    if (s != status::ok) {
      if (existing.complete.size() > 1) {
        message += " (an older checkpoint, " + existing.complete[existing.complete.size() - 2].second.string() +
                   ", is still present; it was not used)";
      }
      return s;
    }
  }
  checkpoint_ts = loaded_ts;
  return status::ok;
}

}  // namespace braid::txn
