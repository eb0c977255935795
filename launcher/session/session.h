// One job, from start to exit code: the coordination server, one agent per host, the workers' output and the
// job's fate. run() returns hvdrun's exit code. The session runs the agents and the output; what the job does with
// them is its policy's (job_policy.h): a static job (static_job.h) or an elastic one (elastic_policy.h), which act
// through the session as its JobRunner (job_runner.h).
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
// The job's root-cause report (launcher/report/job_report.h) hears every rank's start and end, every lost host
// and how the job was ended; its summary is hvdrun's last word and --report writes its JSON.
//
// Output flow control (common/protocol.h): hvdrun credits each agent's output once written out, so it holds at
// most protocol::kOutputWindow bytes of output per agent, and its event loop never blocks on a slow reader.
#pragma once

#include <asio.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/framed_connection.h"
#include "common/messages/agent_reports.h"
#include "common/messages/hello.h"
#include "launcher/plan/plan.h"
#include "launcher/session/agent_fleet.h"
#include "launcher/session/coordination_server.h"
#include "launcher/session/job_outcome.h"
#include "launcher/session/job_policy.h"
#include "launcher/session/job_runner.h"
#include "launcher/session/output_printer.h"
#include "launcher/session/outside_stop_hold.h"
#include "launcher/session/session_options.h"

namespace hvd::launcher {

class Session : private JobRunner {
 public:
  // An elastic job (options.elastic) ignores `plan`: it plans as it goes.
  Session(SessionOptions options, Plan plan, std::string agent_path);
  ~Session() override;
  int run();

  // Instead of printing workers' output, hand each line to `handler` (hvdrun --check-hosts reads its probes).
  using OutputHandler = std::function<void(int rank, bool is_stderr, const std::string& line)>;
  void set_output_handler(OutputHandler handler) { output_handler_ = std::move(handler); }
  // After run(): the hosts whose agent connected and authenticated.
  std::vector<std::string> connected_hosts() const;

 private:
  using Agent = FleetAgent;

  // JobRunner
  asio::io_context& io() override { return io_; }
  const SessionOptions& options() const override { return options_; }
  Plan& plan() override { return plan_; }
  AgentFleet& fleet() override { return fleet_; }
  JobOutcome& outcome() override { return outcome_; }
  OutsideStopHold& outside_stop() override { return outside_stop_; }
  detail::StoreServer& store() override { return server_->store(); }
  AgentStart agent_start(const Agent& agent) override;
  void start_agent(Agent& agent, AgentStart start) override;
  messages::Launch launch_message(const std::string& host, const std::vector<WorkerLaunch>& workers,
                                  const std::string& store_host, const std::string& data_addr) const override;
  void send_launch(Agent& agent, const std::vector<WorkerLaunch>& workers) override;
  bool launched() const override { return launched_; }
  bool tearing_down() const override { return tearing_down_; }
  bool finishing() const override { return finishing_; }
  void fail(int code, const std::string& message) override;
  void check_start_failures() override;
  void report_host_lost(const Agent& agent, const std::string& reason) override;
  void message(const std::string& text) override { printer_.message(text); }
  void begin_teardown() override;
  void maybe_finish() override;

  void on_agent_link(std::shared_ptr<FramedConnection> link, const messages::AgentHello& hello);
  void on_agent_message(Agent& agent, const nlohmann::json& frame);
  void on_agent_report(Agent& agent, const nlohmann::json& frame);
  void on_output(const Agent& agent, const messages::Output& output);
  void on_spawn_failed(const Agent& agent, const messages::SpawnFailed& failure);
  void on_worker_exit(const Agent& agent, const messages::Exit& exit);
  void on_agent_closed(Agent& agent, const std::string& reason);
  void force_stop();
  void kill_now();
  void finish(bool drain_output);
  void on_output_written(int agent, std::size_t bytes);
  void do_heartbeat();
  void do_wait_signal();
  int conclude();  // after the event loop: the report written, hvdrun's exit code

  SessionOptions options_;
  Plan plan_;
  std::string agent_path_;
  std::string secret_hex_;
  asio::io_context io_;
  asio::signal_set signals_;
  asio::steady_timer heartbeat_timer_, teardown_timer_;
  OutsideStopHold outside_stop_;  // a rank stopped from outside: the teardown waits for the stop to reach the rest
  std::unique_ptr<CoordinationServer> server_;
  OutputPrinter printer_;
  AgentFleet fleet_;
  JobOutcome outcome_;
  OutputHandler output_handler_;
  bool launched_ = false;
  bool tearing_down_ = false;
  std::chrono::steady_clock::time_point last_output_;  // when an agent last sent output
  bool killing_ = false;                               // the second signal: kill now, do not wait for output
  bool finishing_ = false;
  std::unique_ptr<JobPolicy> policy_;  // last: built over the rest, and gone before them
};

}  // namespace hvd::launcher
