#include "launcher/ssh/ssh_agent.h"

#include <libssh/callbacks.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <deque>
#include <filesystem>
#include <mutex>
#include <thread>

#include "common/unique_fd.h"
#include "launcher/ssh/ssh_connection.h"

namespace hvd::launcher {
namespace {

constexpr const char* kNoCwdMarker = "hvd-ssh: no-cwd";
constexpr const char* kNoAgentMarker = "hvd-ssh: no-agent";

// Splits one channel stream into lines, copies each to our stderr as "HOST: line", keeps the last few for the
// reason given when the agent fails, and notices the markers of remote_agent_command.
class LineRelay {
 public:
  explicit LineRelay(std::string label) : label_(std::move(label)) {}
  void add(const char* data, size_t n) {
    partial_.append(data, n);
    for (size_t nl; (nl = partial_.find('\n')) != std::string::npos; partial_.erase(0, nl + 1)) {
      line(partial_.substr(0, nl));
    }
  }
  void flush() {
    if (!partial_.empty()) line(std::exchange(partial_, {}));
  }
  bool no_cwd = false, no_agent = false;
  std::string last_lines() const {
    std::string out;
    for (const auto& l : last_) out += (out.empty() ? "" : " | ") + l;
    return out;
  }

 private:
  void line(std::string text) {
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text == kNoCwdMarker) { no_cwd = true; return; }
    if (text == kNoAgentMarker) { no_agent = true; return; }
    std::string out = label_ + ": " + text + "\n";
    (void)!::write(STDERR_FILENO, out.data(), out.size());  // one write per line: lines stay whole
    last_.push_back(std::move(text));
    if (last_.size() > 3) last_.pop_front();
  }
  std::string label_;
  std::string partial_;
  std::deque<std::string> last_;
};

class SshAgentProcess : public AgentProcess {
 public:
  SshAgentProcess(asio::io_context& io, AgentStart start, const HostSpec& host, const SshOptions& ssh)
      : io_(io), start_(std::move(start)), host_(host), ssh_(ssh), alive_(std::make_shared<std::atomic<bool>>(true)),
        wake_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    if (!wake_.valid()) throw Error(ErrorKind::kBackend, start_.host + ": eventfd for the SSH starter: " + std::strerror(errno));
    std::error_code ec;
    cwd_ = std::filesystem::current_path(ec).string();
    if (ec) {
      throw Error(ErrorKind::kBackend, start_.host + ": cannot get hvdrun's working directory (" + ec.message() +
                  "): start hvdrun from a directory that exists on every host");
    }
    thread_ = std::jthread([this](std::stop_token stop) { run(stop); });
  }

  ~SshAgentProcess() override {
    alive_->store(false);  // a reason already posted is dropped: the owner is gone
    thread_.request_stop();
    thread_.join();
  }

  const std::string& host() const override { return start_.host; }

 private:
  void run(std::stop_token stop) {
    std::stop_callback on_stop(stop, [this] { interrupt(); });
    std::string reason;
    try {
      reason = start_and_watch(stop);
    } catch (const std::exception& e) {
      reason = e.what();
    }
    if (stop.stop_requested() || !start_.on_ended) return;
    asio::post(io_, [alive = alive_, on_ended = start_.on_ended, reason] {
      if (alive->load()) on_ended(reason);
    });
  }

  // Called from the destructor's thread: wakes the watch loop; fails a blocking connect/auth/exec at once.
  void interrupt() {
    uint64_t one = 1;
    (void)!::write(wake_.get(), &one, sizeof one);
    std::lock_guard lock(mu_);
    if (connection_ != nullptr && blocking_) connection_->cancel();
  }

  std::string start_and_watch(std::stop_token stop) {
    using Clock = std::chrono::steady_clock;
    auto t0 = Clock::now();
    SshConnection conn(start_.host, host_, ssh_);
    {
      std::lock_guard lock(mu_);
      connection_ = &conn;
    }
    struct Unregister {
      SshAgentProcess* self;
      ~Unregister() {
        std::lock_guard lock(self->mu_);
        self->connection_ = nullptr;
      }
    } unregister{this};
    if (stop.stop_requested()) return {};
    conn.connect(wake_.get());
    auto t1 = Clock::now();
    conn.verify_host_key();
    conn.authenticate();
    auto t2 = Clock::now();

    AgentStart command_start = start_;
    if (command_start.coordinator_host.empty()) command_start.coordinator_host = conn.local_address();
    SshChannelPtr channel = exec_agent(conn, command_start);
    std::string secret_line = start_.secret_hex + "\n";
    if (ssh_channel_write(channel.get(), secret_line.data(), secret_line.size()) !=
        static_cast<int>(secret_line.size())) {
      // The remote command can end before it reads the secret (no hvd-agent there: the shell exits at once), and
      // then its stderr and exit status say why, not the write.
      std::string write_error = ssh_get_error(conn.session());
      std::string ended = watch(conn, channel.get(), stop);
      throw SshError(!ended.empty() ? ended
                                    : start_.host + ": cannot hand the job secret to hvd-agent: " + write_error);
    }
    auto t3 = Clock::now();
    auto ms = [](auto d) { return std::chrono::duration_cast<std::chrono::milliseconds>(d).count(); };
    spdlog::debug("{}: ssh connect {} ms, host key + auth {} ms, exec {} ms (total {} ms), agent told to reach {}:{}",
                  start_.host, ms(t1 - t0), ms(t2 - t1), ms(t3 - t2), ms(t3 - t0), command_start.coordinator_host,
                  command_start.coordinator_port);
    {
      std::lock_guard lock(mu_);
      blocking_ = false;  // from here on a stop closes the channel politely
    }
    if (stop.stop_requested()) return {};
    return watch(conn, channel.get(), stop);
  }

