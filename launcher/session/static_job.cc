#include "launcher/session/static_job.h"

#include <chrono>
#include <exception>
#include <utility>

#include "launcher/plan/local_host.h"
#include "launcher/plan/same_machine.h"
#include "launcher/plan/worker_env.h"
#include "launcher/report/exit_codes.h"
#include "launcher/report/ranking.h"
#include "launcher/slurm/srun_starter.h"
#include "launcher/start/coordinator_address.h"

namespace hvd::launcher {
namespace {

std::string seconds(double s) {
  auto text = std::to_string(s);
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  return text + " s";
}

}  // namespace

StaticJob::StaticJob(JobRunner& runner) : runner_(runner), start_timer_(runner.io()) {
  const Plan& plan = runner_.plan();
  for (int r = 0; r < plan.size(); ++r) {
    runner_.outcome().add(r, "rank " + std::to_string(r), plan.slots[r].host);
  }
  for (const auto& host : plan.hosts) runner_.fleet().add(host.name).ranks = plan.ranks_on(host.name);
}

std::string StaticJob::listen_address() const {
  return coordinator_bind_address(runner_.plan(), runner_.options().coordinator_addr);
}

void StaticJob::start() {
  start_timer_.expires_after(std::chrono::milliseconds(static_cast<long>(runner_.options().start_timeout_s * 1000)));
  start_timer_.async_wait([this](std::error_code ec) {
    if (!ec) on_start_timeout();
  });
  start_agents();
}

void StaticJob::start_agents() {
  AgentFleet& fleet = runner_.fleet();
  std::vector<AgentStart> srun_starts;
  for (auto& agent : fleet) {
    AgentStart start = runner_.agent_start(agent);
    if (runner_.options().slurm_job) {
      srun_starts.push_back(std::move(start));  // one srun starts them all, below
      continue;
    }
    // A job on this host alone is planned whole before its agent connects: the agent, forked, connects to the
    // address hvdrun listens on (loopback, which both ends of its link will show) and starts the workers without
    // waiting for the handshake.
    if (fleet.size() == 1 && is_local_host(agent.host)) {
      const std::string loopback = listen_address();
      start.first_launch = runner_.launch_message(agent.host, planned_ranks(agent), loopback, loopback);
    }
    try {
      runner_.start_agent(agent, std::move(start));
    } catch (const std::exception& e) {
      agent.failure = e.what();
      agent.done = true;
      runner_.fail(exit_code::kStartFailed, "hvdrun: cannot start the agent on " + agent.host + ": " + e.what());
      return;
    }
  }
  if (!srun_starts.empty()) start_with_srun(std::move(srun_starts));
}

void StaticJob::start_with_srun(std::vector<AgentStart> starts) {
  const SessionOptions& options = runner_.options();
  try {
    const SrunOptions srun{.job_id = *options.slurm_job,
                           .agent_path = options.agent_path,
                           .coordinator_addr = options.coordinator_addr,
                           .network_interface = options.network_interface};
    auto processes = start_srun_agents(runner_.io(), std::move(starts), runner_.plan(), srun);
    for (size_t i = 0; i < runner_.fleet().size(); ++i) {
      runner_.fleet().at(static_cast<int>(i)).process = std::move(processes[i]);
    }
  } catch (const std::exception& e) {
    runner_.fail(exit_code::kStartFailed, std::string("hvdrun: cannot start the agents with srun: ") + e.what());
  }
}

void StaticJob::on_agent_linked(FleetAgent&) {
  if (!runner_.fleet().all_linked()) return runner_.check_start_failures();
  if (auto problem = same_machine_problem(runner_.plan().hosts, runner_.fleet().machines()); !problem.empty()) {
    return runner_.fail(exit_code::kUsage, "hvdrun: " + problem);
  }
  launch_all();
}

void StaticJob::launch_all() {
  start_timer_.cancel();
  for (auto& agent : runner_.fleet()) {
    if (agent.process && agent.process->took_first_launch()) continue;  // its workers run already
    runner_.send_launch(agent, planned_ranks(agent));
  }
}

std::vector<StaticJob::WorkerLaunch> StaticJob::planned_ranks(const FleetAgent& agent) const {
  const Plan& plan = runner_.plan();
  std::vector<WorkerLaunch> ranks;
  for (int r : agent.ranks) ranks.push_back({r, planned_contract(plan.slots[r], plan.size())});
  return ranks;
}

void StaticJob::on_worker_exit(const FleetAgent& agent, const messages::Exit& exit) {
  JobOutcome& outcome = runner_.outcome();
  const std::string who =
      "rank " + std::to_string(exit.rank) + " on " + agent.host + " (pid " + std::to_string(exit.pid) + ")";
  if (exit.signal && exit.outside) {
    const int signal = *exit.signal;
    if (!outcome.exit_code()) {
      runner_.outside_stop().hold(
          exit_code::kSignalBase + signal,
          "hvdrun: " + who + " was stopped from outside the job (" + report::signal_name(signal) + ")");
    }
  } else if (exit.signal) {
    const int signal = *exit.signal;
    runner_.fail(exit_code::kSignalBase + signal, "hvdrun: " + who + " was killed by " + report::signal_name(signal));
  } else if (int code = exit.code.value_or(0); code != 0) {
    runner_.fail(code, "hvdrun: " + who + " exited with code " + std::to_string(code));
  }
  if (outcome.all_exited()) runner_.outside_stop().release();
  runner_.maybe_finish();
}

void StaticJob::on_agent_lost(FleetAgent& agent, const std::string& reason, bool expected) {
  if (expected) return;
  runner_.fail(exit_code::kAgentLost,
               "hvdrun: lost the agent on " + agent.host + " (" + reason + "); stopping the job on every host");
}

void StaticJob::on_agent_ended(FleetAgent& agent, const std::string& reason) {
  if (agent.done) return runner_.maybe_finish();
  if (!runner_.launched()) {
    agent.failure = reason;
    agent.done = true;
    return runner_.check_start_failures();
  }
  if (!agent.link || !agent.link->open()) {
    agent.done = true;
    runner_.report_host_lost(agent, reason);
    if (!runner_.tearing_down()) runner_.fail(exit_code::kAgentLost, "hvdrun: lost the agent on " + reason);
  }
  runner_.maybe_finish();
}

bool StaticJob::ranks_done() const { return runner_.outcome().all_exited(); }

void StaticJob::on_start_timeout() {
  runner_.fail(exit_code::kStartFailed, "hvdrun: the job did not start: no agent connected within " +
                                            seconds(runner_.options().start_timeout_s) + " from " +
                                            runner_.fleet().unconnected() +
                                            "; check the hosts or raise --start-timeout");
}

}  // namespace hvd::launcher
