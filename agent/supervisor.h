// Owns the workers of one agent: spawns them, pumps their output, reaps them through SIGCHLD inside the event
// loop, and tears them down (SIGTERM to each process group, SIGKILL to the groups still alive after the grace).
// Contract: a worker's exit is reported only after its stdout and stderr reached EOF (or kDrainBound after
// the exit with the pipe empty and still open: a grandchild holds it), so no output of a worker follows its
// exit; output held back by flow control (pause_output) is waited for, never dropped. kill_now() is the
// exception: SIGKILL at once and report without the rest of the output. on_idle fires once every spawned
// worker's exit has been reported. All calls and callbacks happen on the io_context's thread.
#pragma once

#include <sys/types.h>

#include <asio.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/output_pump.h"
#include "agent/process.h"
#include "agent/signal_watch.h"

namespace hvd::agent {

struct WorkerExit {
  int rank = -1;
  pid_t pid = -1;
  std::optional<int> code;    // set when the worker exited
  std::optional<int> signal;  // set when a signal killed it
  std::int64_t ended_ms = 0;  // when it was reaped: wall clock, ms since the epoch
  bool stopped = false;       // the supervisor had signalled it (terminate, kill_now) before it ended
  // Ended by SIGTERM, SIGINT or SIGHUP the supervisor did not send: stopped from outside the job (scancel, kill,
  // a terminal's signal), no failure of its own.
  bool outside = false;
};

class Supervisor {
 public:
  static constexpr std::chrono::seconds kDrainBound{2};

  struct Callbacks {
    std::function<void(int rank, const char* stream, std::vector<std::string> lines)> on_output;
    std::function<void(const WorkerExit&)> on_exit;
    std::function<void()> on_idle;
  };

  Supervisor(asio::io_context& io, Callbacks callbacks);
  ~Supervisor();  // SIGKILLs whatever is left, reaps it, closes the pipes
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // Throws SpawnError (with 127/126) when the worker cannot start.
  pid_t spawn(int rank, const SpawnOptions& options);
  // SIGTERM every live group now, SIGKILL after grace. Fires on_idle (posted) at once when nothing runs.
  void terminate(std::chrono::milliseconds grace);
  // SIGKILL every live group now; exits are reported as soon as reaped, without waiting for their output.
  void kill_now();
  // Flow control: stop reading every worker's pipes (they fill; the workers block on write), or read on.
  void pause_output();
  void resume_output();
  bool idle() const;
  std::size_t size() const { return workers_.size(); }

 private:
  struct Worker;

  void do_wait_sigchld();
  void reap();
  void on_stream_closed(pid_t pid);
  void maybe_report(Worker& worker);
  void arm_drain(Worker& worker);
  void report(Worker& worker);
  void signal_live_groups(int sig);

  asio::io_context& io_;
  Callbacks callbacks_;
  SignalWatch sigchld_;  // not asio::signal_set: see signal_watch.h
  asio::steady_timer grace_timer_;
  std::map<pid_t, std::unique_ptr<Worker>> workers_;
  bool idle_fired_ = false;
  bool output_paused_ = false;
  bool killing_ = false;
};

}  // namespace hvd::agent