  // A session channel on `conn` running hvd-agent, its exit signal reported into exit_signal_.
  SshChannelPtr exec_agent(SshConnection& conn, const AgentStart& command_start) {
    SshChannelPtr channel(ssh_channel_new(conn.session()));
    if (!channel || ssh_channel_open_session(channel.get()) != SSH_OK) {
      throw SshError(start_.host + ": cannot open an SSH session channel on " + conn.endpoint() + ": " +
                     ssh_get_error(conn.session()));
    }
    ssh_callbacks_init(&callbacks_);
    callbacks_.userdata = &exit_signal_;
    callbacks_.channel_exit_signal_function = [](ssh_session, ssh_channel, const char* signal, int, const char*,
                                                 const char*, void* userdata) {
      *static_cast<std::string*>(userdata) = signal != nullptr ? signal : "?";
    };
    ssh_set_channel_callbacks(channel.get(), &callbacks_);
    std::string command = remote_agent_command(agent_command(command_start), cwd_);
    if (ssh_channel_request_exec(channel.get(), command.c_str()) != SSH_OK) {
      throw SshError(start_.host + ": cannot run hvd-agent over SSH: " + ssh_get_error(conn.session()));
    }
    return channel;
  }

  // Relays the agent's output until it ends or we are told to stop; returns why it ended.
  std::string watch(SshConnection& conn, ssh_channel channel, std::stop_token stop) {
    LineRelay out(start_.host), err(start_.host);
    char buffer[16384];
    std::string lost;
    while (true) {
      for (int is_stderr : {0, 1}) {
        int n;
        while ((n = ssh_channel_read_nonblocking(channel, buffer, sizeof buffer, is_stderr)) > 0) {
          (is_stderr ? err : out).add(buffer, static_cast<size_t>(n));
        }
        if (n == SSH_ERROR) lost = ssh_get_error(conn.session());
      }
      // After EOF libssh stops reading the socket in read_nonblocking; the exit status is waited for below.
      if (!lost.empty() || ssh_channel_is_closed(channel) || ssh_channel_is_eof(channel)) break;
      pollfd fds[2] = {{conn.fd(), POLLIN, 0}, {wake_.get(), POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0 && errno != EINTR) {
        lost = std::string("poll: ") + std::strerror(errno);
        break;
      }
      if (fds[1].revents & POLLIN) {
        // Asked to stop: EOF on the agent's stdin tells it to kill its workers. Nonblocking, so that a dead
        // link cannot hold the destructor; the kernel still delivers what was queued if the link comes back.
        ssh_set_blocking(conn.session(), 0);
        ssh_channel_send_eof(channel);
        ssh_channel_close(channel);
        return {};
      }
    }
    out.flush();
    err.flush();
    int code = -1;
    if (lost.empty()) {
      {
        std::lock_guard lock(mu_);
        blocking_ = true;  // the wait below is interrupted by shutting the socket down
      }
      if (stop.stop_requested()) return {};
      code = ssh_channel_get_exit_status(channel);  // sshd sends it right after EOF, once the agent exits
    }
    const std::string& h = start_.host;
    if (err.no_agent) {
      return "hvd-agent not found or not executable on " + h + " at " + start_.agent_path + ": use --agent-path";
    }
    if (err.no_cwd) {
      return h + ": working directory " + cwd_ + " does not exist there: create it, or start hvdrun from a "
             "directory that exists on every host";
    }
    if (!lost.empty() && !ssh_channel_is_closed(channel)) return h + ": SSH connection lost (" + lost + ")";
    std::string tail = err.last_lines().empty() ? "" : ": " + err.last_lines();
    if (!exit_signal_.empty()) return h + ": hvd-agent was killed by signal " + exit_signal_ + tail;
    if (code < 0) return h + ": SSH channel closed without an exit status" + tail;
    return h + ": hvd-agent exited with code " + std::to_string(code) + (code != 0 ? tail : "");
  }

  asio::io_context& io_;
  AgentStart start_;
  HostSpec host_;
  SshOptions ssh_;
  std::string cwd_;
  std::shared_ptr<std::atomic<bool>> alive_;  // false once destroyed: posted reasons are dropped
  UniqueFd wake_;                             // eventfd: the destructor wakes the watch loop
  std::string exit_signal_;                   // set by libssh's callback on the thread
  ssh_channel_callbacks_struct callbacks_{};  // libssh keeps a pointer to it while the channel lives
  std::mutex mu_;
  SshConnection* connection_ = nullptr;  // guarded by mu_: the connection being set up, for interrupt()
  bool blocking_ = true;                 // guarded by mu_: still connecting/authenticating/starting
  std::jthread thread_;                  // owner of the SSH session and channel; last, so it stops first
};

}  // namespace

std::string remote_agent_command(const std::vector<std::string>& agent_argv, const std::string& cwd) {
  const std::string agent = agent_argv.empty() ? std::string() : shell_quote(agent_argv.front());
  std::string cmd = "cd " + shell_quote(cwd) + " 2>/dev/null || { echo '" + kNoCwdMarker + "' >&2; exit 1; }; " +
                    "test -x " + agent + " || { echo '" + kNoAgentMarker + "' >&2; exit 127; }; exec";
  for (const auto& arg : agent_argv) cmd += " " + shell_quote(arg);
  return cmd;
}

std::unique_ptr<AgentProcess> start_ssh_agent(asio::io_context& io, AgentStart start, const HostSpec& host,
                                              const SshOptions& ssh) {
  return std::make_unique<SshAgentProcess>(io, std::move(start), host, ssh);
}

}  // namespace hvd::launcher
