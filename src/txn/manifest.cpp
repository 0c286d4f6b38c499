#include "braid/txn/manifest.hpp"

#include <fcntl.h>

#include <cerrno>
#include <cstdio>
#include <system_error>
#include <vector>

#include "braid/txn/detail/file_io.hpp"
#include "braid/txn/detail/on_disk.hpp"

namespace braid::txn {

namespace {

namespace fs = std::filesystem;
constexpr detail::file_magic manifest_magic{'B', 'R', 'A', 'I', 'D', 'D', 'B', '\0'};
constexpr const char* manifest_name = "MANIFEST";
constexpr const char* manifest_temp_name = "MANIFEST.tmp";

status create_manifest(const fs::path& directory, std::string& message) {
  const fs::path temp = directory / manifest_temp_name;
  const fs::path final_path = directory / manifest_name;
  detail::unique_fd file;
  if (status s = detail::open_file(temp, O_WRONLY | O_CREAT | O_TRUNC, file, message); s != status::ok) return s;
  const auto header = detail::encode_file_header({manifest_magic, database_format_version, 0});
  if (status s = detail::write_all(file.get(), header, temp, message); s != status::ok) return s;
  if (status s = detail::sync_data(file.get(), temp, message); s != status::ok) return s;
  file.reset();
  if (std::rename(temp.c_str(), final_path.c_str()) != 0) {
    message = "rename " + temp.string() + " to " + final_path.string() + ": " + detail::system_error_text(errno);
    return status::io_error;
  }
  return detail::sync_directory(directory, message);
}

status check_manifest(const fs::path& path, std::string& message) {
  std::vector<std::byte> bytes;
  if (status s = detail::read_file(path, bytes, message); s != status::ok) return s;
  detail::file_header header;
  const detail::header_check check = detail::decode_file_header(bytes, manifest_magic, database_format_version, header);
  if (check == detail::header_check::wrong_version) {
    message = path.string() + ": a braid database of format version " + std::to_string(header.format_version) +
              "; this build reads version " + std::to_string(database_format_version);
    return status::format_mismatch;
  }
  if (check == detail::header_check::too_short || check == detail::header_check::wrong_magic ||
      bytes.size() != detail::file_header_bytes) {
    message = path.string() + ": not a braid database manifest";
    return status::not_a_database;
  }
  if (check == detail::header_check::bad_checksum) {
    message = path.string() + ": the manifest fails its checksum";
    return status::corrupt;
  }
  return status::ok;
}

}  // namespace

status open_database_directory(const std::filesystem::path& directory, std::string& message) {
  message.clear();
  if (directory.empty()) {
    message = "open_database_directory: empty path";
    return status::invalid_argument;
  }
  std::error_code error;
  const fs::file_status kind = fs::status(directory, error);
  if (error && error != std::errc::no_such_file_or_directory) {
    message = "stat " + directory.string() + ": " + error.message();
    return status::io_error;
  }
  if (fs::exists(kind) && !fs::is_directory(kind)) {
    message = directory.string() + ": not a directory, so not a braid database";
    return status::not_a_database;
  }
  if (!fs::exists(kind)) {
    fs::create_directories(directory, error);
    if (error) {
      message = "create directory " + directory.string() + ": " + error.message();
      return status::io_error;
    }
    if (directory.has_parent_path()) {
      // The new directory's entry in its parent must be durable too.
      if (status s = detail::sync_directory(fs::absolute(directory).parent_path(), message); s != status::ok) return s;
    }
    return create_manifest(directory, message);
  }
  bool has_manifest = false;
  bool has_other = false;
  for (fs::directory_iterator entry(directory, error), end; !error && entry != end; entry.increment(error)) {
    const std::string name = entry->path().filename().string();
    if (name == manifest_name) {
      has_manifest = true;
    } else if (name != manifest_temp_name) {
      has_other = true;
    }
  }
  if (error) {
    message = "list " + directory.string() + ": " + error.message();
    return status::io_error;
  }
  if (has_manifest) return check_manifest(directory / manifest_name, message);
  if (has_other) {
    message = directory.string() + ": the directory holds files but no braid MANIFEST, so it is not a braid database";
    return status::not_a_database;
  }
  return create_manifest(directory, message);
}

}  // namespace braid::txn
