#include "process.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace braid::bench {

bool program_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::istringstream directories(path);
  std::string directory;
  while (std::getline(directories, directory, ':')) {
    if (directory.empty()) continue;
    const std::filesystem::path candidate = std::filesystem::path(directory) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return true;
  }
  return false;
}

std::string own_executable() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string() : self.string();
}

program_result run_program(const std::vector<std::string>& arguments,
                           const std::vector<std::pair<std::string, std::string>>& environment,
                           const std::string& output_to) {
  program_result result;
  if (arguments.empty()) return result;
  int pipe_ends[2] = {-1, -1};
  if (output_to.empty() && ::pipe(pipe_ends) != 0) return result;
  int exec_failed[2] = {-1, -1};  // close-on-exec: readable data means execvp failed
  if (::pipe2(exec_failed, O_CLOEXEC) != 0) return result;

  const pid_t child = ::fork();
  if (child < 0) return result;
  if (child == 0) {
    ::close(exec_failed[0]);
    int destination = -1;
    if (output_to.empty()) {
      ::close(pipe_ends[0]);
      destination = pipe_ends[1];
    } else {
      destination = ::open(output_to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    }
    if (destination >= 0) {
      ::dup2(destination, STDOUT_FILENO);
      ::dup2(destination, STDERR_FILENO);
    }
    for (const auto& [name, value] : environment) ::setenv(name.c_str(), value.c_str(), 1);
    std::vector<char*> argv;
    for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    const int error = errno;
    [[maybe_unused]] const ssize_t written = ::write(exec_failed[1], &error, sizeof error);
    ::_exit(127);
  }
  ::close(exec_failed[1]);
  if (output_to.empty()) {
    ::close(pipe_ends[1]);
    char buffer[4096];
    ssize_t count = 0;
    while ((count = ::read(pipe_ends[0], buffer, sizeof buffer)) > 0) result.output.append(buffer, static_cast<std::size_t>(count));
    ::close(pipe_ends[0]);
  }
  int error = 0;
  const bool exec_error = ::read(exec_failed[0], &error, sizeof error) == static_cast<ssize_t>(sizeof error);
  ::close(exec_failed[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  result.started = !exec_error;
  if (WIFEXITED(status)) result.exit_status = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) result.exit_status = 128 + WTERMSIG(status);
  return result;
}

}  // namespace braid::bench
