// One worker process: vfork-style clone + exec in its own process group, stdout and stderr on pipes, stdin
// from /dev/null, optionally born inside a cgroup. Contract: spawn() returns only once exec has succeeded (chdir/exec
// failures come back as a SpawnError carrying 127 or 126); the process group id equals pid(). Move-only; the destructor
// SIGKILLs the group and reaps the child unless someone already reaped it (mark_reaped / wait).
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/unique_fd.h"

namespace hvd::agent {

struct SpawnOptions {
  std::vector<std::string> command;        // command[0] is looked up on the worker's PATH unless it has a '/'
  std::string cwd;                         // empty: the agent's own
  std::map<std::string, std::string> env;  // laid over the agent's environment
  std::string host;                        // names this host in error messages
  int cgroup_dir = -1;                     // a cgroup v2 directory (fd) to start the worker in, or -1
  std::string cgroup_procs;                // its cgroup.procs: the way in where CLONE_INTO_CGROUP is missing
};

class SpawnError : public Error {
 public:
  // The worker's command cannot run as given (not found, not executable, a bad directory): bad input.
  SpawnError(const std::string& what, int exit_code) : Error(ErrorKind::kUsage, what), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }  // 127: not found, 126: found but not runnable

 private:
  int exit_code_;
};

class Process {
 public:
  static Process spawn(const SpawnOptions& options);

  Process(Process&& other) noexcept;
  Process& operator=(Process&& other) noexcept;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  ~Process();

  pid_t pid() const { return pid_; }
  UniqueFd take_stdout() { return std::move(stdout_); }
  UniqueFd take_stderr() { return std::move(stderr_); }

  // Sends sig to the whole process group (grandchildren included); false when the group is gone.
  bool signal_group(int sig) const;
  bool reaped() const { return reaped_; }
  // For an owner that reaps through waitpid(-1) itself.
  void mark_reaped() { reaped_ = true; }
  // Blocks until the child exits; returns the raw wait status.
  int wait();

 private:
  Process(pid_t pid, UniqueFd out, UniqueFd err) : pid_(pid), stdout_(std::move(out)), stderr_(std::move(err)) {}
  void release();

  pid_t pid_ = -1;
  bool reaped_ = false;
  UniqueFd stdout_, stderr_;
};

// "code 3", "signal 9 (SIGKILL)": a wait status for messages.
std::string describe_status(int status);

}  // namespace hvd::agent
