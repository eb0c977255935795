#include "agent/agent.h"

#include <fcntl.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <string_view>
#include <utility>

#include "agent/machine_identity.h"
#include "common/address.h"
#include "common/messages/agent_reports.h"
#include "common/messages/hello.h"
#include "common/messages/message_type.h"
#include "common/protocol.h"

namespace hvd::agent {
namespace {

constexpr std::chrono::milliseconds kRetryDelay{250};

std::string lowercase_first(std::string s) {
  if (!s.empty() && s[0] >= 'A' && s[0] <= 'Z') s[0] = static_cast<char>(s[0] - 'A' + 'a');
  return s;
}

}  // namespace

Agent::Agent(AgentOptions options)
    : options_(std::move(options)),
      socket_(io_),
      connect_deadline_(io_),
      retry_timer_(io_),
      heartbeat_timer_(io_),
      signals_(io_, {SIGTERM, SIGINT, SIGHUP}),
      supervisor_(io_,
                  Supervisor::Callbacks{
                      [this](int rank, const char* stream, std::vector<std::string> lines) {
                        send_output(rank, stream, std::move(lines));
                      },
                      [this](const WorkerExit& e) { send_exit(e); },
                      [this] {
                        if (launched_ || stopping_) finish();
                      }}) {}

Agent::~Agent() = default;

std::string Agent::address() const {
  return Address{options_.coordinator_host, options_.coordinator_port}.to_string();
}

int Agent::run() {
  // When the launcher's SSH session dies, stderr is a pipe nobody reads: a log line there must not kill the
  // agent before it has killed its workers.
  ::signal(SIGPIPE, SIG_IGN);
  if (options_.stdin_fd >= 0) {
    try {
      stdin_.emplace(io_, ::fcntl(options_.stdin_fd, F_DUPFD_CLOEXEC, 3));
      do_watch_stdin();
    } catch (const std::system_error& e) {
      // A file or /dev/null cannot be polled; the link and the heartbeats still guard the job.
      spdlog::warn("cannot watch stdin for the launcher's end ({}); relying on the link alone", e.what());
      stdin_.reset();
    }
  }
  do_wait_signals();
  connect_deadline_.expires_after(options_.connect_timeout);
  connect_deadline_.async_wait([this](std::error_code ec) {
    if (ec || ready_) return;
    if (link_) {
      fail("hvd-agent on " + options_.host + ": the coordinator at " + address() + " did not complete the " +
               "handshake within " + std::to_string(options_.connect_timeout.count()) + " s; is it hvdrun's port?",
           kExitAuthFailed);
    } else {
      fail("hvd-agent on " + options_.host + ": cannot reach the coordinator at " + address() + ": " +
               lowercase_first(last_connect_error_.empty() ? "timed out" : last_connect_error_),
           kExitUnreachable);
    }
  });
  do_connect();
  io_.run();
  return exit_code_;
}

void Agent::do_connect() {
  if (stopping_) return;
  asio::ip::tcp::resolver resolver(io_);
  std::error_code ec;
  auto endpoints = resolver.resolve(options_.coordinator_host, std::to_string(options_.coordinator_port), ec);
  auto retry = [this] {
    retry_timer_.expires_after(kRetryDelay);
    retry_timer_.async_wait([this](std::error_code ec2) {
      if (!ec2 && !link_) do_connect();
    });
  };
  if (ec) {
    last_connect_error_ = ec.message();
    return retry();
  }
  asio::async_connect(socket_, endpoints, [this, retry](std::error_code ec2, const asio::ip::tcp::endpoint&) {
    if (stopping_ || finished_) return;
    if (ec2) {
      last_connect_error_ = ec2.message();
      spdlog::debug("connect to {} failed: {}; retrying", address(), ec2.message());
      return retry();
    }
    on_connected();
  });
}

void Agent::on_connected() {
  link_ = std::make_shared<FramedConnection>(std::move(socket_), options_.secret, FramedConnection::Role::kClient);
  link_->start(
      [this] {
        ready_ = true;
        connect_deadline_.cancel();
        last_heard_ = std::chrono::steady_clock::now();
        spdlog::info("connected to the coordinator at {}", address());
        do_heartbeat();
      },
      [this](const nlohmann::json& m) { on_message(m); },
      [this](const std::string& reason) {
        if (!ready_ && !finished_) {
          return fail("hvd-agent on " + options_.host + ": authentication with the coordinator at " + address() +
                          " failed (" + reason + "); the agent must get this job's secret on stdin",
                      kExitAuthFailed);
        }
        on_link_closed(reason);
      });
  // Queued now, sealed and sent first once the handshake succeeds. (Sending from the ready handler would
  // start a second write of the same frame inside FramedConnection::on_authenticated.)
  link_->send(messages::AgentHello{.host = options_.host, .pid = ::getpid(), .machine = machine_identity()}.encode());
  // Its reports queue on the link behind the hello and go out once the handshake succeeds.
  if (options_.first_launch) launch(*std::exchange(options_.first_launch, std::nullopt));
}

void Agent::on_message(const nlohmann::json& frame) {
  last_heard_ = std::chrono::steady_clock::now();
  try {
    on_command(frame);
  } catch (const messages::MessageError& e) {
    spdlog::error("{}, from the launcher", e.what());
    stop("malformed " + e.message_name() + " message", kExitLauncherLost, false);
  }
}

void Agent::on_command(const nlohmann::json& frame) {
  using messages::MessageType;
  const auto type = messages::message_type_of(frame);
  if (!type) {
    return spdlog::warn("ignoring a message of unknown type {} from the launcher", messages::claimed_type(frame));
  }
  switch (*type) {
    case MessageType::kHeartbeat:
      return;
    case MessageType::kCredit:
      return on_credit(messages::Credit::decode(frame).bytes);
    case MessageType::kLaunch:
      return launch(messages::Launch::decode(frame));
    case MessageType::kTerminate:
      return stop("the launcher asked to stop: " + messages::Terminate::decode(frame).reason.value_or("no reason given"),
                  kExitOk, false);
    case MessageType::kKill:
      stop("the launcher asked to kill every worker now", kExitOk, false);
      if (cgroup_) cgroup_->kill();
      return supervisor_.kill_now();
    default:
      spdlog::warn("ignoring a '{}' message from the launcher: agents do not take it", messages::name_of(*type));
  }
}

void Agent::launch(const messages::Launch& launch) {
  if (stopping_) {
    spdlog::warn("ignoring a launch message after a stop");
    return;
  }
  // An elastic job launches more workers on a host as slots free up; the first launch sets the job up.
  const bool first = !launched_;
  launched_ = true;
  kill_grace_ms_ = std::max(0, static_cast<int>(launch.kill_grace_s * 1000));
  output_window_.set_limit(launch.output_window);
  SpawnOptions base;
  base.command = launch.command;
  base.cwd = launch.cwd;
  base.host = options_.host;
  if (first) make_cgroup();
  if (cgroup_) {
    base.cgroup_dir = cgroup_->dir_fd();
    base.cgroup_procs = cgroup_->procs_file();
  }
  for (const auto& r : launch.ranks) {
    SpawnOptions spawn = base;
    // The launch frame carries the rest of the contract; the secret stays off it (agent.h).
    spawn.env[protocol::kEnvSecret] = options_.secret_hex;
    for (const auto& [name, value] : r.env) spawn.env[name] = value;
    exit_reports_.add_env(r.rank, spawn.env);
    try {
      pid_t pid = supervisor_.spawn(r.rank, spawn);
      spdlog::debug("rank {} started as pid {}", r.rank, pid);
      send(messages::Started{.rank = r.rank, .pid = pid}.encode());
    } catch (const SpawnError& e) {
      spdlog::error("rank {}: {}", r.rank, e.what());
      send(messages::SpawnFailed{.rank = r.rank, .code = e.exit_code(), .error = e.what()}.encode());
    }
  }
  if (supervisor_.idle()) finish();  // nothing started: every rank failed to spawn, or none was given
}

void Agent::make_cgroup() {
  std::string why_not;
  cgroup_ = WorkerCgroup::create(options_.host, why_not);
  if (!cgroup_) {
    spdlog::warn(
        "hvd-agent on {}: the workers get no cgroup of their own ({}); a process that leaves its "
        "worker's process group (setsid) may outlive the job",
        options_.host, why_not);
  }
}

void Agent::do_heartbeat() {
  heartbeat_timer_.expires_after(protocol::kHeartbeatInterval);
  heartbeat_timer_.async_wait([this](std::error_code ec) {
    // Runs on after "bye" too: the last frames are waited for while the launcher is alive, and no longer.
    if (ec || !link_ || !link_->open()) return;
    if (std::chrono::steady_clock::now() - last_heard_ > protocol::kHeartbeatTimeout) {
      return link_->close("nothing heard from the launcher for " + std::to_string(protocol::kHeartbeatTimeout.count()) +
                          " s");
    }
    if (ready_ && !finished_) link_->send_urgent(messages::Heartbeat{}.encode());
    do_heartbeat();
  });
}

void Agent::do_watch_stdin() {
  stdin_->async_wait(asio::posix::descriptor_base::wait_read, [this](std::error_code ec) {
    if (ec) return;
    char buf[256];
    ssize_t n = ::read(stdin_->native_handle(), buf, sizeof buf);
    if (n > 0 || (n < 0 && (errno == EINTR || errno == EAGAIN))) return do_watch_stdin();
    if (finished_) return io_.stop();  // "bye" was sent: hvdrun is done with this agent
    stop("the launcher is gone (the agent's stdin closed)", kExitLauncherLost, true);
  });
}

void Agent::do_wait_signals() {
  signals_.async_wait([this](int sig) {
    if (!stopping_) stopped_from_outside_ = true;
    stop(std::string("received SIG") + ::sigabbrev_np(sig), kExitOk, false);
    do_wait_signals();
  });
}

void Agent::on_link_closed(const std::string& reason) {
  if (finished_) return io_.stop();
  stop("lost the link to the launcher at " + address() + ": " + reason, kExitLauncherLost, true);
}

void Agent::stop(const std::string& why, int exit_code, bool launcher_lost) {
  if (stopping_) {
    // Lost the launcher while already stopping: nobody waits for a graceful end any more.
    if (launcher_lost && !finished_) {
      output_window_.set_limit(0);
      supervisor_.resume_output();
      spdlog::error("hvd-agent on {}: {}; killing the workers now", options_.host, why);
      exit_code_ = kExitLauncherLost;
      supervisor_.kill_now();
    }
    return;
  }
  stopping_ = true;
  exit_code_ = exit_code;
  if (launcher_lost) {
    spdlog::error("hvd-agent on {}: {}; killing {} worker(s)", options_.host, why, supervisor_.size());
  } else {
    spdlog::info("stopping: {}", why);
  }
  retry_timer_.cancel();
  if (launcher_lost) {
    // Output has nowhere to go now: read the pipes on (and drop it) so that the workers can end.
    output_window_.set_limit(0);
    supervisor_.resume_output();
  }
  supervisor_.terminate(std::chrono::milliseconds(kill_grace_ms_));
}

void Agent::finish() {
  if (finished_) return;
  finished_ = true;
  connect_deadline_.cancel();
  // What the workers left behind (a setsid'd child, say) dies with the job.
  if (cgroup_) cgroup_->kill();
  if (!link_ || !link_->open()) return io_.stop();
  send(messages::Bye{}.encode());
  link_->shutdown_after_flush();  // hvdrun closes the link once it has read everything up to "bye"
}

void Agent::fail(const std::string& message, int exit_code) {
  std::cerr << message << std::endl;
  exit_code_ = exit_code;
  finished_ = true;
  io_.stop();
}

void Agent::send_output(int rank, const char* stream, std::vector<std::string> lines) {
  if (std::string_view(stream) == "stderr") exit_reports_.on_stderr(rank, lines);
  std::size_t bytes = 0;
  for (const auto& line : lines) bytes += line.size();
  if (output_window_.spend(protocol::output_cost(bytes, lines.size()))) supervisor_.pause_output();
  const auto output_stream = std::string_view(stream) == "stderr" ? messages::OutputStream::kStderr
                                                                  : messages::OutputStream::kStdout;
  send(messages::Output{.rank = rank, .stream = output_stream, .lines = std::move(lines)}.encode());
}

void Agent::send_exit(const WorkerExit& e) {
  messages::Exit exit;
  exit.rank = e.rank;
  exit.pid = e.pid;
  exit.code = e.code;
  exit.signal = e.signal;
  // Stopped by this agent because a stop signal reached it: stopped from outside too.
  const bool outside = e.outside || (e.stopped && stopped_from_outside_);
  exit_reports_.fill(e.rank, e.ended_ms, e.stopped, outside, exit);
  send(exit.encode());
}

void Agent::on_credit(std::size_t bytes) {
  if (output_window_.refund(bytes)) supervisor_.resume_output();
}

void Agent::send(const nlohmann::json& message) {
  // Before the handshake ends the link queues what is sent (a first launch's reports), then seals it in order.
  if (link_ && link_->open()) link_->send(message);
}

}  // namespace hvd::agent
