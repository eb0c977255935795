#include "launcher/session/session.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <filesystem>

#include "common/address.h"
#include "common/crypto.h"
#include "common/messages/message_type.h"
#include "common/protocol.h"
#include "launcher/plan/local_host.h"
#include "launcher/plan/worker_env.h"
#include "launcher/report/exit_codes.h"
#include "launcher/report/ranking.h"
#include "launcher/session/agent_starter.h"
#include "launcher/session/elastic_policy.h"
#include "launcher/session/static_job.h"

namespace hvd::launcher {
namespace {

// How long hvdrun waits, after a second signal, for the agents to confirm their workers are killed.
constexpr std::chrono::seconds kKillConfirmBound{3};

}  // namespace

Session::Session(SessionOptions options, Plan plan, std::string agent_path)
    : options_(std::move(options)),
      plan_(std::move(plan)),
      agent_path_(std::move(agent_path)),
      secret_hex_(make_job_secret_hex()),
      signals_(io_, SIGINT, SIGTERM, SIGHUP),
      heartbeat_timer_(io_),
      teardown_timer_(io_),
      outside_stop_(io_, [this](int code, const std::string& message) { fail(code, message); }),
      printer_(io_, options_.output_dir, options_.prefix_timestamp,
               [this](int agent, std::size_t bytes) { on_output_written(agent, bytes); }),
      outcome_(options_.elastic.has_value()) {
  // Built once the rest is: a policy sets up the fleet, the outcome and the plan through the runner.
  JobRunner& runner = *this;
  if (options_.elastic) {
    policy_ = std::make_unique<ElasticPolicy>(runner);
  } else {
    policy_ = std::make_unique<StaticJob>(runner);
  }
}

Session::~Session() = default;

int Session::run() {
  const std::string bind_address = policy_->listen_address();
  server_ =
      std::make_unique<CoordinationServer>(io_, bind_address, from_hex(secret_hex_),
                                           [this](std::shared_ptr<FramedConnection> link,
                                                  const messages::AgentHello& hello) {
                                             on_agent_link(std::move(link), hello);
                                           });
  spdlog::info("coordination server listening on {}:{}", bind_address, server_->port());
  do_wait_signal();
  policy_->start();
  do_heartbeat();
  io_.run();
  return conclude();
}

int Session::conclude() {
  // Elastic jobs and preflights keep hvdrun's own code; a static job's is the root cause's (ranking.h).
  return outcome_.conclude(options_.report_file, policy_->own_exit_code() || output_handler_);
}

AgentStart Session::agent_start(const Agent& agent) {
  AgentStart start;
  start.host = agent.host;
  start.agent_path = agent_path_;
  start.coordinator_port = server_->port();
  start.secret_hex = secret_hex_;
  start.log_level = options_.verbose ? "info" : "warning";
  start.on_ended = [this, index = agent.index](const std::string& reason) {
    policy_->on_agent_ended(fleet_.at(index), reason);
  };
  return start;
}

void Session::start_agent(Agent& agent, AgentStart start) {
  agent.process = launcher::start_agent(io_, std::move(start), plan_, options_);
  if (agent.process->took_first_launch()) launched_ = true;
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
  policy_->on_agent_linked(*agent);
}

// Workers reach the store at the address their agent reached hvdrun on, and bind their data plane to the
// address hvdrun saw the agent come from: both are known to route between these two hosts.
void Session::send_launch(Agent& agent, const std::vector<WorkerLaunch>& workers) {
  launched_ = true;
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
  outcome_.exited(exit.rank, exit);
  policy_->on_worker_exit(agent, exit);
}

void Session::on_agent_closed(Agent& agent, const std::string& reason) {
  const bool expected = agent.done || tearing_down_;
  if (!agent.done) report_host_lost(agent, reason);
  agent.done = true;
  policy_->on_agent_lost(agent, reason, expected);
  maybe_finish();
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

void Session::fail(int code, const std::string& message) {
  if (!outcome_.exit_code() && outside_stop_.holding()) return outside_stop_.release();  // that stop came first
  if (!outcome_.decide(code)) return;  // the first failure decides the job's fate
  outcome_.report().failed(code, message);
  printer_.message(message);
  policy_->on_fail(message);
  begin_teardown();
}

void Session::begin_teardown() {
  if (tearing_down_) return;
  tearing_down_ = true;
  policy_->on_ending();
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
  policy_->on_ending();
  teardown_timer_.cancel();
  if (!drain_output) return io_.stop();
  // Signals stay armed while the output drains to a slow reader: one more stops hvdrun without the rest.
  printer_.when_drained([this] {
    signals_.cancel();
    io_.stop();
  });
}

void Session::maybe_finish() {
  if (!policy_->ranks_done() && !tearing_down_) return;
  if (fleet_.all_done()) finish(!killing_);
}

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
      printer_.message("hvdrun: " + report::signal_name(signal) + " again; killing every worker now");
      kill_now();
      return do_wait_signal();
    }
    outside_stop_.drop();  // hvdrun's own signal is the news
    if (!outcome_.exit_code()) outcome_.report().stopped_by(signal);
    fail(exit_code::kSignalBase + signal,
         "hvdrun: received " + report::signal_name(signal) + "; stopping the job on every host");
    do_wait_signal();
  });
}

}  // namespace hvd::launcher
