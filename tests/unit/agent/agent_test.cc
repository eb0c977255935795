// End to end: the built hvd-agent against an in-process coordination server speaking common/protocol.h.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <asio.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "agent/agent_main.h"
#include "common/crypto.h"
#include "common/framed_connection.h"
#include "common/unique_fd.h"

namespace {

using namespace std::chrono_literals;
using nlohmann::json;

bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, comm, state;
  if (!(stat >> pid_field >> comm >> state)) return false;
  return state != "Z";
}

// The agent started as hvdrun starts it: secret on a stdin pipe kept open, stderr captured. With a first launch,
// forked without exec and given it, as hvdrun starts its local agent.
struct AgentChild {
  pid_t pid = -1;
  hvd::UniqueFd stdin_w, stderr_r;
  std::optional<int> status;

  AgentChild(int port, const std::string& secret_hex, std::vector<std::string> extra = {}, json first_launch = nullptr) {
    auto agent = std::filesystem::read_symlink("/proc/self/exe").parent_path() / "hvd-agent";
    REQUIRE(std::filesystem::exists(agent));
    int in[2], err[2];
    REQUIRE(::pipe2(in, O_CLOEXEC) == 0);
    REQUIRE(::pipe2(err, O_CLOEXEC) == 0);
    std::vector<std::string> args{agent.string(), "--coordinator", "127.0.0.1:" + std::to_string(port), "--host",
                                  "testhost"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid = ::fork();
    if (pid == 0) {
      ::dup2(in[0], 0);
      ::dup2(err[1], 2);
      if (!first_launch.is_null()) {
        ::_exit(hvd::agent::agent_main(static_cast<int>(args.size()), argv.data(),
                                       hvd::messages::Launch::decode(first_launch)));
      }
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(err[1]);
    stdin_w.reset(in[1]);
    stderr_r.reset(err[0]);
    std::string line = secret_hex + "\n";
    REQUIRE(::write(stdin_w.get(), line.data(), line.size()) == static_cast<ssize_t>(line.size()));
  }
  ~AgentChild() {
    if (!status) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
  // Exit code, or -1 when it did not exit within the bound.
  int wait_exit(std::chrono::milliseconds bound) {
    auto until = std::chrono::steady_clock::now() + bound;
    while (!status) {
      int s = 0;
      if (::waitpid(pid, &s, WNOHANG) == pid) {
        status = s;
        break;
      }
      if (std::chrono::steady_clock::now() > until) return -1;
      std::this_thread::sleep_for(20ms);
    }
    return WIFEXITED(*status) ? WEXITSTATUS(*status) : 128 + WTERMSIG(*status);
  }
  std::string stderr_text() {
    std::string out;
    char buf[4096];
    ::fcntl(stderr_r.get(), F_SETFL, O_NONBLOCK);
    ssize_t n;
    while ((n = ::read(stderr_r.get(), buf, sizeof buf)) > 0) out.append(buf, n);
    return out;
  }
};

// One coordination server accepting one agent; records every message.
struct Coordinator {
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor{io, {asio::ip::make_address("127.0.0.1"), 0}};
  std::string secret = hvd::random_bytes(hvd::kSecretSize);
  std::shared_ptr<hvd::FramedConnection> link;
  std::vector<json> messages;
  std::optional<std::string> closed;
  std::function<void(const json&)> on_message;

  Coordinator() {
    acceptor.async_accept([this](std::error_code ec, asio::ip::tcp::socket socket) {
      REQUIRE_FALSE(ec);
      link = std::make_shared<hvd::FramedConnection>(std::move(socket), secret, hvd::FramedConnection::Role::kServer);
      link->start([] {},
                  [this](const json& m) {
                    if (m.value("type", "") != "heartbeat") messages.push_back(m);
                    if (on_message) on_message(m);
                  },
                  [this](const std::string& reason) { closed = reason; });
    });
  }
  ~Coordinator() {
    if (link) link->close("test over");
  }
  int port() const { return acceptor.local_endpoint().port(); }
  std::string secret_hex() const { return hvd::to_hex(secret); }
  bool run_until(const std::function<bool()>& done, std::chrono::milliseconds bound = 20s) {
    auto until = std::chrono::steady_clock::now() + bound;
    while (!done()) {
      if (std::chrono::steady_clock::now() > until) return false;
      io.run_one_for(50ms);
    }
    return true;
  }
  std::vector<json> of_type(const std::string& type) const {
    std::vector<json> out;
    for (const auto& m : messages) {
      if (m["type"] == type) out.push_back(m);
    }
    return out;
  }
  void launch_on_hello(std::vector<std::string> command, int ranks, double grace = 5) {
    on_message = [this, command, ranks, grace](const json& m) {
      if (m["type"] == "hello") link->send(launch_message(command, ranks, grace));
    };
  }
  static json launch_message(const std::vector<std::string>& command, int ranks, double grace = 5) {
    json launch{{"type", "launch"}, {"command", command}, {"cwd", "/tmp"}, {"kill_grace_s", grace}};
    for (int r = 0; r < ranks; ++r) {
      launch["ranks"].push_back({{"rank", r}, {"env", {{"HOROVOD_RANK", std::to_string(r)}}}});
    }
    return launch;
  }
};

}  // namespace

TEST_CASE("agent runs two ranks, streams their output, reports exits, says bye and exits 0") {
  Coordinator c;
  c.launch_on_hello({"/bin/sh", "-c", "echo hello $HOROVOD_RANK; echo oops >&2; printf 'no newline'; exit 3"}, 2);
  AgentChild agent(c.port(), c.secret_hex());
  REQUIRE(c.run_until([&] { return c.closed.has_value(); }));
  CHECK(agent.wait_exit(5s) == 0);

  REQUIRE(!c.messages.empty());
  CHECK(c.messages.front()["type"] == "hello");
  CHECK(c.messages.front()["role"] == "agent");
  CHECK(c.messages.front()["host"] == "testhost");
  CHECK(c.messages.front()["pid"] == agent.pid);
  CHECK(c.messages.back()["type"] == "bye");
  CHECK(c.of_type("started").size() == 2);
  for (int rank = 0; rank < 2; ++rank) {
    std::vector<std::string> out, err;
    bool exited = false;
    for (const auto& m : c.messages) {
      if (m.value("rank", -1) != rank) continue;
      if (m["type"] == "output") {
        CHECK_FALSE(exited);  // nothing of a worker after its exit
        for (const auto& l : m["lines"]) (m["stream"] == "stdout" ? out : err).push_back(l);
      } else if (m["type"] == "exit") {
        exited = true;
        CHECK(m["code"] == 3);
        CHECK_FALSE(m.contains("signal"));
      }
    }
    CHECK(exited);
    CHECK(out == std::vector<std::string>{"hello " + std::to_string(rank), "no newline"});
    CHECK(err == std::vector<std::string>{"oops"});
  }
}

TEST_CASE("a forked agent starts its first launch before the handshake and reports it once authenticated") {
  Coordinator c;  // its io_context does not run yet: the connection waits in the backlog, unanswered
  const auto marker = std::filesystem::temp_directory_path() / ("hvd-first-launch-" + std::to_string(::getpid()));
  std::filesystem::remove(marker);
  AgentChild agent(c.port(), c.secret_hex(), {},
                   Coordinator::launch_message({"/bin/sh", "-c", "echo up > " + marker.string() + "; echo hi; exit 5"}, 2));
  bool ran = false;
  for (auto until = std::chrono::steady_clock::now() + 20s; !ran && std::chrono::steady_clock::now() < until;) {
    ran = std::filesystem::exists(marker);
    if (!ran) std::this_thread::sleep_for(10ms);
  }
  CHECK(ran);  // with no handshake possible yet: the coordinator's io_context has not run
  REQUIRE(c.run_until([&] { return c.closed.has_value(); }));
  std::filesystem::remove(marker);
  CHECK(agent.wait_exit(5s) == 0);
  REQUIRE(!c.messages.empty());
  CHECK(c.messages.front()["type"] == "hello");
  CHECK(c.messages.back()["type"] == "bye");
  CHECK(c.of_type("started").size() == 2);
  auto exits = c.of_type("exit");
  REQUIRE(exits.size() == 2);
  for (const auto& e : exits) CHECK(e["code"] == 5);
  CHECK(c.of_type("output").size() >= 2);
}

TEST_CASE("agent passes binary output as valid UTF-8 and reports a missing program as spawn_failed 127") {
  Coordinator c;
  c.on_message = [&](const json& m) {
    if (m["type"] != "hello") return;
    c.link->send({{"type", "launch"},
                  {"command", {"/bin/sh", "-c", "printf 'a\\377b\\n'; kill -9 $$"}},
                  {"ranks", {{{"rank", 0}}}}});
  };
  AgentChild agent(c.port(), c.secret_hex());
  REQUIRE(c.run_until([&] { return c.closed.has_value(); }));
  CHECK(agent.wait_exit(5s) == 0);
  auto output = c.of_type("output");
  REQUIRE(output.size() == 1);
  CHECK(output[0]["lines"][0] ==
        "a\xEF\xBF\xBD"
        "b");
  auto exits = c.of_type("exit");
  REQUIRE(exits.size() == 1);
  CHECK(exits[0]["signal"] == SIGKILL);

  Coordinator c2;
  c2.launch_on_hello({"./no-such-program"}, 1);
  AgentChild agent2(c2.port(), c2.secret_hex());
  REQUIRE(c2.run_until([&] { return c2.closed.has_value(); }));
  CHECK(agent2.wait_exit(5s) == 0);
  auto failed = c2.of_type("spawn_failed");
  REQUIRE(failed.size() == 1);
  CHECK(failed[0]["code"] == 127);
  CHECK(failed[0]["error"] == "cannot execute './no-such-program' on testhost: No such file or directory");
  CHECK(c2.messages.back()["type"] == "bye");
}

TEST_CASE("terminate: SIGTERM, then SIGKILL after the grace for a worker that ignores it") {
  Coordinator c;
  c.launch_on_hello({"/bin/sh", "-c",
                     "if [ $HOROVOD_RANK = 1 ]; then trap '' TERM; fi; echo ready; "
                     "while :; do sleep 0.1; done"},
                    2, 0.5);
  AgentChild agent(c.port(), c.secret_hex());
  REQUIRE(c.run_until([&] { return c.of_type("output").size() == 2; }));
  c.link->send({{"type", "terminate"}, {"reason", "test"}});
  REQUIRE(c.run_until([&] { return c.closed.has_value(); }));
  CHECK(agent.wait_exit(5s) == 0);
  auto exits = c.of_type("exit");
  REQUIRE(exits.size() == 2);
  for (const auto& e : exits) CHECK(e["signal"] == (e["rank"] == 0 ? SIGTERM : SIGKILL));
  CHECK(c.messages.back()["type"] == "bye");
  for (const auto& s : c.of_type("started")) CHECK_FALSE(alive(s["pid"].get<pid_t>()));
}

TEST_CASE("closing the agent's stdin (launcher lost) kills the workers and the agent exits non-zero") {
  Coordinator c;
  c.launch_on_hello({"sleep", "1000"}, 1);
  AgentChild agent(c.port(), c.secret_hex());
  REQUIRE(c.run_until([&] { return !c.of_type("started").empty(); }));
  pid_t worker = c.of_type("started")[0]["pid"].get<pid_t>();
  CHECK(alive(worker));
  agent.stdin_w.reset();
  c.run_until([&] { return c.closed.has_value(); }, 10s);
  CHECK(agent.wait_exit(10s) == 1);
  CHECK_FALSE(alive(worker));
  CHECK(agent.stderr_text().find("stdin closed") != std::string::npos);
}

TEST_CASE("a dropped link counts as launcher lost too") {
  Coordinator c;
  c.launch_on_hello({"sleep", "1000"}, 1);
  AgentChild agent(c.port(), c.secret_hex());
  REQUIRE(c.run_until([&] { return !c.of_type("started").empty(); }));
  pid_t worker = c.of_type("started")[0]["pid"].get<pid_t>();
  c.link->close("test drops the link");
  CHECK(agent.wait_exit(10s) == 1);
  CHECK_FALSE(alive(worker));
}

TEST_CASE("a wrong secret: the agent exits 4 with a clear message") {
  Coordinator c;
  AgentChild agent(c.port(), hvd::to_hex(hvd::random_bytes(hvd::kSecretSize)));
  c.run_until([&] { return c.closed.has_value(); }, 10s);
  CHECK(agent.wait_exit(10s) == 4);
  auto text = agent.stderr_text();
  CHECK(text.find("hvd-agent on testhost: authentication with the coordinator at 127.0.0.1:") != std::string::npos);
  CHECK(c.messages.empty());
}

TEST_CASE("an unreachable coordinator: the agent names the address and exits 3") {
  int port;
  {
    asio::io_context io;
    asio::ip::tcp::acceptor a(io, {asio::ip::make_address("127.0.0.1"), 0});
    port = a.local_endpoint().port();
  }
  AgentChild agent(port, hvd::to_hex(hvd::random_bytes(hvd::kSecretSize)), {"--connect-timeout", "1"});
  CHECK(agent.wait_exit(10s) == 3);
  CHECK(agent.stderr_text() == "hvd-agent on testhost: cannot reach the coordinator at 127.0.0.1:" +
                                   std::to_string(port) + ": connection refused\n");
}

TEST_CASE("SIGTERM to the agent tears the workers down, reports them (stopped from outside) and exits 0") {
  Coordinator c;
  c.launch_on_hello({"sleep", "1000"}, 2);
  AgentChild agent(c.port(), c.secret_hex());
  REQUIRE(c.run_until([&] { return c.of_type("started").size() == 2; }));
  ::kill(agent.pid, SIGTERM);
  REQUIRE(c.run_until([&] { return c.closed.has_value(); }));
  CHECK(agent.wait_exit(5s) == 0);
  auto exits = c.of_type("exit");
  REQUIRE(exits.size() == 2);
  for (const auto& e : exits) {
    CHECK(e["signal"] == SIGTERM);
    CHECK(e["outside"] == true);
  }
  CHECK(c.messages.back()["type"] == "bye");
}

TEST_CASE("a worker SIGTERMed from outside is reported as stopped from outside; one the agent stops is not") {
  Coordinator c;
  c.launch_on_hello({"sleep", "1000"}, 2);
  AgentChild agent(c.port(), c.secret_hex());
  REQUIRE(c.run_until([&] { return c.of_type("started").size() == 2; }));
  pid_t rank0 = -1;
  for (const auto& s : c.of_type("started")) {
    if (s["rank"] == 0) rank0 = s["pid"].get<pid_t>();
  }
  ::kill(rank0, SIGTERM);  // as scancel or a user's kill does
  REQUIRE(c.run_until([&] { return c.of_type("exit").size() == 1; }));
  c.link->send({{"type", "terminate"}, {"reason", "test"}});
  REQUIRE(c.run_until([&] { return c.closed.has_value(); }));
  CHECK(agent.wait_exit(5s) == 0);
  auto exits = c.of_type("exit");
  REQUIRE(exits.size() == 2);
  CHECK(exits[0]["rank"] == 0);
  CHECK(exits[0]["signal"] == SIGTERM);
  CHECK(exits[0]["outside"] == true);
  CHECK(exits[0]["stopped"] == false);
  CHECK(exits[1]["signal"] == SIGTERM);
  CHECK(exits[1]["outside"] == false);
  CHECK(exits[1]["stopped"] == true);
}

TEST_CASE("a grandchild holding the pipes delays the exit report by the drain bound only, then dies") {
  Coordinator c;
  c.launch_on_hello({"/bin/sh", "-c", "sleep 1000 & echo $!; exit 0"}, 1);
  AgentChild agent(c.port(), c.secret_hex());
  REQUIRE(c.run_until([&] { return c.closed.has_value(); }, 10s));
  CHECK(agent.wait_exit(5s) == 0);
  auto output = c.of_type("output");
  REQUIRE(output.size() == 1);
  pid_t grandchild = std::stoi(output[0]["lines"][0].get<std::string>());
  auto exits = c.of_type("exit");
  REQUIRE(exits.size() == 1);
  CHECK(exits[0]["code"] == 0);
  CHECK(c.messages.back()["type"] == "bye");
  auto until = std::chrono::steady_clock::now() + 5s;
  while (alive(grandchild) && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(20ms);
  CHECK_FALSE(alive(grandchild));
}

TEST_CASE("fast writers: every line arrives whole, none lost") {
  Coordinator c;
  c.launch_on_hello({"/bin/sh", "-c",
                     "i=0; while [ $i -lt 20000 ]; do echo \"line $i of rank $HOROVOD_RANK\"; "
                     "i=$((i+1)); done"},
                    2);
  AgentChild agent(c.port(), c.secret_hex());
  REQUIRE(c.run_until([&] { return c.closed.has_value(); }, 60s));
  CHECK(agent.wait_exit(5s) == 0);
  std::vector<int> next(2, 0);
  bool in_order = true;
  for (const auto& m : c.of_type("output")) {
    int rank = m["rank"];
    for (const auto& l : m["lines"]) {
      in_order = in_order && l == "line " + std::to_string(next[rank]++) + " of rank " + std::to_string(rank);
    }
  }
  CHECK(in_order);
  CHECK(next == std::vector<int>{20000, 20000});
}

TEST_CASE("a launcher silent past the heartbeat timeout counts as lost" * doctest::timeout(30)) {
  Coordinator c;
  c.launch_on_hello({"sleep", "1000"}, 1);
  AgentChild agent(c.port(), c.secret_hex());
  REQUIRE(c.run_until([&] { return !c.of_type("started").empty(); }));
  pid_t worker = c.of_type("started")[0]["pid"].get<pid_t>();
  // This side keeps reading (the agent's heartbeats) but never sends any.
  REQUIRE(c.run_until([&] { return c.closed.has_value(); }, 15s));
  CHECK(agent.wait_exit(5s) == 1);
  CHECK_FALSE(alive(worker));
  CHECK(agent.stderr_text().find("nothing heard from the launcher") != std::string::npos);
}
