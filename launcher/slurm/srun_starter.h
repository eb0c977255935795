// Starts every host's hvd-agent with one srun inside the Slurm allocation hvdrun runs in, so that Slurm does the
// fan-out (its slurmd tree, not one connection per host from here) and its process tracking, cgroups,
// accounting and scancel cover the agents and their workers. The job secret goes on srun's stdin, which
// `--input=all` copies to every agent: it is never on a command line. Each host gets an AgentProcess handle;
// when the last handle goes, srun's stdin closes, every agent sees EOF and stops its workers, and srun is
// reaped (SIGTERM, then SIGKILL, if it lingers). When srun ends, every live handle's on_ended is called.
#pragma once

#include <asio.hpp>
#include <memory>
#include <string>
#include <vector>

#include "launcher/start/agent_process.h"
#include "launcher/plan/plan.h"

namespace hvd::launcher {

// The srun command for these agents (no secret in it): one task per host, on exactly those hosts, sharing the
// job's resources with other steps (--overlap) and unbound (--cpu-bind=none) so the workers get every CPU
// Slurm gave the job there. Each agent names itself by SLURMD_NODENAME, the node name in the allocation.
std::vector<std::string> srun_command(const std::string& srun, const std::vector<AgentStart>& starts,
                                      const std::string& job_id);

// What the srun starter takes from the command line.
struct SrunOptions {
  std::string job_id;             // the allocation hvdrun runs in
  std::string agent_path;         // --agent-path; empty: the starts' own
  std::string coordinator_addr;   // --coordinator-addr
  std::string network_interface;  // --network-interface
};

// srun is HVD_SRUN when set, else `srun` from PATH. Throws hvd::Error when srun cannot be started.
std::vector<std::unique_ptr<AgentProcess>> start_srun_agents(asio::io_context& io, std::vector<AgentStart> starts,
                                                             const Plan& plan, const SrunOptions& options);

}  // namespace hvd::launcher
