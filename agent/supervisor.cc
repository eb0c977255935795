#include "agent/supervisor.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>

#include "common/failure_record.h"

namespace hvd::agent {
namespace {

// The signals that stop a job (hvdrun's own stop signals, scancel's, a terminal's), as opposed to a crash's.
bool is_stop_signal(int sig) { return sig == SIGTERM || sig == SIGINT || sig == SIGHUP; }

}  // namespace

struct Supervisor::Worker {
  Worker(asio::io_context& io, int r, Process p)
      : rank(r),
        process(std::move(p)),
        out(std::make_shared<OutputPump>(io, process.take_stdout())),
        err(std::make_shared<OutputPump>(io, process.take_stderr())),
        drain(io) {}

  int rank;
  Process process;
  std::shared_ptr<OutputPump> out, err;
  int open_streams = 2;
  std::optional<int> status;  // raw wait status once reaped
  std::int64_t ended_ms = 0;  // when reaped
  bool signalled = false;     // terminate() or kill_now() reached it before it ended
  bool reported = false;
  asio::steady_timer drain;
};

Supervisor::Supervisor(asio::io_context& io, Callbacks callbacks)
    : io_(io), callbacks_(std::move(callbacks)), sigchld_(io, {SIGCHLD}), grace_timer_(io) {
  do_wait_sigchld();
}

Supervisor::~Supervisor() {
  for (auto& [pid, worker] : workers_) {
    worker->out->stop();
    worker->err->stop();
    // A reaped leader may have left grandchildren holding its pipes; the group id still names them.
    if (!worker->process.reaped() || worker->open_streams > 0) worker->process.signal_group(SIGKILL);
  }
  workers_.clear();  // Process destructors reap the leaders not yet reaped
}

pid_t Supervisor::spawn(int rank, const SpawnOptions& options) {
  auto process = Process::spawn(options);
  pid_t pid = process.pid();
  auto worker = std::make_unique<Worker>(io_, rank, std::move(process));
  Worker& w = *worker;
  workers_.emplace(pid, std::move(worker));
  idle_fired_ = false;
  auto lines_to = [this, rank](const char* stream) {
    return
        [this, rank, stream](std::vector<std::string> lines) { callbacks_.on_output(rank, stream, std::move(lines)); };
  };
  if (output_paused_) {
    w.out->pause();
    w.err->pause();
  }
  w.out->start(lines_to("stdout"), [this, pid] { on_stream_closed(pid); });
  w.err->start(lines_to("stderr"), [this, pid] { on_stream_closed(pid); });
  // The child may have exited before it was in the map; its SIGCHLD is then already consumed.
  reap();
  return pid;
}

void Supervisor::do_wait_sigchld() {
  sigchld_.async_wait([this](int) {
    reap();
    do_wait_sigchld();
  });
}

void Supervisor::reap() {
  for (;;) {
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    auto it = workers_.find(pid);
    if (it == workers_.end()) continue;
    Worker& w = *it->second;
    w.process.mark_reaped();
    w.status = status;
    w.ended_ms = wall_clock_ms();
    spdlog::debug("rank {} (pid {}) ended with {}", w.rank, pid, describe_status(status));
    if (killing_) {
      w.out->stop();
      w.err->stop();
      w.open_streams = 0;
    }
    if (w.open_streams > 0) arm_drain(w);
    maybe_report(w);
  }
}

void Supervisor::arm_drain(Worker& worker) {
  worker.drain.expires_after(kDrainBound);
  worker.drain.async_wait([this, pid = worker.process.pid()](std::error_code ec) {
    if (ec) return;
    auto found = workers_.find(pid);
    if (found == workers_.end() || found->second->reported) return;
    Worker& late = *found->second;
    // Output held back by flow control, or still in the pipe, is the worker's own: wait for it.
    if (output_paused_ || late.out->has_unread_input() || late.err->has_unread_input()) return arm_drain(late);
    spdlog::warn(
        "rank {} (pid {}) exited but its output is still held open (a child of it?); reporting "
        "the exit without waiting for the rest",
        late.rank, pid);
    late.out->stop();
    late.err->stop();
    report(late);
  });
}

void Supervisor::on_stream_closed(pid_t pid) {
  auto it = workers_.find(pid);
  if (it == workers_.end()) return;
  --it->second->open_streams;
  maybe_report(*it->second);
}

void Supervisor::maybe_report(Worker& worker) {
  if (worker.status && worker.open_streams == 0 && !worker.reported) report(worker);
}

void Supervisor::report(Worker& w) {
  w.reported = true;
  w.drain.cancel();
  WorkerExit exit;
  exit.rank = w.rank;
  exit.pid = w.process.pid();
  exit.ended_ms = w.ended_ms;
  exit.stopped = w.signalled;
  if (WIFSIGNALED(*w.status)) {
    exit.signal = WTERMSIG(*w.status);
    exit.outside = !w.signalled && is_stop_signal(*exit.signal);
  } else {
    exit.code = WEXITSTATUS(*w.status);
  }
  callbacks_.on_exit(exit);
  if (idle() && !idle_fired_) {
    idle_fired_ = true;
    grace_timer_.cancel();
    callbacks_.on_idle();
  }
}

bool Supervisor::idle() const {
  for (const auto& [pid, worker] : workers_) {
    if (!worker->reported) return false;
  }
  return true;
}

void Supervisor::signal_live_groups(int sig) {
  for (auto& [pid, worker] : workers_) {
    if (!worker->process.reaped()) worker->signalled = true;
    if (!worker->process.reaped() || worker->open_streams > 0) worker->process.signal_group(sig);
  }
}

void Supervisor::pause_output() {
  output_paused_ = true;
  for (auto& [pid, worker] : workers_) {
    worker->out->pause();
    worker->err->pause();
  }
}

void Supervisor::resume_output() {
  output_paused_ = false;
  for (auto& [pid, worker] : workers_) {
    worker->out->resume();
    worker->err->resume();
  }
}

void Supervisor::kill_now() {
  killing_ = true;
  grace_timer_.cancel();
  signal_live_groups(SIGKILL);
  // The leaders already reaped wait for no more output either.
  for (auto& [pid, worker] : workers_) {
    if (!worker->status || worker->reported) continue;
    worker->out->stop();
    worker->err->stop();
    worker->open_streams = 0;
    asio::post(io_, [this, pid = pid] {
      if (auto it = workers_.find(pid); it != workers_.end()) maybe_report(*it->second);
    });
  }
  if (idle() && !idle_fired_) {
    idle_fired_ = true;
    asio::post(io_, [this] { callbacks_.on_idle(); });
  }
}

void Supervisor::terminate(std::chrono::milliseconds grace) {
  if (idle()) {
    if (!idle_fired_) {
      idle_fired_ = true;
      asio::post(io_, [this] { callbacks_.on_idle(); });
    }
    return;
  }
  signal_live_groups(SIGTERM);
  grace_timer_.expires_after(grace);
  grace_timer_.async_wait([this, grace](std::error_code ec) {
    if (ec) return;
    spdlog::warn("workers still running {} ms after SIGTERM; sending SIGKILL", grace.count());
    signal_live_groups(SIGKILL);
  });
}

}  // namespace hvd::agent
