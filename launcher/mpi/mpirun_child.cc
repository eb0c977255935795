#include "launcher/mpi/mpirun_child.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "common/error.h"
#include "common/unique_fd.h"

namespace hvd::launcher {
namespace {

// After mpirun is reaped, how long its stderr may stay open (an ssh it started, still writing) before hvdrun
// stops reading.
constexpr int kDrainMs = 2000;

void write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // hvdrun's stderr is gone: the job goes on without it
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

[[noreturn]] void exec_child(const std::vector<std::string>& argv, const std::vector<std::string>& environment,
                             const sigset_t& old_mask, int stderr_fd, int error_fd) {
  ::dup2(stderr_fd, STDERR_FILENO);
  ::signal(SIGPIPE, SIG_DFL);  // hvdrun ignores it; an ignored signal would stay ignored across exec
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  std::vector<char*> c_argv, c_envp;
  for (const auto& arg : argv) c_argv.push_back(const_cast<char*>(arg.c_str()));
  c_argv.push_back(nullptr);
  for (const auto& entry : environment) c_envp.push_back(const_cast<char*>(entry.c_str()));
  c_envp.push_back(nullptr);
  ::execve(c_argv[0], c_argv.data(), c_envp.data());
  const int error = errno;
  write_all(error_fd, reinterpret_cast<const char*>(&error), sizeof error);
  ::_exit(127);
}

// Relays mpirun's stderr and splits it into lines.
class StderrRelay {
 public:
  explicit StderrRelay(const std::function<void(const std::string&)>& on_line) : on_line_(on_line) {}
  // False at EOF or error.
  bool read_from(int fd) {
    char buf[65536];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
    if (n <= 0) return false;
    write_all(STDERR_FILENO, buf, static_cast<std::size_t>(n));
    partial_.append(buf, static_cast<std::size_t>(n));
    for (std::size_t end; (end = partial_.find('\n')) != std::string::npos; partial_.erase(0, end + 1)) {
      on_line_(partial_.substr(0, end));
    }
    return true;
  }
  void finish() {
    if (!partial_.empty()) on_line_(partial_);
    partial_.clear();
  }

 private:
  const std::function<void(const std::string&)>& on_line_;
  std::string partial_;
};

// A signal hvdrun received: the first is the job's; one sent by a process (kill, scancel) goes on to mpirun, one
// from the terminal reached mpirun already.
void on_signal(int sfd, pid_t child, bool child_alive, MpirunEnd& end) {
  signalfd_siginfo info{};
  if (::read(sfd, &info, sizeof info) != sizeof info) return;
  const int sig = static_cast<int>(info.ssi_signo);
  if (sig == SIGCHLD) return;
  if (!end.signal) end.signal = sig;
  if (child_alive && info.ssi_code != SI_KERNEL) ::kill(child, sig);
}

}  // namespace

MpirunEnd run_mpirun(const std::vector<std::string>& argv, const std::vector<std::string>& environment,
                     const std::function<void(const std::string& line)>& on_line) {
  sigset_t mask, old_mask;
  sigemptyset(&mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&mask, sig);
  ::sigprocmask(SIG_BLOCK, &mask, &old_mask);
  int err_pipe[2], exec_pipe[2];
  if (::pipe2(err_pipe, O_CLOEXEC) != 0 || ::pipe2(exec_pipe, O_CLOEXEC) != 0) {
    throw Error(ErrorKind::kBackend, std::string("--mpi: a pipe for mpirun: ") + std::strerror(errno));
  }
  UniqueFd err_r(err_pipe[0]), err_w(err_pipe[1]), exec_r(exec_pipe[0]), exec_w(exec_pipe[1]);
  UniqueFd sfd(::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK));
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) throw Error(ErrorKind::kBackend, std::string("--mpi: cannot fork for mpirun: ") + std::strerror(errno));
  if (child == 0) exec_child(argv, environment, old_mask, err_w.get(), exec_w.get());
  err_w.reset();
  exec_w.reset();
  MpirunEnd end;
  int error = 0;
  if (::read(exec_r.get(), &error, sizeof error) == sizeof error) end.exec_errno = error;

  StderrRelay relay(on_line);
  bool reaped = false, open = true;
  auto drain_until = std::chrono::steady_clock::time_point::max();
  while (open || !reaped) {
    pollfd fds[2] = {{sfd.get(), POLLIN, 0}, {open ? err_r.get() : -1, POLLIN, 0}};
    const auto left = drain_until - std::chrono::steady_clock::now();
    const int timeout = reaped ? static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(left).count())
                               : 1000;  // SIGCHLD could be missed only by a bug; poll now and then
    if (reaped && timeout <= 0) break;
    if (::poll(fds, 2, timeout) < 0 && errno != EINTR) break;
    if (fds[0].revents & POLLIN) on_signal(sfd.get(), child, !reaped, end);
    if (open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) open = relay.read_from(err_r.get());
    if (!reaped && ::waitpid(child, &end.status, WNOHANG) == child) {
      reaped = true;
      drain_until = std::chrono::steady_clock::now() + std::chrono::milliseconds(kDrainMs);
    }
  }
  relay.finish();
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  return end;
}

}  // namespace hvd::launcher
