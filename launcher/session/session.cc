#include "launcher/session/session.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "common/address.h"
#include "common/crypto.h"
#include "common/messages/message_type.h"
#include "common/protocol.h"
#include "launcher/session/agent_starter.h"
#include "launcher/start/coordinator_address.h"
#include "launcher/report/exit_codes.h"
#include "launcher/plan/local_host.h"
#include "launcher/plan/same_machine.h"
#include "launcher/slurm/srun_starter.h"
#include "launcher/plan/worker_env.h"

namespace hvd::launcher {
namespace {

// How long hvdrun waits, after a second signal, for the agents to confirm their workers are killed.
constexpr std::chrono::seconds kKillConfirmBound{3};

std::string describe_signal(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(signal);
}

std::string seconds(double s) {
  auto text = std::to_string(s);
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  return text + " s";
}

}  // namespace

Session::Session(SessionOptions options, Plan plan, std::string agent_path)
    : options_(std::move(options)),
      plan_(std::move(plan)),
      agent_path_(std::move(agent_path)),
      secret_hex_(make_job_secret_hex()),
      signals_(io_, SIGINT, SIGTERM, SIGHUP),
      start_timer_(io_),
      heartbeat_timer_(io_),
      teardown_timer_(io_),
      outside_stop_(io_, [this](int code, const std::string& message) { fail(code, message); }),
      printer_(io_, options_.output_dir, options_.prefix_timestamp,
               [this](int agent, std::size_t bytes) { on_output_written(agent, bytes); }),
      outcome_(options_.elastic.has_value()) {
  if (options_.elastic) {
    // The elastic job starts agents as hosts come; plan_.hosts collects them (start_agent looks them up there).
    // A fixed list is known now: the coordinator's address and the local agent's follow it from the start.
    const bool fixed = options_.elastic->discovery_script.empty();
    if (fixed) plan_.hosts = options_.hosts;
    elastic_ = std::make_unique<elastic::ElasticJob>(io_, *options_.elastic,
                                                     fixed ? options_.hosts : std::vector<HostSpec>{}, *this);
    return;
  }
  for (int r = 0; r < plan_.size(); ++r) {
    outcome_.add(r, "rank " + std::to_string(r), plan_.slots[r].host);
  }
  for (const auto& host : plan_.hosts) fleet_.add(host.name).ranks = plan_.ranks_on(host.name);
}

int Session::run() {
  // A discovered host may be any host: with a discovery script listen on every address unless told one (an elastic
  // job's fixed list is in plan_.hosts from the start).
  const std::string bind_address = options_.elastic && !options_.elastic->discovery_script.empty()
                                       ? (options_.coordinator_addr.empty() ? "0.0.0.0" : options_.coordinator_addr)
                                       : coordinator_bind_address(plan_, options_.coordinator_addr);
  server_ =
      std::make_unique<CoordinationServer>(io_, bind_address, from_hex(secret_hex_),
                                           [this](std::shared_ptr<FramedConnection> link,
                                                  const messages::AgentHello& hello) {
                                             on_agent_link(std::move(link), hello);
                                           });
  spdlog::info("coordination server listening on {}:{}", bind_address, server_->port());
  do_wait_signal();
  if (elastic_) {
    server_->store().set_rendezvous_handler(
        [this](const std::shared_ptr<FramedConnection>& client, const messages::RendezvousRequest& request) {
          elastic_->on_rendezvous(client, request);
        });
    elastic_->start();
    do_heartbeat();
    io_.run();
    return conclude();
  }
  start_timer_.expires_after(std::chrono::milliseconds(static_cast<long>(options_.start_timeout_s * 1000)));
  start_timer_.async_wait([this](std::error_code ec) {
    if (!ec) on_start_timeout();
  });
  start_agents();
  do_heartbeat();
  io_.run();
  return conclude();
}

int Session::conclude() {
  // Elastic jobs and preflights keep hvdrun's own code; a static job's is the root cause's (ranking.h).
  return outcome_.conclude(options_.report_file, elastic_ || output_handler_);
}

AgentStart Session::agent_start(const Agent& agent) {
  AgentStart start;
  start.host = agent.host;
  start.agent_path = agent_path_;
  start.coordinator_port = server_->port();
  start.secret_hex = secret_hex_;
  start.log_level = options_.verbose ? "info" : "warning";
  start.on_ended = [this, index = agent.index](const std::string& reason) { on_agent_ended(fleet_.at(index), reason); };
  return start;
}

void Session::start_agents() {
  std::vector<AgentStart> srun_starts;
  for (auto& agent : fleet_) {
    AgentStart start = agent_start(agent);
    if (options_.slurm_job) {
      srun_starts.push_back(std::move(start));  // one srun starts them all, below
      continue;
    }
    // A job on this host alone is planned whole before its agent connects: the agent, forked, connects to the
    // address hvdrun listens on (loopback, which both ends of its link will show) and starts the workers without
    // waiting for the handshake.
    if (fleet_.size() == 1 && is_local_host(agent.host)) {
      const std::string loopback = coordinator_bind_address(plan_, options_.coordinator_addr);
      start.first_launch = launch_message(agent.host, planned_ranks(agent), loopback, loopback);
    }
    try {
      agent.process = launcher::start_agent(io_, std::move(start), plan_, options_);
      if (agent.process->took_first_launch()) launched_ = true;
    } catch (const std::exception& e) {
      agent.failure = e.what();
      agent.done = true;
      fail(exit_code::kStartFailed, "hvdrun: cannot start the agent on " + agent.host + ": " + e.what());
      return;
    }
  }
  if (srun_starts.empty()) return;
  try {
    const SrunOptions srun{.job_id = *options_.slurm_job,
                           .agent_path = options_.agent_path,
                           .coordinator_addr = options_.coordinator_addr,
                           .network_interface = options_.network_interface};
    auto processes = start_srun_agents(io_, std::move(srun_starts), plan_, srun);
    for (size_t i = 0; i < fleet_.size(); ++i) fleet_.at(static_cast<int>(i)).process = std::move(processes[i]);
  } catch (const std::exception& e) {
    fail(exit_code::kStartFailed, std::string("hvdrun: cannot start the agents with srun: ") + e.what());
  }
}

std::vector<std::string> Session::connected_hosts() const { return fleet_.connected_hosts(); }

void Session::on_agent_link(std::shared_ptr<FramedConnection> link, const messages::AgentHello& hello) {
  const std::string& host = hello.host;
  Agent* agent = fleet_.find(host);
  if (!agent || agent->link || agent->done || tearing_down_) {
    spdlog::warn("rejected an agent link from {} for host '{}': {}", link->peer(), host,
                 agent ? "that host's agent is already connected" : "no such host in this job");
    link->close("unexpected agent");
    return;
  }
  agent->link = link;
  agent->machine = hello.machine;
  agent->last_heard = std::chrono::steady_clock::now();
  link->set_handlers([this, agent](const nlohmann::json& m) { on_agent_message(*agent, m); },
                     [this, agent](const std::string& reason) { on_agent_closed(*agent, reason); });
  spdlog::info("agent on {} connected from {}", host, link->peer());
  if (elastic_) return elastic_->on_agent_connected(host);
  if (!fleet_.all_linked()) return check_start_failures();
  if (auto problem = same_machine_problem(plan_.hosts, fleet_.machines()); !problem.empty()) {
    return fail(exit_code::kUsage, "hvdrun: " + problem);
  }
  launch_all();
}

void Session::launch_all() {
  start_timer_.cancel();
  launched_ = true;
  for (auto& agent : fleet_) {
    if (agent.process && agent.process->took_first_launch()) continue;  // its workers run already
    send_launch(agent, planned_ranks(agent));
  }
}

std::vector<Session::WorkerLaunch> Session::planned_ranks(const Agent& agent) const {
  std::vector<WorkerLaunch> ranks;
  for (int r : agent.ranks) ranks.push_back({r, planned_contract(plan_.slots[r], plan_.size())});
  return ranks;
}

// Workers reach the store at the address their agent reached hvdrun on, and bind their data plane to the
// address hvdrun saw the agent come from: both are known to route between these two hosts.
void Session::send_launch(Agent& agent, const std::vector<WorkerLaunch>& workers) {
  agent.link->send(
      launch_message(agent.host, workers, agent.link->local_address(), agent.link->remote_address()).encode());
}

// Each worker's environment, built once: what it inherits, then its contract completed here, per agent.
messages::Launch Session::launch_message(const std::string& host, const std::vector<WorkerLaunch>& workers,
                                         const std::string& store_host, const std::string& data_addr) const {
  const std::string store_addr = Address{store_host, server_->port()}.to_string();
  // A local agent's workers inherit hvdrun's environment; a remote one's get the documented forwarded set.
  const EnvMap inherited = is_local_host(host) ? EnvMap{} : forwarded_env(environ);
  messages::Launch launch{.command = options_.command,
                          .cwd = std::filesystem::current_path().string(),
                          .kill_grace_s = options_.kill_grace_s,
                          .output_window = protocol::kOutputWindow,
                          .ranks = {}};
  for (const auto& worker : workers) {
    WorkerContract contract = worker.contract;
    contract.store_addr = store_addr;
    contract.data_addr = data_addr;
    contract.exports = options_.exports;
    EnvMap env = inherited;
    write_worker_env(contract, env);
    launch.ranks.push_back({.rank = worker.id, .env = std::move(env)});
  }
  return launch;
}

void Session::on_agent_message(Agent& agent, const nlohmann::json& frame) {
  agent.last_heard = std::chrono::steady_clock::now();
  try {
    on_agent_report(agent, frame);
  } catch (const messages::MessageError& e) {
    // An authenticated agent that breaks the protocol is lost to the job like one whose link broke.
    spdlog::error("agent on {} sent a {}", agent.host, e.what());
    agent.link->close(std::string("it sent a ") + e.what());
  }
}

void Session::on_agent_report(Agent& agent, const nlohmann::json& frame) {
  using messages::MessageType;
  const auto type = messages::message_type_of(frame);
  if (!type) {
    return spdlog::warn("agent on {} sent an unknown message type {}", agent.host, messages::claimed_type(frame));
  }
  switch (*type) {
    case MessageType::kOutput:
      return on_output(agent, messages::Output::decode(frame));
    case MessageType::kStarted: {
      const auto started = messages::Started::decode(frame);
      return outcome_.started(started.rank, started.pid);
    }
    case MessageType::kExit:
      return on_worker_exit(agent, messages::Exit::decode(frame));
    case MessageType::kSpawnFailed:
      return on_spawn_failed(agent, messages::SpawnFailed::decode(frame));
    case MessageType::kBye:
      agent.done = true;
      agent.link->close_after_flush();
      return maybe_finish();
    case MessageType::kHeartbeat:
      return;
    default:
      spdlog::warn("agent on {} sent a '{}' message, which hvdrun does not take", agent.host,
                   messages::name_of(*type));
  }
}

void Session::on_output(const Agent& agent, const messages::Output& output) {
  const bool is_stderr = output.stream == messages::OutputStream::kStderr;
  last_output_ = std::chrono::steady_clock::now();
  std::size_t bytes = 0;
  for (const auto& line : output.lines) bytes += line.size();
  const std::size_t cost = protocol::output_cost(bytes, output.lines.size());
  if (output_handler_) {
    for (const auto& line : output.lines) output_handler_(output.rank, is_stderr, line);
    on_output_written(agent.index, cost);
  } else {
    printer_.lines(output.rank, is_stderr, output.lines, agent.index, cost);
  }
}

void Session::on_spawn_failed(const Agent& agent, const messages::SpawnFailed& failure) {
  outcome_.spawn_failed(failure.rank, failure.code, failure.error);
  fail(failure.code, "hvdrun: rank " + std::to_string(failure.rank) + " on " + agent.host + ": " + failure.error);
}

void Session::on_worker_exit(const Agent& agent, const messages::Exit& exit) {
  const int rank = exit.rank;
  outcome_.exited(rank, exit);
  if (elastic_) {
    elastic_->on_worker_exit(rank, exit.code, exit.signal);
    return log_elastic_cause(agent, rank, exit);
  }
  const std::string who =
      "rank " + std::to_string(rank) + " on " + agent.host + " (pid " + std::to_string(exit.pid) + ")";
  if (exit.signal && exit.outside) {
    const int signal = *exit.signal;
    if (!outcome_.exit_code()) {
      outside_stop_.hold(exit_code::kSignalBase + signal,
                         "hvdrun: " + who + " was stopped from outside the job (" + describe_signal(signal) + ")");
    }
  } else if (exit.signal) {
    const int signal = *exit.signal;
    fail(exit_code::kSignalBase + signal, "hvdrun: " + who + " was killed by " + describe_signal(signal));
  } else if (int code = exit.code.value_or(0); code != 0) {
    fail(code, "hvdrun: " + who + " exited with code " + std::to_string(code));
  }
  if (outcome_.all_exited()) outside_stop_.release();
  maybe_finish();
}

void Session::on_agent_closed(Agent& agent, const std::string& reason) {
  const bool expected = agent.done || tearing_down_;
  if (!agent.done) report_host_lost(agent, reason);
  agent.done = true;
  if (elastic_) {
    tell_elastic_gone(agent, reason);
    return maybe_finish();
  }
  if (!expected) {
    fail(exit_code::kAgentLost,
         "hvdrun: lost the agent on " + agent.host + " (" + reason + "); stopping the job on every host");
  }
  maybe_finish();
}

void Session::on_agent_ended(Agent& agent, const std::string& reason) {
  if (elastic_ && !agent.done && (!agent.link || !agent.link->open())) {
    agent.done = true;
    tell_elastic_gone(agent, reason);
  }
  if (agent.done) return maybe_finish();
  if (!launched_) {
    agent.failure = reason;
    agent.done = true;
    return check_start_failures();
  }
  if (!agent.link || !agent.link->open()) {
    agent.done = true;
    report_host_lost(agent, reason);
    if (!tearing_down_) fail(exit_code::kAgentLost, "hvdrun: lost the agent on " + reason);
  }
  maybe_finish();
}

// An elastic job goes on after a worker fails on its own: why it failed (its record, else its last stderr line)
// follows the elastic job's line about the reset.
void Session::log_elastic_cause(const Agent& agent, int id, const messages::Exit& exit) {
  const bool failed = exit.signal || exit.code.value_or(0) != 0;
  if (!failed || exit.stopped || exit.outside || finishing_) return;
  if (auto reason = outcome_.report().reason_of(id); !reason.empty()) {
    printer_.message("hvdrun: the reset's root cause: worker " + std::to_string(id) + " on " + agent.host + ": " +
                     reason);
  }
}

// An agent gone without its "bye" while its workers ran: the report counts its host lost (even during teardown,
// when hvdrun does not stop the job for it again).
void Session::report_host_lost(const Agent& agent, const std::string& reason) {
  if (!launched_ || finishing_) return;
  outcome_.report().host_lost(agent.host, reason);
}

void Session::check_start_failures() {
  // Wait until every host has either connected or failed, so the error names every failed host at once.
  const auto failures = fleet_.start_failures();
  if (failures && !failures->empty()) fail(exit_code::kStartFailed, "hvdrun: the job did not start: " + *failures);
}

void Session::on_start_timeout() {
  fail(exit_code::kStartFailed, "hvdrun: the job did not start: no agent connected within " +
                                    seconds(options_.start_timeout_s) + " from " + fleet_.unconnected() +
                                    "; check the hosts or raise --start-timeout");
}

void Session::fail(int code, const std::string& message) {
  if (!outcome_.exit_code() && outside_stop_.holding()) return outside_stop_.release();  // that stop came first
  if (!outcome_.decide(code)) return;  // the first failure decides the job's fate
  outcome_.report().failed(code, message);
  printer_.message(message);
  if (elastic_) elastic_->stop(message);
  begin_teardown();
}

void Session::begin_teardown() {
  if (tearing_down_) return;
  tearing_down_ = true;
  start_timer_.cancel();
  for (auto& a : fleet_) {
    if (a.live()) {
      a.link->send(messages::Terminate{}.encode());
    } else if (!a.done) {
      a.process.reset();  // never connected: closing its stdin stops it
      a.done = true;
    }
  }
  teardown_timer_.expires_after(std::chrono::milliseconds(static_cast<long>(options_.kill_grace_s * 1000) + 5000));
  teardown_timer_.async_wait([this](std::error_code ec) {
    if (!ec) force_stop();
  });
  maybe_finish();
}

void Session::force_stop() {
  const bool output_flowing = std::chrono::steady_clock::now() - last_output_ < std::chrono::seconds(5);
  if (!killing_ && (printer_.buffered() > 0 || output_flowing)) {
    // The agents are still sending output that a slow reader holds back: not a hang. Wait on.
    teardown_timer_.expires_after(std::chrono::seconds(5));
    teardown_timer_.async_wait([this](std::error_code ec) {
      if (!ec) force_stop();
    });
    return;
  }
  finish(!killing_);
}

void Session::kill_now() {
  killing_ = true;
  fleet_.send_to_live(messages::Kill{}.encode());
  teardown_timer_.expires_after(kKillConfirmBound);
  teardown_timer_.async_wait([this](std::error_code ec) {
    if (!ec) finish(false);
  });
  maybe_finish();
}

void Session::finish(bool drain_output) {
  if (finishing_) {
    if (!drain_output) io_.stop();  // a signal while the output drains: stop now
    return;
  }
  finishing_ = true;
  if (!output_handler_) {
    if (auto summary = outcome_.report().summary(); !summary.empty()) printer_.message(summary);
  }
  // Closing the agents' stdin makes each kill what is left of its workers and exit.
  fleet_.close_all("hvdrun is stopping");
  server_->close();
  heartbeat_timer_.cancel();
  start_timer_.cancel();
  teardown_timer_.cancel();
  if (!drain_output) return io_.stop();
  // Signals stay armed while the output drains to a slow reader: one more stops hvdrun without the rest.
  printer_.when_drained([this] {
    signals_.cancel();
    io_.stop();
  });
}

void Session::maybe_finish() {
  const bool all_ranks_exited = !elastic_ && outcome_.all_exited();  // an elastic job ends when it says so
  if (!all_ranks_exited && !tearing_down_) return;
  if (fleet_.all_done()) finish(!killing_);
}

// --- elastic::SessionControl ---------------------------------------------------------------------------------

void Session::tell_elastic_gone(Agent& agent, const std::string& reason) {
  if (agent.elastic_told || finishing_) return;
  agent.elastic_told = true;
  for (int id : agent.ranks) outcome_.gone(id);
  elastic_->on_host_lost(agent.host, reason);
}

void Session::start_agent(const HostSpec& host) {
  if (tearing_down_) return;
  if (std::none_of(plan_.hosts.begin(), plan_.hosts.end(), [&](const HostSpec& h) { return h.name == host.name; })) {
    plan_.hosts.push_back(host);
  }
  Agent& agent = fleet_.add(host.name);
  try {
    agent.process = launcher::start_agent(io_, agent_start(agent), plan_, options_);
  } catch (const std::exception& e) {
    agent.failure = e.what();
    agent.done = true;
    // Told after this call returns: the elastic job is in the middle of deciding.
    asio::post(io_, [this, index = agent.index] { tell_elastic_gone(fleet_.at(index), fleet_.at(index).failure); });
  }
}

void Session::launch_workers(const std::string& host, const std::vector<WorkerLaunch>& workers) {
  Agent* agent = fleet_.find(host);
  if (!agent || !agent->link || agent->done || tearing_down_) return;
  for (const auto& w : workers) {
    outcome_.add(w.id, "worker " + std::to_string(w.id), host);
    agent->ranks.push_back(w.id);
  }
  launched_ = true;
  send_launch(*agent, workers);
}

void Session::told_to_end(int id) { outcome_.report().told_to_end(id); }

void Session::terminate_host(const std::string& host, const std::string& why) {
  Agent* agent = fleet_.find(host);
  if (!agent || agent->done) return;
  spdlog::info("stopping the agent on {}: {}", host, why);
  if (agent->link && agent->link->open()) return agent->link->send(messages::Terminate{.reason = why}.encode());
  agent->process.reset();  // never connected: closing its stdin stops it
  agent->done = true;
  asio::post(io_, [this, index = agent->index] { tell_elastic_gone(fleet_.at(index), "stopped before it connected"); });
}

void Session::succeed() {
  if (!outcome_.decide(exit_code::kOk)) return;
  elastic_->stop("the job is done");
  begin_teardown();
}

void Session::message(const std::string& text) { printer_.message(text); }

void Session::set_store_key(const std::string& key, const std::string& value) { server_->store().set(key, value); }

void Session::on_output_written(int index, std::size_t bytes) {
  Agent& agent = fleet_.at(index);
  agent.credit_due += bytes;
  // Credit in batches, and all of it once hvdrun holds nothing more, so an agent is never left waiting.
  if (agent.credit_due < protocol::kOutputWindow / 4 && printer_.buffered() > 0) return;
  if (agent.link && agent.link->open()) agent.link->send(messages::Credit{.bytes = agent.credit_due}.encode());
  agent.credit_due = 0;
}

void Session::do_heartbeat() {
  heartbeat_timer_.expires_after(protocol::kHeartbeatInterval);
  heartbeat_timer_.async_wait([this](std::error_code ec) {
    if (ec) return;
    fleet_.heartbeat();
    do_heartbeat();
  });
}

void Session::do_wait_signal() {
  signals_.async_wait([this](std::error_code ec, int signal) {
    if (ec) return;
    if (finishing_) return finish(false);  // only output left to write: stop without it
    if (tearing_down_ && outcome_.exit_code() == exit_code::kSignalBase + signal) {
      printer_.message("hvdrun: " + describe_signal(signal) + " again; killing every worker now");
      kill_now();
      return do_wait_signal();
    }
    outside_stop_.drop();  // hvdrun's own signal is the news
    if (!outcome_.exit_code()) outcome_.report().stopped_by(signal);
    fail(exit_code::kSignalBase + signal,
         "hvdrun: received " + describe_signal(signal) + "; stopping the job on every host");
    do_wait_signal();
  });
}

}  // namespace hvd::launcher
