// hvdrun's command line, parsed into one LaunchOptions value: flags, hosts, -x exports and the worker command.
// parse_command_line only parses and validates (hostfiles are read, -x values resolved from the environment);
// it starts nothing. Bad input throws hvd::UsageError (exit 2) with one line naming the value and the fix.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "common/protocol.h"
#include "launcher/elastic/elastic_options.h"
#include "launcher/plan/hosts.h"

namespace hvd::launcher {

struct LaunchOptions {
  int np = 0;                   // resolved: -np, else every slot of the hosts, else 1
  std::vector<HostSpec> hosts;  // never empty after parsing: default localhost:np
  double start_timeout_s = 30;  // --start-timeout, else HOROVOD_START_TIMEOUT, else 30
  double kill_grace_s = protocol::kDefaultKillGraceSeconds;
  std::string output_dir;
  std::string report_file;  // --report: the job's root-cause report as JSON (launcher/report/report_json.h)
  bool prefix_timestamp = false;
  bool verbose = false;
  std::string log_level = "warning";                         // trace|debug|info|warning|error|off
  std::vector<std::pair<std::string, std::string>> exports;  // -x, resolved, in order, each name once
  std::vector<std::string> command;                          // the program and its arguments, verbatim

  // Multi-host and MPI flags (issues 3 and 5): parsed and validated here, used by their owners.
  int ssh_port = 0;  // 0: from the SSH config, else 22
  std::string ssh_identity_file;
  std::string ssh_config;
  bool ssh_accept_new = false;
  std::string agent_path;  // absolute path of hvd-agent on remote hosts; empty: the local agent's path
  std::string network_interface;
  std::string coordinator_addr;
  bool check_hosts = false;  // preflight; no command needed
  bool mpi = false;
  std::string mpi_args;
  bool check_build = false;     // print what was built; no command needed
  bool horovod_compat = false;  // --horovod-compat: Horovod's package name on the workers' PYTHONPATH (main.cc)

  // Slurm and restarts (issue 14).
  enum class Launcher { kSsh, kSlurm };
  Launcher launcher = Launcher::kSsh;     // --launcher; default kSlurm inside an allocation (SLURM_JOB_ID set)
  std::string slurm_job_id;               // the allocation's job, when launcher is kSlurm
  int max_restarts = 0;                   // restart the whole job on failure up to this many times
  std::optional<ElasticOptions> elastic;  // --min-np, --max-np or --host-discovery-script given
};

// --help and --version: print `text` to stdout and exit with `code`.
struct ExitNow {
  int code = 0;
  std::string text;
};

std::variant<LaunchOptions, ExitNow> parse_command_line(int argc, const char* const* argv);
// The same, reading -x values and HOROVOD_START_TIMEOUT from `environ_` ("NAME=VALUE" entries, null-terminated).
std::variant<LaunchOptions, ExitNow> parse_command_line(int argc, const char* const* argv, const char* const* environ_);

}  // namespace hvd::launcher
