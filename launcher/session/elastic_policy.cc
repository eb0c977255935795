#include "launcher/session/elastic_policy.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>

#include "launcher/report/exit_codes.h"
#include "launcher/start/coordinator_address.h"

namespace hvd::launcher {
namespace {

std::vector<HostSpec> fixed_hosts(const SessionOptions& options) {
  return options.elastic->discovery_script.empty() ? options.hosts : std::vector<HostSpec>{};
}

}  // namespace

ElasticPolicy::ElasticPolicy(JobRunner& runner)
    : runner_(runner), job_(runner.io(), *runner.options().elastic, fixed_hosts(runner.options()), *this) {
  if (runner_.options().elastic->discovery_script.empty()) runner_.plan().hosts = runner_.options().hosts;
}

// A discovered host may be any host: with a discovery script listen on every address unless told one.
std::string ElasticPolicy::listen_address() const {
  const SessionOptions& options = runner_.options();
  if (options.elastic->discovery_script.empty())
    return coordinator_bind_address(runner_.plan(), options.coordinator_addr);
  return options.coordinator_addr.empty() ? "0.0.0.0" : options.coordinator_addr;
}

void ElasticPolicy::start() {
  runner_.store().set_rendezvous_handler(
      [this](const std::shared_ptr<FramedConnection>& client, const messages::RendezvousRequest& request) {
        job_.on_rendezvous(client, request);
      });
  job_.start();
}

void ElasticPolicy::on_agent_linked(FleetAgent& agent) { job_.on_agent_connected(agent.host); }

void ElasticPolicy::on_worker_exit(const FleetAgent& agent, const messages::Exit& exit) {
  job_.on_worker_exit(exit.rank, exit.code, exit.signal);
  log_cause(agent, exit);
}

void ElasticPolicy::on_agent_lost(FleetAgent& agent, const std::string& reason, bool) { tell_gone(agent, reason); }

void ElasticPolicy::on_agent_ended(FleetAgent& agent, const std::string& reason) {
  if (!agent.done && (!agent.link || !agent.link->open())) {
    agent.done = true;
    tell_gone(agent, reason);
  }
  if (agent.done) return runner_.maybe_finish();
  if (!runner_.launched()) {
    agent.failure = reason;
    agent.done = true;
    return runner_.check_start_failures();
  }
  runner_.maybe_finish();  // its link is open: its closing tells the ElasticJob
}

// An elastic job goes on after a worker fails on its own: why it failed (its record, else its last stderr line)
// follows the elastic job's line about the reset.
void ElasticPolicy::log_cause(const FleetAgent& agent, const messages::Exit& exit) {
  const bool failed = exit.signal || exit.code.value_or(0) != 0;
  if (!failed || exit.stopped || exit.outside || runner_.finishing()) return;
  if (auto reason = runner_.outcome().report().reason_of(exit.rank); !reason.empty()) {
    runner_.message("hvdrun: the reset's root cause: worker " + std::to_string(exit.rank) + " on " + agent.host + ": " +
                    reason);
  }
}

void ElasticPolicy::tell_gone(FleetAgent& agent, const std::string& reason) {
  if (agent.elastic_told || runner_.finishing()) return;
  agent.elastic_told = true;
  for (int id : agent.ranks) runner_.outcome().gone(id);
  job_.on_host_lost(agent.host, reason);
}

// --- elastic::SessionControl ---------------------------------------------------------------------------------

void ElasticPolicy::start_agent(const HostSpec& host) {
  if (runner_.tearing_down()) return;
  auto& hosts = runner_.plan().hosts;
  if (std::none_of(hosts.begin(), hosts.end(), [&](const HostSpec& h) { return h.name == host.name; })) {
    hosts.push_back(host);
  }
  FleetAgent& agent = runner_.fleet().add(host.name);
  try {
    runner_.start_agent(agent, runner_.agent_start(agent));
  } catch (const std::exception& e) {
    agent.failure = e.what();
    agent.done = true;
    // Told after this call returns: the elastic job is in the middle of deciding.
    asio::post(runner_.io(), [this, index = agent.index] {
      FleetAgent& failed = runner_.fleet().at(index);
      tell_gone(failed, failed.failure);
    });
  }
}

void ElasticPolicy::launch_workers(const std::string& host, const std::vector<WorkerLaunch>& workers) {
  FleetAgent* agent = runner_.fleet().find(host);
  if (!agent || !agent->link || agent->done || runner_.tearing_down()) return;
  for (const auto& w : workers) {
    runner_.outcome().add(w.id, "worker " + std::to_string(w.id), host);
    agent->ranks.push_back(w.id);
  }
  runner_.send_launch(*agent, workers);
}

void ElasticPolicy::terminate_host(const std::string& host, const std::string& why) {
  FleetAgent* agent = runner_.fleet().find(host);
  if (!agent || agent->done) return;
  spdlog::info("stopping the agent on {}: {}", host, why);
  if (agent->link && agent->link->open()) return agent->link->send(messages::Terminate{.reason = why}.encode());
  agent->process.reset();  // never connected: closing its stdin stops it
  agent->done = true;
  asio::post(runner_.io(),
             [this, index = agent->index] { tell_gone(runner_.fleet().at(index), "stopped before it connected"); });
}

void ElasticPolicy::succeed() {
  if (!runner_.outcome().decide(exit_code::kOk)) return;
  job_.stop("the job is done");
  runner_.begin_teardown();
}

void ElasticPolicy::set_store_key(const std::string& key, const std::string& value) { runner_.store().set(key, value); }

void ElasticPolicy::told_to_end(int id) { runner_.outcome().report().told_to_end(id); }

}  // namespace hvd::launcher
