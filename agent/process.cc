#include "agent/process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

extern char** environ;

namespace hvd::agent {
namespace {

// What the child reports through the error pipe before it exits.
struct ChildFailure {
  int stage;  // 0: chdir, 1: exec
  int error;
};

[[noreturn]] void child_fail(int fd, int stage) {
  ChildFailure failure{stage, errno};
  [[maybe_unused]] auto n = ::write(fd, &failure, sizeof failure);
  ::_exit(127);
}

// Runs between fork and exec: async-signal-safe calls only.
[[noreturn]] void run_child(pid_t parent, int out_fd, int err_fd, int null_fd, int report_fd, const char* cwd,
                            char** argv, char** envp) {
  // Asio's handlers stay installed after fork; a signal before exec must not run them (they write to the
  // agent's self-pipe), so every disposition goes back to default before signals are unblocked.
  for (int sig = 1; sig < NSIG; ++sig) ::signal(sig, SIG_DFL);
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::setpgid(0, 0);
  // A second guard besides the agent's own teardown: the worker dies with the agent even on SIGKILL.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  ::dup2(null_fd, STDIN_FILENO);
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(err_fd, STDERR_FILENO);
  // Sockets and pipes the agent opened without CLOEXEC must not leak into workers.
  if (::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
    for (int fd = 3; fd < 4096; ++fd) {
      if (fd != report_fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
  }
  if (cwd != nullptr && ::chdir(cwd) != 0) child_fail(report_fd, 0);
  environ = envp;  // execvp searches the worker's PATH, not the agent's
  ::execvp(argv[0], argv);
  child_fail(report_fd, 1);
}

std::vector<std::string> merged_environment(const std::map<std::string, std::string>& overlay) {
  std::map<std::string, std::string> all;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    all.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
  }
  for (const auto& [name, value] : overlay) all[name] = value;
  std::vector<std::string> out;
  out.reserve(all.size());
  for (const auto& [name, value] : all) out.push_back(name + "=" + value);
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

std::pair<UniqueFd, UniqueFd> make_pipe(const std::string& what) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw SpawnError(what + ": pipe: " + std::strerror(errno), 126);
  return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

}  // namespace

Process Process::spawn(const SpawnOptions& options) {
  const std::string where = " on " + options.host;
  if (options.command.empty()) throw SpawnError("empty worker command" + where, 127);
  const std::string& program = options.command[0];
  auto [out_r, out_w] = make_pipe("cannot spawn '" + program + "'" + where);
  auto [err_r, err_w] = make_pipe("cannot spawn '" + program + "'" + where);
  auto [report_r, report_w] = make_pipe("cannot spawn '" + program + "'" + where);
  UniqueFd null_fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!null_fd.valid()) throw SpawnError("cannot open /dev/null" + where + ": " + std::strerror(errno), 126);

  std::vector<std::string> args = options.command;
  std::vector<std::string> env = merged_environment(options.env);
  auto argv = pointers(args);
  auto envp = pointers(env);
  const char* cwd = options.cwd.empty() ? nullptr : options.cwd.c_str();

  sigset_t all, previous;
  ::sigfillset(&all);
  ::sigprocmask(SIG_SETMASK, &all, &previous);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) {
    run_child(parent, out_w.get(), err_w.get(), null_fd.get(), report_w.get(), cwd, argv.data(), envp.data());
  }
  int fork_errno = errno;
  ::sigprocmask(SIG_SETMASK, &previous, nullptr);
  if (pid < 0) throw SpawnError("cannot fork for '" + program + "'" + where + ": " + std::strerror(fork_errno), 126);
  // Set the group from this side too, so that signal_group works even before the child has run.
  ::setpgid(pid, pid);
  report_w.reset();

  ChildFailure failure{};
  ssize_t n;
  do {
    n = ::read(report_r.get(), &failure, sizeof failure);
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof failure)) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    int code = failure.error == ENOENT ? 127 : 126;
    if (failure.stage == 0) {
      throw SpawnError("cannot change to directory '" + options.cwd + "'" + where + " to run '" + program +
                           "': " + std::strerror(failure.error),
                       code);
    }
    throw SpawnError("cannot execute '" + program + "'" + where + ": " + std::strerror(failure.error), code);
  }
  return Process(pid, std::move(out_r), std::move(err_r));
}

Process::Process(Process&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      reaped_(other.reaped_),
      stdout_(std::move(other.stdout_)),
      stderr_(std::move(other.stderr_)) {}

Process& Process::operator=(Process&& other) noexcept {
  if (this != &other) {
    release();
    pid_ = std::exchange(other.pid_, -1);
    reaped_ = other.reaped_;
    stdout_ = std::move(other.stdout_);
    stderr_ = std::move(other.stderr_);
  }
  return *this;
}

Process::~Process() { release(); }

void Process::release() {
  if (pid_ > 0 && !reaped_) {
    ::kill(-pid_, SIGKILL);
    wait();
  }
  pid_ = -1;
}

bool Process::signal_group(int sig) const {
  if (pid_ <= 0) return false;
  return ::kill(-pid_, sig) == 0;
}

int Process::wait() {
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0) {
    if (errno != EINTR) break;  // ECHILD: reaped elsewhere
  }
  reaped_ = true;
  return status;
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    const char* abbrev = ::sigabbrev_np(sig);
    return "signal " + std::to_string(sig) + (abbrev ? std::string(" (SIG") + abbrev + ")" : "");
  }
  return "status " + std::to_string(status);
}

}  // namespace hvd::agent
