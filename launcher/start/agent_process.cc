#include "launcher/start/agent_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>

#include "agent/agent_main.h"
#include "common/error.h"
#include "common/unique_fd.h"

namespace hvd::launcher {

namespace {

constexpr int kAgentExitWaitMs = 10'000;

// Threads of this process now (Threads: in /proc/self/status); 0 when unknown.
int thread_count() {
  std::ifstream status("/proc/self/status");
  std::string key;
  int count = 0;
  while (status >> key) {
    if (key == "Threads:") return status >> count ? count : 0;
    status.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return 0;
}

// In the forked agent, what exec would have done: every descriptor but 0-2 closed (hvdrun's listener, sockets and
// pipes, its io_context's epoll set, Asio's signal pipe), caught signals back to their defaults (Asio's handler
// would write to that pipe), and an hvd-agent's name and command line for ps and pgrep.
void become_agent(int stdin_fd, std::string& cmdline) {
  ::dup2(stdin_fd, STDIN_FILENO);
  ::close_range(3, ~0U, 0);
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler != SIG_IGN && old.sa_handler != SIG_DFL) {
      ::signal(sig, SIG_DFL);
    }
  }
  ::prctl(PR_SET_NAME, "hvd-agent", 0, 0, 0);
  // Needs CAP_SYS_RESOURCE; without it /proc/PID/cmdline stays hvdrun's (the name above still says hvd-agent).
  const auto start = reinterpret_cast<unsigned long>(cmdline.data());
  if (::prctl(PR_SET_MM, PR_SET_MM_ARG_START, start, 0, 0) == 0) {
    ::prctl(PR_SET_MM, PR_SET_MM_ARG_END, start + cmdline.size(), 0, 0);
  }
}

// The local agent leads a process group of its own: a terminal's Ctrl-C (SIGINT to the foreground group) then
// reaches hvdrun alone, which stops the job as its own stop, rather than the agent too, whose workers' ends would
// read as stopped from outside the job. Called in the child and the parent both (whichever runs first). As a
// background group the agent would be stopped for writing its log to the terminal under `stty tostop`: SIGTTOU is
// ignored (its workers start with every signal at its default).
void leave_launchers_group(pid_t agent) { ::setpgid(agent, agent); }

void become_group_leader() {
  leave_launchers_group(0);
  ::signal(SIGTTOU, SIG_IGN);
}

// The local agent: a child process whose stdin is a pipe we hold; its exit is seen through a pidfd so the
// launcher needs no process-wide SIGCHLD handler.
class LocalAgentProcess : public AgentProcess {
 public:
  LocalAgentProcess(asio::io_context& io, AgentStart start) : start_(std::move(start)), pidfd_watch_(io) {
    int in[2];
    if (::pipe2(in, O_CLOEXEC) != 0) throw Error(ErrorKind::kBackend, std::string("pipe for the local agent: ") + std::strerror(errno));
    UniqueFd read_end(in[0]);
    stdin_.reset(in[1]);
    auto argv_strings = agent_command(start_);
    std::vector<char*> argv;
    for (auto& s : argv_strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    // Forked without exec when hvdrun has no other thread (no lock of theirs is copied held): the agent's code is
    // linked in, so the child skips loading hvd-agent. With SSH threads running, exec as before.
    if (thread_count() == 1) {
      std::string cmdline;
      for (const auto& a : argv_strings) cmdline.append(a).push_back('\0');
      std::fflush(nullptr);  // nothing hvdrun buffered may be written twice
      pid_ = ::fork();
      if (pid_ == 0) {
        become_agent(read_end.get(), cmdline);
        become_group_leader();
        int code = 1;
        try {
          code = agent::agent_main(static_cast<int>(argv.size()) - 1, argv.data(), std::move(start_.first_launch));
        } catch (const std::exception& e) {
          std::fprintf(stderr, "hvd-agent on %s: %s\n", start_.host.c_str(), e.what());
        }
        std::fflush(nullptr);
        ::_exit(code);  // never back into hvdrun's code, nor its exit handlers
      }
      took_first_launch_ = start_.first_launch.has_value();
    } else {
      pid_ = ::fork();
      if (pid_ == 0) {
        ::dup2(read_end.get(), STDIN_FILENO);
        become_group_leader();
        // The agent holds only its stdin, stdout and stderr: nothing of hvdrun's (sockets, pipes) survives exec.
        ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
        ::execv(argv[0], argv.data());
        std::fprintf(stderr, "hvdrun: cannot execute the agent %s: %s\n", argv[0], std::strerror(errno));
        ::_exit(127);
      }
    }
    if (pid_ < 0) throw Error(ErrorKind::kBackend, std::string("fork for the local agent: ") + std::strerror(errno));
    leave_launchers_group(pid_);
    read_end.reset();
    std::string line = start_.secret_hex + "\n";
    if (::write(stdin_.get(), line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
      throw Error(ErrorKind::kBackend, "cannot hand the job secret to the local agent");
    }
    int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
    if (pidfd < 0) throw Error(ErrorKind::kBackend, std::string("pidfd_open for the local agent: ") + std::strerror(errno));
    pidfd_watch_.assign(pidfd);
    pidfd_watch_.async_wait(asio::posix::stream_descriptor::wait_read, [this](std::error_code ec) {
      if (ec) return;
      reap();
    });
  }

  ~LocalAgentProcess() override {
    stdin_.reset();  // the agent sees EOF and tears its workers down
    std::error_code ignored;
    pidfd_watch_.cancel(ignored);
    if (pid_ > 0) {
      // Give it the time to stop its workers gracefully (it SIGKILLs them after their grace), then insist.
      pollfd pfd{pidfd_watch_.native_handle(), POLLIN, 0};
      ::poll(&pfd, 1, kAgentExitWaitMs);
      if (::waitpid(pid_, nullptr, WNOHANG) == 0) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
      }
    }
  }

  const std::string& host() const override { return start_.host; }
  bool took_first_launch() const override { return took_first_launch_; }

 private:
  void reap() {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) != pid_) return;
    pid_ = -1;
    std::string reason = start_.host + ": hvd-agent ";
    if (WIFEXITED(status)) {
      reason += "exited with code " + std::to_string(WEXITSTATUS(status));
    } else {
      reason += std::string("was killed by signal ") + strsignal(WTERMSIG(status));
    }
    if (start_.on_ended) start_.on_ended(reason);
  }

  AgentStart start_;
  UniqueFd stdin_;
  pid_t pid_ = -1;
  bool took_first_launch_ = false;
  asio::posix::stream_descriptor pidfd_watch_;
};

}  // namespace

std::unique_ptr<AgentProcess> start_local_agent(asio::io_context& io, AgentStart start) {
  return std::make_unique<LocalAgentProcess>(io, std::move(start));
}

}  // namespace hvd::launcher
