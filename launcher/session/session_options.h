// What one job (Session) and its restarts take from hvdrun's command line: the worker command and exports, the
// timeouts, where output goes, how agents start (SSH, or srun inside an allocation) and the elastic flags.
// cli/ fills it from LaunchOptions (cli/folder_options.h); nothing here knows the other flags.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/protocol.h"
#include "launcher/elastic/elastic_options.h"
#include "launcher/plan/hosts.h"
#include "launcher/ssh/ssh_options.h"

namespace hvd::launcher {

struct SessionOptions {
  std::vector<HostSpec> hosts;                               // -H/--hostfile: elastic fixed hosts, --check-hosts
  std::vector<std::string> command;                          // the program and its arguments, verbatim
  std::vector<std::pair<std::string, std::string>> exports;  // -x, resolved, in order, each name once
  double start_timeout_s = 30;                               // --start-timeout
  double kill_grace_s = protocol::kDefaultKillGraceSeconds;  // --kill-grace
  std::string output_dir;                                    // --output-filename
  std::string report_file;                                   // --report
  bool prefix_timestamp = false;
  bool verbose = false;                   // agents log at info
  std::string agent_path;                 // hvd-agent on remote hosts; empty: the local agent's path
  std::string network_interface;          // --network-interface
  std::string coordinator_addr;           // --coordinator-addr
  SshOptions ssh;                         // agents on other hosts (connect_timeout_s: --start-timeout)
  std::optional<std::string> slurm_job;   // set: one srun starts every agent inside this Slurm job
  int max_restarts = 0;                   // --max-restarts (session/restart.h)
  std::optional<ElasticOptions> elastic;  // --min-np, --max-np or --host-discovery-script given
};

}  // namespace hvd::launcher
