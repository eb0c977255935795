#include "launcher/session/agent_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"
#include "common/unique_fd.h"

namespace hvd::launcher {

std::vector<std::string> agent_command(const AgentStart& start) {
  return {start.agent_path, "--coordinator", start.coordinator_host + ":" + std::to_string(start.coordinator_port),
          "--host", start.host, "--log-level", start.log_level};
}

namespace {

constexpr int kAgentExitWaitMs = 10'000;

// The local agent: a child process whose stdin is a pipe we hold; its exit is seen through a pidfd so the
// launcher needs no process-wide SIGCHLD handler.
class LocalAgentProcess : public AgentProcess {
 public:
  LocalAgentProcess(asio::io_context& io, AgentStart start) : start_(std::move(start)), pidfd_watch_(io) {
    int in[2];
    if (::pipe2(in, O_CLOEXEC) != 0) throw Error(std::string("pipe for the local agent: ") + std::strerror(errno));
    UniqueFd read_end(in[0]);
    stdin_.reset(in[1]);
    auto argv_strings = agent_command(start_);
    std::vector<char*> argv;
    for (auto& s : argv_strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ < 0) throw Error(std::string("fork for the local agent: ") + std::strerror(errno));
    if (pid_ == 0) {
      ::dup2(read_end.get(), STDIN_FILENO);
      // The agent holds only its stdin, stdout and stderr: nothing of hvdrun's (sockets, pipes) survives exec.
      ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
      ::execv(argv[0], argv.data());
      std::fprintf(stderr, "hvdrun: cannot execute the agent %s: %s\n", argv[0], std::strerror(errno));
      ::_exit(127);
    }
    read_end.reset();
    std::string line = start_.secret_hex + "\n";
    if (::write(stdin_.get(), line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
      throw Error("cannot hand the job secret to the local agent");
    }
    int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
    if (pidfd < 0) throw Error(std::string("pidfd_open for the local agent: ") + std::strerror(errno));
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
  asio::posix::stream_descriptor pidfd_watch_;
};

}  // namespace

std::unique_ptr<AgentProcess> start_local_agent(asio::io_context& io, AgentStart start) {
  return std::make_unique<LocalAgentProcess>(io, std::move(start));
}

}  // namespace hvd::launcher
