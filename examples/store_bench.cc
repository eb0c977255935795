// hvd-store-bench: how many clients hvdrun's rendezvous store serves, and how fast. hvdrun's CoordinationServer
// runs on one thread on loopback, as in a job; N client threads, each with its own authenticated TcpStore
// connection (as each worker has), then do what libhvd's connect does: set one key, read every rank's key.
// Per N it prints the connect time, the rendezvous time (N sets + N*N gets) and the store's requests per second.
//   hvd-store-bench [--clients 16,64,256,1024]
#include <CLI/CLI.hpp>
#include <asio.hpp>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "common/crypto.h"
#include "launcher/session/coordination_server.h"
#include "store/tcp_store.h"

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct Result {
  double connect_s = 0, rendezvous_s = 0;
};

Result run(int port, const std::string& secret, int clients, int round) {
  std::barrier connected(clients + 1), go(clients + 1), done(clients + 1);
  const std::string prefix = "bench/" + std::to_string(round) + "/";
  std::vector<std::jthread> threads;
  const auto start = Clock::now();
  for (int rank = 0; rank < clients; ++rank) {
    threads.emplace_back([&, rank] {
      hvd::detail::TcpStore store("127.0.0.1", port, secret, rank, std::chrono::seconds(120));
      connected.arrive_and_wait();
      go.arrive_and_wait();
      store.set(prefix + std::to_string(rank), "198.51.100.1:40000 padding-like-a-peer-record");
      for (int r = 0; r < clients; ++r) store.get(prefix + std::to_string(r), std::chrono::seconds(300));
      done.arrive_and_wait();
    });
  }
  Result result;
  connected.arrive_and_wait();
  result.connect_s = seconds_since(start);
  const auto rendezvous = Clock::now();
  go.arrive_and_wait();
  done.arrive_and_wait();
  result.rendezvous_s = seconds_since(rendezvous);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> client_counts{16, 64, 256, 1024};
  CLI::App app{"hvd-store-bench: the rendezvous store under N simulated workers on loopback"};
  app.add_option("--clients", client_counts, "client counts to measure")->delimiter(',');
  CLI11_PARSE(app, argc, argv);

  const std::string secret = hvd::from_hex(hvd::make_job_secret_hex());
  asio::io_context io;
  hvd::launcher::CoordinationServer server(io, "127.0.0.1", secret,
                                           [](auto link, const auto&) { link->close("no agents here"); });
  auto guard = asio::make_work_guard(io);
  std::jthread server_thread([&] { io.run(); });

  std::printf("%8s %12s %14s %12s %14s\n", "clients", "connect_s", "rendezvous_s", "requests", "requests_per_s");
  int round = 0;
  for (int clients : client_counts) {
    const Result r = run(server.port(), secret, clients, round++);
    const double requests = static_cast<double>(clients) * (clients + 1);
    std::printf("%8d %12.3f %14.3f %12.0f %14.0f\n", clients, r.connect_s, r.rendezvous_s, requests,
                requests / r.rendezvous_s);
    std::fflush(stdout);
  }
  asio::post(io, [&] { server.close(); });
  guard.reset();
  io.stop();
  return 0;
}
