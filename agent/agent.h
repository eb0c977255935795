// hvd-agent's protocol side (see common/protocol.h): connect back to hvdrun's coordination server, prove the
// job secret, spawn the ranks of a "launch", stream their output and exits, answer "terminate", heartbeat.
// hvdrun's forked local agent may get its first launch in memory: it spawns those ranks once connected, and its
// reports wait on the link until the handshake succeeds.
// Contract: the launcher counts as lost when stdin reaches EOF, the link closes or it stays silent for
// kHeartbeatTimeout; the agent then stops every worker's group (SIGTERM, SIGKILL after the grace; at once when
// it was already stopping) and exits 1. A "terminate", SIGTERM/SIGINT/SIGHUP, or all workers ending on their
// own lead to "exit" for each worker, then "bye", and exit 0; "kill" does the same with SIGKILL at once.
// The last frames are waited for as long as the link lives (hvdrun reads them at the pace of its output).
#pragma once

#include <asio.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "agent/exit_reports.h"
#include "agent/output_window.h"
#include "agent/signal_watch.h"
#include "agent/supervisor.h"
#include "agent/worker_cgroup.h"
#include "common/framed_connection.h"
#include "common/messages/agent_commands.h"
#include "common/protocol.h"

namespace hvd::agent {

struct AgentOptions {
  std::string coordinator_host;
  int coordinator_port = 0;
  std::string host;        // this host as hvdrun names it
  std::string secret;      // raw bytes
  std::string secret_hex;  // as read from stdin; handed to workers in HVD_SECRET
  int stdin_fd = 0;        // watched for EOF; -1: not watched
  std::chrono::seconds connect_timeout{30};
  // hvdrun's local agent, forked with the job already planned, starts its workers from this launch message as
  // soon as it has connected, without waiting for the handshake; none: it waits for hvdrun's launch message.
  std::optional<messages::Launch> first_launch;
};

// Exit codes of hvd-agent.
inline constexpr int kExitOk = 0;
inline constexpr int kExitLauncherLost = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitUnreachable = 3;
inline constexpr int kExitAuthFailed = 4;

class Agent {
 public:
  explicit Agent(AgentOptions options);
  ~Agent();
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  // Runs until the job is over on this host; returns the exit code. Fatal messages go to stderr.
  int run();

 private:
  void do_connect();
  void on_connected();
  void on_message(const nlohmann::json& message);
  void on_link_closed(const std::string& reason);
  void on_command(const nlohmann::json& frame);
  void launch(const messages::Launch& launch);
  void do_heartbeat();
  void do_watch_stdin();
  void do_wait_signals();
  void stop(const std::string& why, int exit_code, bool launcher_lost);
  void finish();
  void fail(const std::string& message, int exit_code);
  void send(const nlohmann::json& message);
  void send_exit(const WorkerExit& e);
  void make_cgroup();
  void send_output(int rank, const char* stream, std::vector<std::string> lines);
  void on_credit(std::size_t bytes);
  std::string address() const;

  AgentOptions options_;
  asio::io_context io_;
  asio::ip::tcp::socket socket_;
  asio::steady_timer connect_deadline_, retry_timer_, heartbeat_timer_;
  SignalWatch signals_;
  std::optional<asio::posix::stream_descriptor> stdin_;
  OutputWindow output_window_;
  ExitReports exit_reports_;  // before supervisor_: the workers' record files outlive them
  std::unique_ptr<WorkerCgroup> cgroup_;  // before supervisor_: removed after the workers are reaped
  Supervisor supervisor_;
  std::shared_ptr<FramedConnection> link_;
  std::chrono::steady_clock::time_point last_heard_;
  std::string last_connect_error_;
  bool ready_ = false;
  bool launched_ = false;
  bool stopping_ = false;
  bool stopped_from_outside_ = false;  // SIGTERM, SIGINT or SIGHUP reached the agent itself (scancel, a terminal)
  bool finished_ = false;
  int kill_grace_ms_ = static_cast<int>(protocol::kDefaultKillGraceSeconds * 1000);  // set by the launch message
  int exit_code_ = kExitOk;
};

}  // namespace hvd::agent
