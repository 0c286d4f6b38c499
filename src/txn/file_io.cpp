#include "braid/txn/detail/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace braid::txn::detail {

unique_fd& unique_fd::operator=(unique_fd&& other) noexcept {
  if (this != &other) {
    reset();
    fd_ = other.release();
  }
  return *this;
}

unique_fd::~unique_fd() { reset(); }

int unique_fd::release() noexcept {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

void unique_fd::reset() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string system_error_text(int error_number) {
  return std::string(std::strerror(error_number)) + " (errno " + std::to_string(error_number) + ")";
}

namespace {

status fail(const char* operation, const std::filesystem::path& path, int error_number, std::string& message) {
  message = std::string(operation) + " " + path.string() + ": " + system_error_text(error_number);
  return status::io_error;
}

}  // namespace

status open_file(const std::filesystem::path& path, int flags, unique_fd& out, std::string& message) {
  int fd;
  do {
    fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return fail("open", path, errno, message);
  out = unique_fd(fd);
  return status::ok;
}

status write_all(int fd, std::span<const std::byte> bytes, const std::filesystem::path& path, std::string& message) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return fail("write", path, errno, message);
    }
    if (written == 0) return fail("write", path, EIO, message);
    bytes = bytes.subspan(static_cast<std::size_t>(written));
  }
  return status::ok;
}

status sync_data(int fd, const std::filesystem::path& path, std::string& message) {
  int result;
  do {
    result = ::fdatasync(fd);
  } while (result != 0 && errno == EINTR);
  if (result != 0) return fail("fdatasync", path, errno, message);
  return status::ok;
}

status sync_directory(const std::filesystem::path& directory, std::string& message) {
  unique_fd handle;
  if (status s = open_file(directory, O_RDONLY | O_DIRECTORY, handle, message); s != status::ok) return s;
  int result;
  do {
    result = ::fsync(handle.get());
  } while (result != 0 && errno == EINTR);
  if (result != 0) return fail("fsync of directory", directory, errno, message);
  return status::ok;
}

status read_file(const std::filesystem::path& path, std::vector<std::byte>& out, std::string& message) {
  unique_fd handle;
  if (status s = open_file(path, O_RDONLY, handle, message); s != status::ok) return s;
  struct stat info {};
  if (::fstat(handle.get(), &info) != 0) return fail("stat", path, errno, message);
  out.resize(static_cast<std::size_t>(info.st_size));
  std::size_t filled = 0;
  for (;;) {
    if (filled == out.size()) out.resize(out.size() + 4096);  // the file grew meanwhile: read on to its end
    const ssize_t got = ::read(handle.get(), out.data() + filled, out.size() - filled);
    if (got < 0) {
      if (errno == EINTR) continue;
      return fail("read", path, errno, message);
    }
    if (got == 0) break;
    filled += static_cast<std::size_t>(got);
  }
  out.resize(filled);
  return status::ok;
}

status truncate_file(const std::filesystem::path& path, std::uint64_t size, std::string& message) {
  unique_fd handle;
  if (status s = open_file(path, O_WRONLY, handle, message); s != status::ok) return s;
  if (::ftruncate(handle.get(), static_cast<off_t>(size)) != 0) return fail("truncate", path, errno, message);
  return sync_data(handle.get(), path, message);
}

status remove_file(const std::filesystem::path& path, std::string& message) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return fail("remove", path, errno, message);
  return status::ok;
}

}  // namespace braid::txn::detail
