#include "launcher/slurm/srun_starter.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>

#include "common/address.h"
#include "common/env.h"
#include "common/error.h"
#include "common/unique_fd.h"
#include "launcher/start/coordinator_address.h"
#include "launcher/plan/local_host.h"
#include "launcher/flags/shell_words.h"

namespace hvd::launcher {
namespace {

// When the last handle goes, every agent has said bye or is lost (the session waited for that), so srun ends at
// once unless a node is gone, when it would wait for that node's task until slurmctld gives up on it.
constexpr int kAgentsExitWaitMs = 3'000;
constexpr int kSrunTermWaitMs = 3'000;

// The address of this machine that routes to `host` (a UDP connect sends nothing): the one its agent can reach.
std::string address_toward(const std::string& host) {
  const Resolved found = resolve(host, 9, {.family = AF_INET, .socktype = SOCK_DGRAM});
  if (!found) {
    throw Error(ErrorKind::kUsage, "cannot resolve Slurm node " + host + " (" + found.error +
                ") to find the address its agent connects back to; give --coordinator-addr or --network-interface");
  }
  UniqueFd probe(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  sockaddr_storage local{};
  socklen_t length = sizeof local;
  char text[NI_MAXHOST];
  if (!probe.valid() || ::connect(probe.get(), found.list->ai_addr, found.list->ai_addrlen) != 0 ||
      ::getsockname(probe.get(), reinterpret_cast<sockaddr*>(&local), &length) != 0 ||
      ::getnameinfo(reinterpret_cast<sockaddr*>(&local), length, text, sizeof text, nullptr, 0, NI_NUMERICHOST) != 0) {
    throw Error(ErrorKind::kUsage, "no route from here to Slurm node " + host + " (" + std::strerror(errno) +
                "); give --coordinator-addr or --network-interface");
  }
  return text;
}

std::string coordinator_address(const Plan& plan, const SrunOptions& options) {
  for (const auto& host : plan.hosts) {
    if (is_local_host(host.name)) continue;
    const std::string chosen = chosen_coordinator_address(options.coordinator_addr, options.network_interface);
    return chosen.empty() ? address_toward(host.name) : chosen;
  }
  return "127.0.0.1";  // every agent runs on this node
}

// One srun child: its stdin is a pipe we hold, its exit is watched through a pidfd. Its stdout and stderr are
// hvdrun's, so Slurm's own messages ("srun: error: h2: task 1: Exited with exit code 127") reach the user.
class SrunStep {
 public:
  SrunStep(asio::io_context& io, std::vector<std::string> argv_strings, const std::string& secret_hex)
      : pidfd_watch_(io) {
    int in[2];
    if (::pipe2(in, O_CLOEXEC) != 0) throw Error(ErrorKind::kBackend, std::string("pipe for srun: ") + std::strerror(errno));
    UniqueFd read_end(in[0]);
    stdin_.reset(in[1]);
    std::vector<char*> argv;
    for (auto& s : argv_strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ < 0) throw Error(ErrorKind::kBackend, std::string("fork for srun: ") + std::strerror(errno));
    if (pid_ == 0) {
      ::dup2(read_end.get(), STDIN_FILENO);
      ::execvp(argv[0], argv.data());
      std::fprintf(stderr, "hvdrun: cannot execute %s: %s; install Slurm's srun or set HVD_SRUN\n", argv[0],
                   std::strerror(errno));
      ::_exit(127);
    }
    read_end.reset();
    const std::string line = secret_hex + "\n";
    // A short write means srun is already gone (EPIPE); its exit, reported by watch(), says why.
    if (::write(stdin_.get(), line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
      spdlog::info("srun did not take the job secret on its stdin: {}", std::strerror(errno));
    }
    int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
    if (pidfd < 0) abandon(std::string("pidfd_open for srun: ") + std::strerror(errno));
    pidfd_watch_.assign(pidfd);
  }

  // Calls `on_exit(description)` once when srun ends, unless this object is destroyed first.
  void watch(std::function<void(const std::string&)> on_exit) {
    pidfd_watch_.async_wait(asio::posix::stream_descriptor::wait_read, [this, on_exit](std::error_code ec) {
      if (ec) return;
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) != pid_) return;
      pid_ = -1;
      on_exit(WIFEXITED(status) ? "srun exited with code " + std::to_string(WEXITSTATUS(status))
                                : std::string("srun was killed by signal ") + strsignal(WTERMSIG(status)));
    });
  }

  ~SrunStep() {
    stdin_.reset();  // srun passes the EOF on: every agent stops its workers and exits, and srun with them
    std::error_code ignored;
    pidfd_watch_.cancel(ignored);
    if (pid_ <= 0) return;
    for (int signal : {0, SIGTERM, SIGKILL}) {
      if (signal != 0) ::kill(pid_, signal);  // SIGTERM: srun signals every task and ends the step
      pollfd pfd{pidfd_watch_.native_handle(), POLLIN, 0};
      ::poll(&pfd, 1, signal == 0 ? kAgentsExitWaitMs : kSrunTermWaitMs);
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) return;
    }
    ::waitpid(pid_, nullptr, 0);
  }

