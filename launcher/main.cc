// hvdrun: parse the command line into LaunchOptions, plan the ranks once, run the job as a Session on that plan (or
// hand it to mpirun with --mpi, whose -H follows the same plan). Each takes its own options (cli/folder_options.h).
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <variant>

#include "common/env.h"
#include "common/error.h"
#include "common/logging.h"
#include "launcher/checks/check_build.h"
#include "launcher/checks/check_hosts.h"
#include "launcher/checks/command_check.h"
#include "launcher/report/exit_codes.h"
#include "launcher/cli/folder_options.h"
#include "launcher/cli/horovod_compat.h"
#include "launcher/cli/options.h"
#include "launcher/mpi/mpi_launch.h"
#include "launcher/plan/plan.h"
#include "launcher/plan/worker_env.h"
#include "launcher/session/restart.h"
#include "launcher/session/session.h"

namespace {

// hvd-agent is installed beside hvdrun.
std::string local_agent_path() {
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "hvd-agent").string();
}

int run(int argc, char** argv) {
  using namespace hvd::launcher;
  auto parsed = parse_command_line(argc, argv);
  if (auto* exit_now = std::get_if<ExitNow>(&parsed)) {
    std::cout << exit_now->text << std::flush;
    return exit_now->code;
  }
  auto options = std::get<LaunchOptions>(std::move(parsed));
  hvd::setup_logging("hvdrun", options.verbose ? "info" : options.log_level);
  if (options.horovod_compat) {
    const auto bin_dir = std::filesystem::read_symlink("/proc/self/exe").parent_path();
    add_horovod_compat(options, find_horovod_compat_dir(bin_dir).string(), environ);
  }
  if (options.check_build) return check_build();
  if (options.check_hosts) return check_hosts(session_options(options), local_agent_path());
  // The one plan: which host runs which rank (an elastic job plans as it goes instead).
  const Plan plan = options.elastic ? Plan{} : make_plan(options.hosts, options.np);
  if (options.mpi) return run_with_mpi(mpi_options(options), plan);
  // Checked before anything starts, so a typo costs no agent or SSH connection.
  if (!options.command.empty()) {
    options.command[0] = resolve_command(options.command[0], hvd::env_var::text("PATH").value_or(""));
  }
  const auto& shared_hosts = !options.elastic                           ? plan.hosts
                             : options.elastic->discovery_script.empty() ? options.hosts
                                                                         : std::vector<HostSpec>{};
  if (auto note = default_omp_threads(options.exports, shared_hosts, environ); !note.empty()) {
    std::cerr << "hvdrun: " << note << std::endl;
  }
  if (options.elastic) {
    // Hosts and ranks change while it runs: the elastic job plans as it goes, and recovers instead of restarting.
    Session session(session_options(options), plan, local_agent_path());
    return session.run();
  }
  return run_with_restarts(session_options(options), [&](const SessionOptions& attempt) {
    Session session(attempt, plan, local_agent_path());
    return session.run();
  });
}

}  // namespace

int main(int argc, char** argv) {
  // A dead agent's pipe must surface as an error on that agent, not kill hvdrun.
  ::signal(SIGPIPE, SIG_IGN);
  try {
    return run(argc, argv);
  } catch (const hvd::UsageError& e) {
    std::cerr << "hvdrun: " << e.what() << std::endl;
    return hvd::launcher::exit_code::kUsage;
  } catch (const std::exception& e) {
    std::cerr << "hvdrun: " << e.what() << std::endl;
    return hvd::launcher::exit_code::kInternal;
  }
}
