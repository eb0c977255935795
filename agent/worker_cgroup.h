// A cgroup v2 of their own for one agent's workers, so that teardown reaches every process they started, even
// one that left their process group (setsid) or was reparented away. Only cgroup.procs and cgroup.kill are
// used, no controller. The group is made under $HVD_CGROUP_ROOT when set, else under the agent's own cgroup in
// the cgroup2 mount, as hvd-<host>-<agent pid>. create() says why it cannot be done (not cgroup v2, not
// writable); the agent then warns and runs without it.
// Workers are born inside it (Process::spawn with dir_fd(): CLONE_INTO_CGROUP), so the agent itself never moves:
// moving a process between cgroups waits an RCU grace period (~10 ms here), twice per launch when the agent stepped
// in and out. kill() SIGKILLs everything in the group; the destructor kills, waits for it to empty and removes it.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "common/unique_fd.h"

namespace hvd::agent {

class WorkerCgroup {
 public:
  static constexpr const char* kRootEnv = "HVD_CGROUP_ROOT";

  // nullptr, with the reason in why_not, when no cgroup can be made here.
  static std::unique_ptr<WorkerCgroup> create(const std::string& host, std::string& why_not);
  ~WorkerCgroup();
  WorkerCgroup(const WorkerCgroup&) = delete;
  WorkerCgroup& operator=(const WorkerCgroup&) = delete;

  // The group's directory (O_PATH), for CLONE_INTO_CGROUP.
  int dir_fd() const { return dir_.get(); }
  // Where a process writes its pid to move in: the way in on kernels without CLONE_INTO_CGROUP (before 5.7).
  std::string procs_file() const { return path_ + "/cgroup.procs"; }
  // SIGKILLs every process in the group (cgroup.kill; on kernels before 5.14, freeze and kill each).
  void kill();
  const std::string& path() const { return path_; }

 private:
  WorkerCgroup(std::string path, UniqueFd dir) : path_(std::move(path)), dir_(std::move(dir)) {}
  bool wait_empty(int timeout_ms);

  std::string path_;  // the job's group
  UniqueFd dir_;
};

}  // namespace hvd::agent
