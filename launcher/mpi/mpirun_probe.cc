#include "launcher/mpi/mpirun_probe.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <regex>
#include <sstream>

#include "common/unique_fd.h"

namespace hvd::launcher {
namespace {

constexpr auto kVersionTimeout = std::chrono::seconds(10);

// stdout and stderr of `path --version`, or nullopt with `why` set when it could not run or did not finish.
std::optional<std::string> version_output(const std::string& path, std::string& why) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    why = std::string("pipe: ") + std::strerror(errno);
    return std::nullopt;
  }
  UniqueFd read_end(fds[0]), write_end(fds[1]);
  const pid_t pid = ::fork();
  if (pid < 0) {
    why = std::string("fork: ") + std::strerror(errno);
    return std::nullopt;
  }
  if (pid == 0) {
    ::dup2(write_end.get(), STDOUT_FILENO);
    ::dup2(write_end.get(), STDERR_FILENO);
    ::execl(path.c_str(), path.c_str(), "--version", static_cast<char*>(nullptr));
    std::fprintf(stderr, "cannot execute it: %s\n", std::strerror(errno));
    ::_exit(127);
  }
  write_end.reset();
  std::string output;
  const auto deadline = std::chrono::steady_clock::now() + kVersionTimeout;
  bool timed_out = false;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd readable{read_end.get(), POLLIN, 0};
    const int ready = left.count() > 0 ? ::poll(&readable, 1, static_cast<int>(left.count())) : 0;
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      timed_out = true;
      break;
    }
    char buffer[4096];
    const ssize_t n = ::read(read_end.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    output.append(buffer, static_cast<size_t>(n));
  }
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    why = "'" + path + " --version' did not finish within " + std::to_string(kVersionTimeout.count()) + " s";
    return std::nullopt;
  }
  return output;
}

std::string first_line(const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) return line;
  }
  return "(nothing)";
}

}  // namespace

std::optional<std::string> find_mpirun(const char* hvd_mpirun_env, const char* path_env) {
  std::string name = "mpirun";
  if (hvd_mpirun_env != nullptr && *hvd_mpirun_env != '\0') {
    name = hvd_mpirun_env;
    if (name.find('/') != std::string::npos) return name;  // a path is taken as given; a bare name is looked up
  }
  std::istringstream dirs(path_env != nullptr ? path_env : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? std::string{"."} : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

MpirunInfo probe_mpirun(const std::string& path) {
  MpirunInfo info{path, false, ""};
  std::string why;
  const auto output = version_output(path, why);
  if (!output) {
    info.version = why;
    return info;
  }
  // Open MPI prints "mpirun (Open MPI) 4.1.4"; MPICH and Intel MPI print "HYDRA build details:" and more.
  static const std::regex open_mpi(R"(\(Open MPI\) ([0-9][^\s]*))");
  if (std::smatch match; std::regex_search(*output, match, open_mpi)) {
    info.open_mpi = true;
    info.version = "Open MPI " + match[1].str();
  } else {
    info.version = first_line(*output);
  }
  return info;
}

}  // namespace hvd::launcher
