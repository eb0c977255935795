// A stand-in for hvdrun's elastic mode on one host, for the worker-side tests (tests/integration/
// elastic_runtime_*.sh): it serves the store link of common/protocol.h (set/get/add and the rendezvous op), spawns
// the workers with the elastic environment (HOROVOD_ELASTIC=1, HVD_WORKER_ID=localhost/<i>, no HOROVOD_RANK) and
// plays the launcher's part in re-forming: a worker that dies is dropped and "reset" announced; SIGUSR1 adds a
// worker and announces "hosts_updated"; a generation forms once every live worker waits in rendezvous.
//   elastic_stub_driver --np N [--host-per-worker] -- command [args...]
// --host-per-worker names each worker's host h<i> in the rendezvous answer, so the ranks talk over TCP, not shared
// memory. A worker stopped by SIGSTOP counts as lost, like a host that vanished without closing its sockets: the
// others must not wait for it; it is SIGKILLed once the rest have exited.
// Prints "stub_driver: t=<ms> ..." lines (worker pids, generations, exits, events) and each line a worker prints on
// stdout as "stub_driver: t=<ms> localhost/<i>: <line>", t a monotonic clock in milliseconds, so a test can time a
// reset. Exits 0 once every worker has exited, whatever their codes (the test reads the lines).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <asio.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/crypto.h"
#include "common/framed_connection.h"
#include "common/messages/store_answers.h"
#include "common/messages/store_requests.h"
#include "tests/unit/runtime/store_test_server.h"

