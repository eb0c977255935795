#include "launcher/mpi/mpi_launch.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string_view>
#include <thread>

#include "common/env.h"
#include "launcher/report/exit_codes.h"
#include "launcher/plan/local_host.h"
#include "launcher/mpi/mpi_command.h"
#include "launcher/mpi/mpirun_child.h"
#include "launcher/mpi/mpirun_probe.h"
#include "launcher/mpi/mpirun_report.h"
#include "launcher/flags/shell_words.h"
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

// The report's summary on stderr when the job did not succeed, its JSON in --report's file; hvdrun's exit code.
int conclude(const report::JobReport& report, const std::string& report_file) {
  if (auto summary = report.summary(); !summary.empty()) std::cerr << summary << std::endl;
  std::string error;
  if (!report_file.empty() && !report.write(report_file, error)) std::cerr << "hvdrun: " << error << std::endl;
  return report.verdict().exit_code;
}

int unusable(const std::string& message) {
  std::cerr << "hvdrun: " << message << std::endl;
  return exit_code::kMpirunUnusable;
}

}  // namespace

int run_with_mpi(const MpiOptions& options, const Plan& plan) {
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
  const auto argv = mpi_command(*mpirun, options, plan, environment, ::geteuid(), ranks_here(plan) > cores_here());
  if (options.verbose) std::cerr << "hvdrun: running " << info.version << ": " << shell_quote(argv) << std::endl;

  MpirunReport report;
  const MpirunEnd end = run_mpirun(argv, environment, [&](const std::string& line) { report.on_line(line); });
  if (end.exec_errno) {
    return unusable("--mpi: cannot execute " + *mpirun + ": " + std::strerror(*end.exec_errno) +
                    "; check the file, or set HVD_MPIRUN");
  }
  const int code = WIFSIGNALED(end.status) ? exit_code::kSignalBase + WTERMSIG(end.status) : WEXITSTATUS(end.status);
  return conclude(report.finish(plan, code, end.signal), options.report_file);
}

}  // namespace hvd::launcher