 private:
  // A constructor that throws runs no destructor: kill and reap the child here.
  [[noreturn]] void abandon(const std::string& why) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    throw Error(ErrorKind::kBackend, why);
  }

  UniqueFd stdin_;
  pid_t pid_ = -1;
  asio::posix::stream_descriptor pidfd_watch_;
};

// What the shared step needs to tell each host's owner when srun ends; a destroyed handle is not told.
struct SharedStep {
  std::unique_ptr<SrunStep> step;
  std::vector<AgentStart> starts;
  std::vector<bool> live;
};

class SrunAgentHandle : public AgentProcess {
 public:
  SrunAgentHandle(std::shared_ptr<SharedStep> shared, size_t index) : shared_(std::move(shared)), index_(index) {}
  ~SrunAgentHandle() override { shared_->live[index_] = false; }
  const std::string& host() const override { return shared_->starts[index_].host; }

 private:
  std::shared_ptr<SharedStep> shared_;  // the last handle to go ends srun
  size_t index_;
};

}  // namespace

std::vector<std::string> srun_command(const std::string& srun, const std::vector<AgentStart>& starts,
                                      const std::string& job_id) {
  std::string nodes;
  for (const auto& s : starts) nodes += (nodes.empty() ? "" : ",") + s.host;
  const std::string n = std::to_string(starts.size());
  const AgentStart& first = starts.front();
  AgentStart named = first;
  named.host = "\"$SLURMD_NODENAME\"";
  std::string agent;
  for (const auto& word : agent_command(named)) {
    agent += (agent.empty() ? "" : " ") + (word == named.host ? word : shell_quote({word}));
  }
  return {srun,
          "--jobid=" + job_id,
          "--job-name=hvd-agents",
          "--nodes=" + n,
          "--ntasks=" + n,
          "--ntasks-per-node=1",
          "--nodelist=" + nodes,
          "--overlap",
          "--cpu-bind=none",
          "--mpi=none",
          "--input=all",
          "--kill-on-bad-exit=0",
          "/bin/sh",
          "-c",
          "exec " + agent};
}

std::vector<std::unique_ptr<AgentProcess>> start_srun_agents(asio::io_context& io, std::vector<AgentStart> starts,
                                                             const Plan& plan, const SrunOptions& options) {
  const std::string coordinator = coordinator_address(plan, options);
  for (auto& s : starts) {
    s.coordinator_host = coordinator;
    if (!options.agent_path.empty()) s.agent_path = options.agent_path;
  }
  std::string srun = hvd::env_var::text("HVD_SRUN").value_or("");
  if (srun.empty()) srun = "srun";
  auto argv = srun_command(srun, starts, options.job_id);
  spdlog::info("starting the agents: {}", shell_quote(argv));
  auto shared = std::make_shared<SharedStep>();
  shared->step = std::make_unique<SrunStep>(io, std::move(argv), starts.front().secret_hex);
  shared->live.assign(starts.size(), true);
  shared->starts = std::move(starts);
  // The callback holds a weak reference: srun's end matters only while some handle still wants to hear it.
  shared->step->watch([weak = std::weak_ptr<SharedStep>(shared)](const std::string& how) {
    auto locked = weak.lock();
    if (!locked) return;
    for (size_t i = 0; i < locked->starts.size(); ++i) {
      if (!locked->live[i] || !locked->starts[i].on_ended) continue;
      locked->starts[i].on_ended(locked->starts[i].host + ": " + how +
                                 " (the Slurm step running every agent; its messages are above)");
    }
  });
  std::vector<std::unique_ptr<AgentProcess>> handles;
  for (size_t i = 0; i < shared->starts.size(); ++i) handles.push_back(std::make_unique<SrunAgentHandle>(shared, i));
  return handles;
}

}  // namespace hvd::launcher
