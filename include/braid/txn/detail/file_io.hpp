// file_io: the few POSIX file operations the durable parts of txn/ need, each returning a
// status and, on failure, a message naming the path and the operating system's reason.
//
//   detail::unique_fd file;
//   if (auto s = detail::open_file(path, O_WRONLY | O_CREAT | O_TRUNC, file, message); s != status::ok) ...
//   detail::write_all(file.get(), bytes, path, message);   // retries short writes and EINTR
//   detail::sync_data(file.get(), path, message);          // fdatasync
//   detail::sync_directory(directory, message);            // makes a create / rename / unlink durable
//
// Complexity: one system call per operation, plus retries. Not buffered. Thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "braid/txn/status.hpp"

namespace braid::txn::detail {

// Owns a file descriptor; closes it on destruction.
class unique_fd {
 public:
  unique_fd() noexcept = default;
  explicit unique_fd(int fd) noexcept : fd_(fd) {}
  unique_fd(unique_fd&& other) noexcept : fd_(other.release()) {}
  unique_fd& operator=(unique_fd&& other) noexcept;
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  ~unique_fd();
  [[nodiscard]] int get() const noexcept { return fd_; }
  [[nodiscard]] bool valid() const noexcept { return fd_ >= 0; }
  int release() noexcept;
  void reset() noexcept;

 private:
  int fd_ = -1;
};

std::string system_error_text(int error_number);
status open_file(const std::filesystem::path& path, int flags, unique_fd& out, std::string& message);
status write_all(int fd, std::span<const std::byte> bytes, const std::filesystem::path& path, std::string& message);
status sync_data(int fd, const std::filesystem::path& path, std::string& message);
status sync_directory(const std::filesystem::path& directory, std::string& message);
// Reads the whole file into out (replacing its contents).
status read_file(const std::filesystem::path& path, std::vector<std::byte>& out, std::string& message);
// Shortens the file to size bytes and makes that durable.
status truncate_file(const std::filesystem::path& path, std::uint64_t size, std::string& message);
status remove_file(const std::filesystem::path& path, std::string& message);

}  // namespace braid::txn::detail