namespace {

long long now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class StubDriver {
 public:
  StubDriver(std::vector<std::string> command, bool host_per_worker)
      : command_(std::move(command)),
        host_per_worker_(host_per_worker),
        secret_(hvd::random_bytes(32)),
        store_(io_, secret_, [this](const auto& conn, const auto& m) { on_rendezvous(conn, m); }),
        signals_(io_, SIGCHLD, SIGUSR1) {}

  void run(int np) {
    say("driver pid " + std::to_string(::getpid()));
    do_signal();
    for (int i = 0; i < np; ++i) spawn();
    io_.run();
  }

 private:
  struct Worker {
    std::string id;
    pid_t pid = -1;
    bool alive = true;
    std::weak_ptr<hvd::FramedConnection> waiting;  // its rendezvous request, while one waits
    bool in_generation = false;
    bool stopped = false;  // SIGSTOPped: lost to the job, killed at the end
  };

  // One thread per worker copies its stdout lines (blocking reads need no event loop); the end of the output
  // is handed to the event loop, which owns the rest of the state.
  void read_output(int fd, std::string id) {
    readers_.emplace_back([this, fd, id] {
      FILE* in = ::fdopen(fd, "r");
      char* line = nullptr;
      std::size_t capacity = 0;
      for (ssize_t n; (n = ::getline(&line, &capacity, in)) > 0;) {
        if (line[n - 1] == '\n') line[n - 1] = '\0';
        say(id + ": " + line);
      }
      std::free(line);
      std::fclose(in);
      asio::post(io_, [this] {
        --open_outputs_;
        finish_if_done();
      });
    });
  }

  void say(const std::string& line) {
    std::printf("stub_driver: t=%lld %s\n", now_ms(), line.c_str());
    std::fflush(stdout);
  }

  void spawn() {
    Worker w;
    w.id = "localhost/" + std::to_string(workers_.size());
    const std::string addr = "127.0.0.1:" + std::to_string(store_.port());
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    pid_t pid = ::fork();
    if (pid == 0) {
      ::dup2(out[1], STDOUT_FILENO);
      for (const char* v : {"HOROVOD_RANK", "HOROVOD_SIZE", "HOROVOD_LOCAL_RANK", "HOROVOD_LOCAL_SIZE",
                            "HOROVOD_CROSS_RANK", "HOROVOD_CROSS_SIZE"})
        ::unsetenv(v);
      ::setenv("HOROVOD_ELASTIC", "1", 1);
      ::setenv("HVD_WORKER_ID", w.id.c_str(), 1);
      ::setenv("HOROVOD_HOSTNAME", "localhost", 1);
      ::setenv("HVD_STORE_ADDR", addr.c_str(), 1);
      ::setenv("HVD_SECRET", hvd::to_hex(secret_).c_str(), 1);
      ::setenv("HVD_ELASTIC_TIMEOUT", "60", 1);
      std::vector<char*> argv;
      for (auto& a : command_) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execvp(argv[0], argv.data());
      std::perror("stub_driver: exec");
      ::_exit(127);
    }
    ::close(out[1]);
    w.pid = pid;
    say("worker " + w.id + " pid " + std::to_string(pid));
    workers_.push_back(std::move(w));
    ++open_outputs_;
    read_output(out[0], workers_.back().id);
  }

  void do_signal() {
    signals_.async_wait([this](std::error_code ec, int signal) {
      if (ec) return;
      if (signal == SIGUSR1) {
        spawn();
        announce("hosts_updated");
      } else {
        reap();
      }
      if (finish_if_done()) return;
      do_signal();
    });
  }

  // Done once every worker has exited and its output is read to the end.
  bool finish_if_done() {
    if (live() > 0) return false;
    for (auto& w : workers_) {
      if (w.stopped) ::kill(w.pid, SIGKILL);
      w.stopped = false;
    }
    if (open_outputs_ > 0) return false;
    say("all workers exited");
    io_.stop();
    return true;
  }

  void reap() {
    int status = 0;
    for (pid_t pid; (pid = ::waitpid(-1, &status, WNOHANG | WUNTRACED)) > 0;) {
      for (auto& w : workers_) {
        if (w.pid != pid || !w.alive) continue;
        w.alive = false;
        w.stopped = WIFSTOPPED(status);
        const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        say("worker " + w.id +
            (w.stopped ? " stopped (counted as lost)"
                       : " exited " + (WIFEXITED(status) ? "code " + std::to_string(WEXITSTATUS(status))
                                                         : "signal " + std::to_string(WTERMSIG(status)))));
        if (!clean && w.in_generation && !reset_announced_) {
          reset_announced_ = true;
          announce("reset");
        }
      }
    }
    try_form();
  }

  int live() const {
    int n = 0;
    for (const auto& w : workers_) n += w.alive;
    return n;
  }

  void announce(const std::string& event) {
    const std::string key = "elastic/event/" + std::to_string(++events_);
    say("event " + std::to_string(events_) + " " + event);
    store_.set(key, event);
  }

  // A generation forms once every live worker waits; ranks follow the order workers joined the job.
  void try_form() {
    std::vector<Worker*> members;
    for (auto& w : workers_) {
      if (!w.alive) continue;
      if (w.waiting.expired()) return;
      members.push_back(&w);
    }
    if (members.empty()) return;
    ++generation_;
    reset_announced_ = false;
    const int size = static_cast<int>(members.size());
    say("generation " + std::to_string(generation_) + " size " + std::to_string(size));
    for (auto& w : workers_) w.in_generation = false;
    for (int r = 0; r < size; ++r) {
      Worker& w = *members[static_cast<std::size_t>(r)];
      w.in_generation = true;
      if (auto c = w.waiting.lock()) {
        c->send(hvd::messages::RendezvousAnswer{
            .generation = generation_,
            .rank = r,
            .size = size,
            .local_rank = host_per_worker_ ? 0 : r,
            .local_size = host_per_worker_ ? 1 : size,
            .cross_rank = host_per_worker_ ? r : 0,
            .cross_size = host_per_worker_ ? size : 1,
            .hostname = host_per_worker_ ? "h" + std::to_string(&w - workers_.data()) : "localhost",
            .events = events_}
                    .encode());
      }
      w.waiting.reset();
    }
  }

  // A worker asks for the next generation: it waits until every live worker does (try_form).
  void on_rendezvous(const std::shared_ptr<hvd::FramedConnection>& conn, const hvd::messages::RendezvousRequest& m) {
    const std::string& id = m.worker;
    for (auto& w : workers_) {
      if (w.id != id || !w.alive) continue;
      w.waiting = conn;
      // A member of the current generation asking for the next one: bring the others (hvdrun's rule).
      if (w.in_generation && !reset_announced_) {
        reset_announced_ = true;
        announce("reset");
      }
      return try_form();
    }
    conn->send(hvd::messages::StoreRefusal{.error = "no place for worker '" + id + "' in this job"}.encode());
  }

  std::vector<std::string> command_;
  bool host_per_worker_;
  std::string secret_;
  asio::io_context io_;
  hvd::test::StoreService store_;  // set/get/add; rendezvous comes to on_rendezvous
  asio::signal_set signals_;
  std::vector<Worker> workers_;
  std::int64_t generation_ = -1;
  std::int64_t events_ = 0;
  bool reset_announced_ = false;       // for the current generation
  int open_outputs_ = 0;               // workers' stdout pipes not yet at their end
  std::vector<std::jthread> readers_;  // last: joined first, while what they use still exists
};

}  // namespace

int main(int argc, char** argv) {
  int np = 0;
  bool host_per_worker = false;
  int i = 1;
  for (; i < argc && std::string(argv[i]) != "--"; ++i) {
    if (std::string(argv[i]) == "--np" && i + 1 < argc) np = std::atoi(argv[++i]);
    if (std::string(argv[i]) == "--host-per-worker") host_per_worker = true;
  }
  if (np < 1 || i + 1 >= argc) {
    std::fprintf(stderr, "usage: elastic_stub_driver --np N [--host-per-worker] -- command [args...]\n");
    return 2;
  }
  std::vector<std::string> command(argv + i + 1, argv + argc);
  // The signal_set listens from its construction, before the first worker is spawned.
  StubDriver(std::move(command), host_per_worker).run(np);
  return 0;
}
