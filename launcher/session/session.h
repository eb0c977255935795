// One job, from start to exit code: the coordination server, one agent per host, the workers' output and the
// job's fate. run() returns hvdrun's exit code.
//
// Teardown, in one place (begin_teardown): the first failure (a worker's non-zero exit or fatal signal, a
// worker that cannot be executed, a lost agent, SIGINT/SIGTERM/SIGHUP; a worker stopped from outside the job
// after OutsideStopHold::kWindow, see outside_stop_hold.h) sets the exit code and sends
// "terminate" to every agent, which SIGTERMs its workers' process groups and SIGKILLs them after the grace
// period. hvdrun waits for every agent's "bye" up to the grace period plus a margin (longer while workers'
// output is still on its way to a slow reader), then closes the agents' stdin (they kill whatever is left and
// exit), writes out the output it still holds and returns. A second signal sends "kill" instead: every agent
// SIGKILLs its workers at once and confirms with "bye"; hvdrun waits kKillConfirmBound for that, no more, and
// does not wait for its output to be read.
//
// Elastic jobs (launcher/elastic/elastic_job.h): the ElasticJob decides which hosts get agents and workers and
// when a failure ends the job; the session runs them (agents come and go; worker ids stand for ranks).
//
// The job's root-cause report (launcher/report/job_report.h) hears every rank's start and end, every lost host
// and how the job was ended; its summary is hvdrun's last word and --report writes its JSON.
//
// Output flow control (common/protocol.h): hvdrun credits each agent's output once written out, so it holds at
// most protocol::kOutputWindow bytes of output per agent, and its event loop never blocks on a slow reader.
#pragma once

#include <asio.hpp>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/framed_connection.h"
#include "common/messages/agent_commands.h"
#include "common/messages/agent_reports.h"
#include "common/messages/hello.h"
#include "launcher/start/agent_process.h"
#include "launcher/session/agent_fleet.h"
#include "launcher/session/coordination_server.h"
#include "launcher/session/job_outcome.h"
#include "launcher/elastic/elastic_job.h"
#include "launcher/session/output_printer.h"
#include "launcher/session/outside_stop_hold.h"
#include "launcher/session/session_options.h"
#include "launcher/plan/plan.h"
#include "launcher/plan/worker_env.h"

namespace hvd::launcher {

class Session : public elastic::SessionControl {
 public:
  Session(SessionOptions options, Plan plan, std::string agent_path);
  int run();

  // Instead of printing workers' output, hand each line to `handler` (hvdrun --check-hosts reads its probes).
  using OutputHandler = std::function<void(int rank, bool is_stderr, const std::string& line)>;
  void set_output_handler(OutputHandler handler) { output_handler_ = std::move(handler); }
  // After run(): the hosts whose agent connected and authenticated.
  std::vector<std::string> connected_hosts() const;

 private:
  using Agent = FleetAgent;

  void start_agents();
  AgentStart agent_start(const Agent& agent);
  void send_launch(Agent& agent, const std::vector<WorkerLaunch>& workers);
  messages::Launch launch_message(const std::string& host, const std::vector<WorkerLaunch>& workers,
                                  const std::string& store_host, const std::string& data_addr) const;
  std::vector<WorkerLaunch> planned_ranks(const Agent& agent) const;  // its ranks' placements
  void tell_elastic_gone(Agent& agent, const std::string& reason);
  // elastic::SessionControl
  void start_agent(const HostSpec& host) override;
  void launch_workers(const std::string& host, const std::vector<WorkerLaunch>& workers) override;
  void terminate_host(const std::string& host, const std::string& why) override;
  void succeed() override;
  void message(const std::string& text) override;
  void set_store_key(const std::string& key, const std::string& value) override;
  void told_to_end(int id) override;
  void on_agent_link(std::shared_ptr<FramedConnection> link, const messages::AgentHello& hello);
  void launch_all();
  void on_agent_message(Agent& agent, const nlohmann::json& frame);
  void on_agent_report(Agent& agent, const nlohmann::json& frame);
  void on_output(const Agent& agent, const messages::Output& output);
  void on_spawn_failed(const Agent& agent, const messages::SpawnFailed& failure);
  void on_agent_closed(Agent& agent, const std::string& reason);
  void on_agent_ended(Agent& agent, const std::string& reason);
  void on_worker_exit(const Agent& agent, const messages::Exit& exit);
  void on_start_timeout();
  void check_start_failures();
  void fail(int code, const std::string& message) override;
  void begin_teardown();
  void force_stop();
  void kill_now();
  void finish(bool drain_output);
  void on_output_written(int agent, std::size_t bytes);
  void maybe_finish();
  void do_heartbeat();
  void do_wait_signal();
  void report_host_lost(const Agent& agent, const std::string& reason);
  void log_elastic_cause(const Agent& agent, int id, const messages::Exit& exit);
  int conclude();  // after the event loop: the report written, hvdrun's exit code

  SessionOptions options_;
  Plan plan_;
  std::string agent_path_;
  std::string secret_hex_;
  asio::io_context io_;
  asio::signal_set signals_;
  asio::steady_timer start_timer_, heartbeat_timer_, teardown_timer_;
  OutsideStopHold outside_stop_;  // a rank stopped from outside: the teardown waits for the stop to reach the rest
  std::unique_ptr<CoordinationServer> server_;
  OutputPrinter printer_;
  AgentFleet fleet_;
  JobOutcome outcome_;
  std::unique_ptr<elastic::ElasticJob> elastic_;
  OutputHandler output_handler_;
  bool launched_ = false;
  bool tearing_down_ = false;
  std::chrono::steady_clock::time_point last_output_;  // when an agent last sent output
  bool killing_ = false;                               // the second signal: kill now, do not wait for output
  bool finishing_ = false;
};

}  // namespace hvd::launcher
