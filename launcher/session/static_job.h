// A static job's policy (no --min-np, --max-np or --host-discovery-script): the plan's ranks on the plan's hosts.
// Every host's agent starts at once (over SSH, as this machine's child, or all by one srun inside an allocation);
// once every one has connected, every rank is launched (a job on this host alone hands its agent the launch at
// start). Any failure ends the job: an agent that cannot start or does not connect within --start-timeout, two
// hosts that are one machine, a lost agent, a rank's non-zero exit or fatal signal (a stop from outside the job
// after OutsideStopHold::kWindow). The job ends when every rank has exited; hvdrun's exit code is the root cause's.
#pragma once

#include <asio.hpp>
#include <string>
#include <vector>

#include "launcher/session/job_policy.h"
#include "launcher/session/job_runner.h"

namespace hvd::launcher {

class StaticJob : public JobPolicy {
 public:
  // Adds the plan's ranks to the outcome and one agent per planned host to the fleet.
  explicit StaticJob(JobRunner& runner);

  std::string listen_address() const override;
  void start() override;
  void on_agent_linked(FleetAgent& agent) override;
  void on_worker_exit(const FleetAgent& agent, const messages::Exit& exit) override;
  void on_agent_lost(FleetAgent& agent, const std::string& reason, bool expected) override;
  void on_agent_ended(FleetAgent& agent, const std::string& reason) override;
  void on_fail(const std::string&) override {}
  void on_ending() override { start_timer_.cancel(); }
  bool ranks_done() const override;
  bool own_exit_code() const override { return false; }

 private:
  using WorkerLaunch = JobRunner::WorkerLaunch;

  void start_agents();
  void start_with_srun(std::vector<AgentStart> starts);
  void launch_all();
  std::vector<WorkerLaunch> planned_ranks(const FleetAgent& agent) const;  // its ranks' placements
  void on_start_timeout();

  JobRunner& runner_;
  asio::steady_timer start_timer_;  // --start-timeout: every agent connected, or the job fails
};

}  // namespace hvd::launcher
