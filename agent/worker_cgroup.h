// A cgroup v2 of their own for one agent's workers, so that teardown reaches every process they started, even
// one that left their process group (setsid) or was reparented away. Only cgroup.procs and cgroup.kill are
// used, no controller. The group is made under $HVD_CGROUP_ROOT when set, else under the agent's own cgroup in
// the cgroup2 mount, as hvd-<host>-<agent pid>. create() says why it cannot be done (not cgroup v2, not
// writable); the agent then warns and runs without it.
// The workers start inside because the agent steps in while it spawns them (Entered), whatever the spawning
// method; kill() SIGKILLs everything in the group; the destructor kills, waits for it to empty and removes it.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

namespace hvd::agent {

class WorkerCgroup {
 public:
  static constexpr const char* kRootEnv = "HVD_CGROUP_ROOT";

  // nullptr, with the reason in why_not, when no cgroup can be made here.
  static std::unique_ptr<WorkerCgroup> create(const std::string& host, std::string& why_not);
  ~WorkerCgroup();
  WorkerCgroup(const WorkerCgroup&) = delete;
  WorkerCgroup& operator=(const WorkerCgroup&) = delete;

  // While alive, the agent itself is in the group: the processes it forks start there. Moves it back after.
  class Entered {
   public:
    Entered(Entered&& other) noexcept : back_to_(std::move(other.back_to_)) { other.back_to_.clear(); }
    ~Entered();
    Entered(const Entered&) = delete;
    Entered& operator=(const Entered&) = delete;

   private:
    friend class WorkerCgroup;
    explicit Entered(std::string back_to) : back_to_(std::move(back_to)) {}
    std::string back_to_;  // the agent's own cgroup directory
  };
  // Throws hvd::Error when the agent cannot move in.
  Entered enter();
  // SIGKILLs every process in the group (cgroup.kill; on kernels before 5.14, freeze and kill each).
  void kill();
  const std::string& path() const { return path_; }

 private:
  WorkerCgroup(std::string path, std::string own) : path_(std::move(path)), own_(std::move(own)) {}
  bool wait_empty(int timeout_ms);

  std::string path_;  // the job's group
  std::string own_;   // the agent's own group, to step back into
};

}  // namespace hvd::agent
