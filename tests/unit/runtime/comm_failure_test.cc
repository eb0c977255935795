// Failures: a rank whose process dies in the middle of allreduces makes the survivor's current call and every
// later one fail within seconds, naming the dead rank (real processes: fork + the TCP store).
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "hvd/error.h"
#include "store/tcp_store.h"
#include "tests/unit/runtime/comm_test_util.h"
#include "tests/unit/runtime/store_test_server.h"

using namespace hvd;
using namespace std::chrono_literals;

namespace {
detail::CommunicatorOptions options() {
  detail::CommunicatorOptions o;
  o.secret = "failure-test";
  o.bind_address = "127.0.0.1";
  o.connect_timeout = 10s;
  return o;
}

[[noreturn]] void child_rank(int port_pipe, const std::string& host) {
  int port = 0;
  if (::read(port_pipe, &port, sizeof port) != sizeof port) ::_exit(10);
  try {
    detail::TcpStore store("127.0.0.1", port, "failure-test", 1);
    detail::Topology t;
    t.rank = 1;
    t.size = 2;
    t.hostname = host;
    auto comm = detail::connect_communicator(store, t, options());
    std::vector<float> data(1 << 20, 1.0f);
    auto start = std::chrono::steady_clock::now();
    // Die in the middle of the allreduce sequence (and usually in the middle of one allreduce).
    while (std::chrono::steady_clock::now() - start < 300ms) comm->allreduce(data.data(), data.size(),
                                                                              DataType::kFloat32, ReduceOp::kSum);
    ::_exit(3);
  } catch (...) {
    ::_exit(11);
  }
}

void check_peer_death(const std::string& child_host) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[1]);
    child_rank(fds[0], child_host);
  }
  ::close(fds[0]);
  test::StoreTestServer server("failure-test");
  int port = server.port();
  REQUIRE(::write(fds[1], &port, sizeof port) == sizeof port);
  ::close(fds[1]);

  detail::TcpStore store("127.0.0.1", port, "failure-test", 0);
  detail::Topology t;
  t.rank = 0;
  t.size = 2;
  t.hostname = "parent-host";
  auto comm = detail::connect_communicator(store, t, options());
  std::vector<float> data(1 << 20, 1.0f);
  std::string message;
  std::chrono::steady_clock::duration stuck{};
  for (int i = 0; i < 100000 && message.empty(); ++i) {
    auto call = std::chrono::steady_clock::now();
    try {
      comm->allreduce(data.data(), data.size(), DataType::kFloat32, ReduceOp::kSum);
    } catch (const Error& e) {
      message = e.what();
      stuck = std::chrono::steady_clock::now() - call;
    }
  }
  INFO(message);
  CHECK(message.find("rank 1") != std::string::npos);
  CHECK(stuck < 10s);
  // Every later call fails too, at once.
  auto later = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH_AS(comm->barrier(), doctest::Contains("rank 1"), Error);
  CHECK(std::chrono::steady_clock::now() - later < 1s);
  int status = 0;
  ::waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 3);
}
}  // namespace

TEST_CASE("a peer process dying mid-allreduce fails the survivor (shared memory)") {
  check_peer_death("parent-host");
}

TEST_CASE("a peer process dying mid-allreduce fails the survivor (TCP)") {
  check_peer_death("child-host");
}
