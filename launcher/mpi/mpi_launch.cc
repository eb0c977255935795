#include "launcher/mpi/mpi_launch.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string_view>
#include <thread>

#include "common/env.h"
#include "launcher/cli/exit_codes.h"
#include "launcher/plan/local_host.h"
#include "launcher/mpi/mpi_command.h"
#include "launcher/mpi/mpirun_probe.h"
#include "launcher/cli/shell_words.h"
#include "launcher/plan/worker_env.h"

extern char** environ;

namespace hvd::launcher {
namespace {

// Ranks the plan puts on this machine (mpirun's -H is the plan's hosts, each with the ranks placed there).
int ranks_here(const Plan& plan) {
  int here = 0;
  for (const auto& host : plan.hosts) {
    if (is_local_host(host.name)) here += host.slots;
  }
  return here;
}

int cores_here() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

int unusable(const std::string& message) {
  std::cerr << "hvdrun: " << message << std::endl;
  return exit_code::kMpirunUnusable;
}

}  // namespace

int run_with_mpi(const LaunchOptions& options) {
  const auto path = env_var::text("PATH");
  const char* path_env = env_var::c_str(path);
  const auto mpirun = find_mpirun(env_var::c_str(env_var::text("HVD_MPIRUN")), path_env);
  if (!mpirun) {
    return unusable(std::string{"--mpi: no mpirun in PATH ("} + (path_env ? path_env : "") +
                    "); install Open MPI (apt-get install openmpi-bin), set HVD_MPIRUN to its mpirun, or drop --mpi");
  }
  const MpirunInfo info = probe_mpirun(*mpirun);
  if (!info.open_mpi) {
    return unusable("--mpi: " + *mpirun + " is not Open MPI ('" + *mpirun + " --version' says: " + info.version +
                    "); hvdrun --mpi builds Open MPI's command line: put Open MPI's mpirun first in PATH (apt-get "
                    "install openmpi-bin) or set HVD_MPIRUN to it");
  }

  // mpirun's local ranks inherit its environment: hvdrun's own job variables (a secret, a store, a placement
  // inherited from an outer hvdrun job) must not reach them.
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view e(*entry);
    if (!is_reserved_env(e.substr(0, e.find('=')))) environment.emplace_back(e);
  }
  const auto argv = mpi_command(*mpirun, options, environment, ::geteuid(), ranks_here(options.plan) > cores_here());
  if (options.verbose) std::cerr << "hvdrun: running " << info.version << ": " << shell_quote(argv) << std::endl;

  std::vector<char*> c_argv, c_envp;
  for (const auto& arg : argv) c_argv.push_back(const_cast<char*>(arg.c_str()));
  c_argv.push_back(nullptr);
  for (const auto& entry : environment) c_envp.push_back(const_cast<char*>(entry.c_str()));
  c_envp.push_back(nullptr);
  std::cout.flush();
  // hvdrun ignores SIGPIPE for its agents' sake; an ignored signal would stay ignored across exec.
  ::signal(SIGPIPE, SIG_DFL);
  ::execve(c_argv[0], c_argv.data(), c_envp.data());
  const int error = errno;
  ::signal(SIGPIPE, SIG_IGN);
  return unusable("--mpi: cannot execute " + *mpirun + ": " + std::strerror(error) +
                  "; check the file, or set HVD_MPIRUN");
}

}  // namespace hvd::launcher
