#include "launcher/elastic/discovery.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <sstream>

#include "common/error.h"
#include "common/unique_fd.h"

namespace hvd::launcher::elastic {
namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

void relay_lines(std::string& pending, const std::function<void(std::string)>& relay, bool flush) {
  for (auto end = pending.find('\n'); end != std::string::npos; end = pending.find('\n')) {
    relay(pending.substr(0, end));
    pending.erase(0, end + 1);
  }
  if (flush && !pending.empty()) {
    relay(pending);
    pending.clear();
  }
}

// In the forked child: the script, its output into the pipes, its stdin from /dev/null.
[[noreturn]] void exec_script(const std::string& path, int out_fd, int err_fd) {
  ::setpgid(0, 0);  // its own group: a timeout kills whatever it started too
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(err_fd, STDERR_FILENO);
  const int null = ::open("/dev/null", O_RDONLY);
  ::dup2(null, STDIN_FILENO);
  ::close_range(3, ~0U, 0);
  ::execl(path.c_str(), path.c_str(), static_cast<char*>(nullptr));
  std::fprintf(stderr, "cannot execute it: %s\n", std::strerror(errno));
  ::_exit(127);
}

struct ScriptEnd {
  std::string stdout_text;
  bool timed_out = false;
  int status = 0;  // waitpid's
};

// Reads the script's stdout and relays its stderr lines until it has exited and its stdout reached EOF (a
// grandchild holding the pipe runs into the deadline); then kills what it left running and reaps it.
ScriptEnd wait_for_script(pid_t pid, UniqueFd out_read, UniqueFd err_read, std::chrono::steady_clock::time_point deadline,
                          const std::function<void(std::string)>& relay) {
  ScriptEnd end;
  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  std::string stderr_pending;
  bool exited = false;
  while (!exited || out_read.valid()) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      end.timed_out = true;
      break;
    }
    pollfd fds[3] = {{out_read.get(), POLLIN, 0}, {err_read.get(), POLLIN, 0}, {exited ? -1 : pidfd.get(), POLLIN, 0}};
    if (::poll(fds, 3, static_cast<int>(left.count())) < 0 && errno != EINTR) break;
    char buf[4096];
    if (fds[0].revents) {
      const ssize_t n = ::read(out_read.get(), buf, sizeof buf);
      if (n > 0) end.stdout_text.append(buf, n);
      if (n == 0) out_read.reset();
    }
    if (fds[1].revents) {
      const ssize_t n = ::read(err_read.get(), buf, sizeof buf);
      if (n > 0) {
        stderr_pending.append(buf, n);
        relay_lines(stderr_pending, relay, false);
      }
      if (n == 0) err_read.reset();
    }
    if (fds[2].revents) {
      // Seen exited but not reaped (WNOWAIT): its pid, and so its group id, stay ours until the kill below.
      siginfo_t info{};
      exited = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
    }
  }
  ::kill(-pid, SIGKILL);  // what it left running (or itself, past the timeout)
  ::waitpid(pid, &end.status, 0);
  relay_lines(stderr_pending, relay, true);
  return end;
}

// What the script's end says: its hosts, or why there are none.
DiscoveryResult judge(const ScriptEnd& end, const std::string& path, std::chrono::milliseconds timeout) {
  DiscoveryResult result;
  const std::string who = "the discovery script " + path;
  if (end.timed_out) {
    result.error = who + " did not finish within " + std::to_string(timeout.count() / 1000) +
                   " s; it must print its host:slots lines and exit within that (a stuck command, or a child "
                   "holding its stdout open?)";
  } else if (WIFSIGNALED(end.status)) {
    result.error = who + " was killed by signal " + std::to_string(WTERMSIG(end.status)) + " (" +
                   ::strsignal(WTERMSIG(end.status)) + "); run it by hand to see why";
  } else if (WEXITSTATUS(end.status) != 0) {
    result.error = who + " exited with code " + std::to_string(WEXITSTATUS(end.status)) +
                   "; it must exit 0 after printing host:slots lines (run it by hand to see its error)";
  } else {
    try {
      result.hosts = parse_discovery_output(end.stdout_text, path);
      result.ok = true;
    } catch (const UsageError& e) {
      result.error = e.what();
      result.bad_output = true;
    }
  }
  return result;
}

}  // namespace

std::vector<HostSpec> parse_discovery_output(const std::string& text, const std::string& script) {
  std::vector<HostSpec> hosts;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    const std::string where = "--host-discovery-script " + script + ": output line " + std::to_string(number);
    if (line.find_first_of(" \t,") != std::string::npos) {
      throw UsageError(where + " '" + line + "' is not host:slots; print one host:slots per line");
    }
    HostSpec host = parse_host_token(line, where);
    for (const auto& seen : hosts) {
      if (seen.name == host.name) {
        throw UsageError(where + ": host " + host.name + " is listed twice; print each host once");
      }
    }
    hosts.push_back(std::move(host));
  }
  return hosts;
}

DiscoveryScript::DiscoveryScript(asio::io_context& io, std::string path, std::chrono::milliseconds timeout,
                                 StderrLine on_stderr)
    : io_(io), path_(std::move(path)), timeout_(timeout), on_stderr_(std::move(on_stderr)) {}

DiscoveryScript::~DiscoveryScript() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    if (child_pgid_ > 0) ::kill(-child_pgid_, SIGKILL);
  }
  if (thread_.joinable()) thread_.join();
}

void DiscoveryScript::run(Done done) {
  if (running_) return;
  running_ = true;
  if (thread_.joinable()) thread_.join();  // the previous run's thread has posted its result: it is ending
  thread_ = std::jthread([this, done = std::move(done)] {
    DiscoveryResult result = run_blocking();
    asio::post(io_, [this, done, result = std::move(result)]() mutable {
      running_ = false;
      done(std::move(result));
    });
  });
}

DiscoveryResult DiscoveryScript::run_blocking() {
  DiscoveryResult result;
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    result.error = std::string("cannot make pipes for the discovery script: ") + std::strerror(errno);
    return result;
  }
  UniqueFd out_read(out[0]), out_write(out[1]), err_read(err[0]), err_write(err[1]);
  const pid_t pid = ::fork();
  if (pid < 0) {
    result.error = std::string("cannot fork the discovery script: ") + std::strerror(errno);
    return result;
  }
  if (pid == 0) exec_script(path_, out_write.get(), err_write.get());
  ::setpgid(pid, pid);
  {
    std::lock_guard lock(mutex_);
    child_pgid_ = pid;
    if (stopping_) ::kill(-pid, SIGKILL);
  }
  out_write.reset();
  err_write.reset();
  // Lines go to the event loop's thread, which owns the output.
  const auto relay = [this](std::string line) {
    asio::post(io_, [this, line = std::move(line)] { on_stderr_(line); });
  };
  const ScriptEnd end =
      wait_for_script(pid, std::move(out_read), std::move(err_read), std::chrono::steady_clock::now() + timeout_, relay);
  {
    std::lock_guard lock(mutex_);
    child_pgid_ = -1;
  }
  return judge(end, path_, timeout_);
}

}  // namespace hvd::launcher::elastic
