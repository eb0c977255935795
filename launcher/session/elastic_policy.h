// An elastic job's policy (--min-np, --max-np or --host-discovery-script): launcher/elastic/ElasticJob decides which
// hosts get agents and workers, when a generation forms and when a failure ends the job; this class is its
// elastic::SessionControl, carrying its decisions to the session's runner, and tells it of every agent gone, once
// (tell_gone). Worker ids stand for ranks; a worker's failure does not end the job; the job ends when the ElasticJob
// says so, and hvdrun exits with the code it decided.
#pragma once

#include <string>
#include <vector>

#include "launcher/elastic/elastic_job.h"
#include "launcher/session/job_policy.h"
#include "launcher/session/job_runner.h"

namespace hvd::launcher {

class ElasticPolicy : public JobPolicy, private elastic::SessionControl {
 public:
  // A fixed host list (-H, --hostfile) goes into the runner's plan now: the coordinator's address and the local
  // agent's follow it from the start. Discovered hosts join the plan as their agents start.
  explicit ElasticPolicy(JobRunner& runner);

  std::string listen_address() const override;
  void start() override;
  void on_agent_linked(FleetAgent& agent) override;
  void on_worker_exit(const FleetAgent& agent, const messages::Exit& exit) override;
  void on_agent_lost(FleetAgent& agent, const std::string& reason, bool expected) override;
  void on_agent_ended(FleetAgent& agent, const std::string& reason) override;
  void on_fail(const std::string& message) override { job_.stop(message); }
  void on_ending() override {}
  bool ranks_done() const override { return false; }  // an elastic job ends when it says so (succeed, fail)
  bool own_exit_code() const override { return true; }

 private:
  // elastic::SessionControl
  void start_agent(const HostSpec& host) override;
  void launch_workers(const std::string& host, const std::vector<WorkerLaunch>& workers) override;
  void terminate_host(const std::string& host, const std::string& why) override;
  void fail(int code, const std::string& message) override { runner_.fail(code, message); }
  void succeed() override;
  void message(const std::string& text) override { runner_.message(text); }
  void set_store_key(const std::string& key, const std::string& value) override;
  void told_to_end(int id) override;

  // The ElasticJob hears that the agent is gone, once, and its workers end in the report without an exit.
  void tell_gone(FleetAgent& agent, const std::string& reason);
  // Why a worker that failed on its own failed, after the ElasticJob's line about the reset.
  void log_cause(const FleetAgent& agent, const messages::Exit& exit);

  JobRunner& runner_;
  elastic::ElasticJob job_;
};

}  // namespace hvd::launcher
