// What a job policy (job_policy.h) may ask of the session that runs it (session.h): the job's agents, its outcome
// and its plan, starting an agent and launching workers on it, output to the terminal, and failing or ending the job.
// The session implements it; a policy decides when, the runner does. All on the session's io_context, one thread.
#pragma once

#include <asio.hpp>
#include <string>
#include <vector>

#include "common/messages/agent_commands.h"
#include "launcher/elastic/elastic_job.h"
#include "launcher/plan/plan.h"
#include "launcher/session/agent_fleet.h"
#include "launcher/session/job_outcome.h"
#include "launcher/session/outside_stop_hold.h"
#include "launcher/session/session_options.h"
#include "launcher/start/agent_process.h"
#include "store/store_server.h"

namespace hvd::launcher {

class JobRunner {
 public:
  using WorkerLaunch = elastic::SessionControl::WorkerLaunch;  // a rank (static) or worker id and its contract

  virtual ~JobRunner() = default;

  virtual asio::io_context& io() = 0;
  virtual const SessionOptions& options() const = 0;
  // The hosts agents start on (an elastic job adds them as they come) and a static job's ranks.
  virtual Plan& plan() = 0;
  virtual AgentFleet& fleet() = 0;
  virtual JobOutcome& outcome() = 0;
  virtual OutsideStopHold& outside_stop() = 0;
  // The rendezvous store the coordination server serves; there once run() has begun.
  virtual detail::StoreServer& store() = 0;

  // How the agent starts: the coordinator's port, the secret, and its end reported to the policy.
  virtual AgentStart agent_start(const FleetAgent& agent) = 0;
  // Starts the agent's process as `start` says; throws what its starter throws. A first launch counts as launched.
  virtual void start_agent(FleetAgent& agent, AgentStart start) = 0;
  // The launch frame for `workers` on `host`: their store at store_host, their data plane bound to data_addr.
  virtual messages::Launch launch_message(const std::string& host, const std::vector<WorkerLaunch>& workers,
                                          const std::string& store_host, const std::string& data_addr) const = 0;
  // Sends the launch over the agent's link, with the addresses its link shows (launched() is true from now).
  virtual void send_launch(FleetAgent& agent, const std::vector<WorkerLaunch>& workers) = 0;
  // Some agent was told to start workers.
  virtual bool launched() const = 0;
  virtual bool tearing_down() const = 0;
  virtual bool finishing() const = 0;

  // The first failure decides the job's exit code, tells the policy (on_fail) and begins the teardown.
  virtual void fail(int code, const std::string& message) = 0;
  // Once every agent has connected or failed to start: fails the job naming every one that failed, if any did.
  virtual void check_start_failures() = 0;
  // The agent is gone without its "bye" while its workers ran: its host counts lost in the report.
  virtual void report_host_lost(const FleetAgent& agent, const std::string& reason) = 0;
  // A line of hvdrun's own among the workers' output.
  virtual void message(const std::string& text) = 0;
  // Sends "terminate" to every agent, and ends the session once every agent is done (the exit code decided first).
  virtual void begin_teardown() = 0;
  // Ends the session if the job is over (the policy's ranks_done, or the teardown) and every agent is done.
  virtual void maybe_finish() = 0;
};

}  // namespace hvd::launcher
