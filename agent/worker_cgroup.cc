#include "agent/worker_cgroup.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <poll.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/env.h"
#include "common/error.h"
#include "common/unique_fd.h"

namespace hvd::agent {
namespace {

bool write_file(const std::string& path, const std::string& text) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  return fd.valid() && ::write(fd.get(), text.data(), text.size()) == static_cast<ssize_t>(text.size());
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Where the agent's own cgroup v2 directory is: the cgroup2 mount point plus its path in /proc/self/cgroup.
std::string own_cgroup_dir(std::string& why_not) {
  std::string mount;
  std::ifstream mountinfo("/proc/self/mountinfo");
  for (std::string line; std::getline(mountinfo, line);) {
    auto dash = line.find(" - ");
    if (dash == std::string::npos || line.compare(dash + 3, 8, "cgroup2 ") != 0) continue;
    std::istringstream fields(line);
    std::string skip, point;
    fields >> skip >> skip >> skip >> skip >> point;
    mount = point;
    break;
  }
  if (mount.empty()) {
    why_not = "no cgroup v2 file system is mounted";
    return {};
  }
  std::ifstream cgroup("/proc/self/cgroup");
  for (std::string line; std::getline(cgroup, line);) {
    if (line.rfind("0::", 0) == 0) return mount + (line.substr(3) == "/" ? "" : line.substr(3));
  }
  why_not = "this process has no cgroup v2 path in /proc/self/cgroup";
  return {};
}

std::string safe_name(const std::string& host) {
  std::string out;
  for (char c : host) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
  return out;
}

}  // namespace

std::unique_ptr<WorkerCgroup> WorkerCgroup::create(const std::string& host, std::string& why_not) {
  std::string own = own_cgroup_dir(why_not);
  std::string root = hvd::env_var::text(kRootEnv).value_or("");
  if (root.empty()) root = own;
  if (root.empty()) return nullptr;
  struct statfs fs {};
  if (::statfs(root.c_str(), &fs) != 0) {
    why_not = root + ": " + std::strerror(errno);
    return nullptr;
  }
  if (fs.f_type != CGROUP2_SUPER_MAGIC) {
    why_not = root + " is not a cgroup v2 directory";
    return nullptr;
  }
  std::string path = root + "/hvd-" + safe_name(host) + "-" + std::to_string(::getpid());
  if (::mkdir(path.c_str(), 0755) != 0) {
    why_not = "cannot create " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  UniqueFd dir(::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) {
    why_not = "cannot open " + path + ": " + std::strerror(errno);
    ::rmdir(path.c_str());
    return nullptr;
  }
  return std::unique_ptr<WorkerCgroup>(new WorkerCgroup(path, std::move(dir)));
}

void WorkerCgroup::kill() {
  if (write_file(path_ + "/cgroup.kill", "1")) return;
  // Before Linux 5.14: freeze, so that nothing forks between listing and killing, kill each, thaw.
  const bool frozen = write_file(path_ + "/cgroup.freeze", "1");
  std::istringstream pids(read_file(path_ + "/cgroup.procs"));
  for (pid_t pid; pids >> pid;) {
    if (pid != ::getpid()) ::kill(pid, SIGKILL);
  }
  if (frozen) write_file(path_ + "/cgroup.freeze", "0");
}

bool WorkerCgroup::wait_empty(int timeout_ms) {
  // cgroup.events signals POLLPRI when "populated" changes: no polling loop.
  UniqueFd events(::open((path_ + "/cgroup.events").c_str(), O_RDONLY | O_CLOEXEC));
  if (!events.valid()) return false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    char buf[256];
    ssize_t n = ::pread(events.get(), buf, sizeof buf - 1, 0);
    if (n <= 0) return false;
    buf[n] = '\0';
    if (std::strstr(buf, "populated 0") != nullptr) return true;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd pfd{events.get(), POLLPRI, 0};
    ::poll(&pfd, 1, static_cast<int>(left.count()));
  }
}

WorkerCgroup::~WorkerCgroup() {
  kill();
  if (!wait_empty(2000) || ::rmdir(path_.c_str()) != 0) {
    spdlog::warn("cannot remove the workers' cgroup {}: {}", path_, std::strerror(errno));
  }
}

}  // namespace hvd::agent
