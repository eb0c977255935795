// How a job decides, apart from how it runs: a static job (static_job.h: the plan's ranks, started once, any
// failure ends the job) or an elastic one (elastic_policy.h: hosts and workers come and go). The session
// (session.h) runs the agents, the output, the signals and the teardown, and calls these hooks where the two
// differ; a hook acts through the JobRunner (job_runner.h) it was built with. All on the session's io_context.
#pragma once

#include <string>

#include "common/messages/agent_reports.h"
#include "launcher/session/agent_fleet.h"

namespace hvd::launcher {

class JobPolicy {
 public:
  virtual ~JobPolicy() = default;

  // The address the coordination server listens on.
  virtual std::string listen_address() const = 0;
  // The server listens: start the job's agents (and whatever bounds their start).
  virtual void start() = 0;
  // The agent's link is up: authenticated, its hello read, its frames coming to the session.
  virtual void on_agent_linked(FleetAgent& agent) = 0;
  // A worker of the agent exited; the job's outcome has recorded it.
  virtual void on_worker_exit(const FleetAgent& agent, const messages::Exit& exit) = 0;
  // The agent's link closed and the agent is done now (the report has heard of a lost host); `expected`: it had
  // said "bye", or the job was being torn down. The session checks whether the job is over afterwards.
  virtual void on_agent_lost(FleetAgent& agent, const std::string& reason, bool expected) = 0;
  // The agent's process ended; its link may still be open. The policy settles what that means for the agent and
  // the job, and calls the runner's maybe_finish when the job may be over.
  virtual void on_agent_ended(FleetAgent& agent, const std::string& reason) = 0;
  // The job's first failure, named by `message`, before the teardown begins.
  virtual void on_fail(const std::string& message) = 0;
  // The teardown begins, or the session finishes: the policy's timers stop.
  virtual void on_ending() = 0;
  // Every rank has ended, so the job is over once every agent is done (an elastic job ends when it says so).
  virtual bool ranks_done() const = 0;
  // hvdrun exits with the code the job decided, not the root cause's (report/ranking.h).
  virtual bool own_exit_code() const = 0;
};

}  // namespace hvd::launcher
