#include "agent/peer_check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "common/address.h"
#include "common/blocking_channel.h"
#include "common/crypto.h"
#include "common/env.h"
#include "common/error.h"
#include "common/protocol.h"
#include "common/unique_fd.h"
#include "common/worker_contract.h"
#include "store/tcp_store.h"

namespace hvd::agent {
namespace {

using namespace std::chrono_literals;
constexpr auto kPeerTimeout = 10s;

// The contract hvdrun --check-hosts gives its probe workers: a placement, the store and the secret.
WorkerContract probe_contract() {
  WorkerContract contract = read_worker_contract(env_var::process());
  const char* missing = !contract.placement   ? worker_var::kRank
                        : !contract.hostname  ? worker_var::kHostname
                        : !contract.store_addr ? protocol::kEnvStoreAddr
                        : !contract.secret_hex ? protocol::kEnvSecret
                                               : nullptr;
  if (missing) throw UsageError(std::string(missing) + " is not set: --check-peers runs only under hvdrun --check-hosts");
  return contract;
}

// A listener on `address` (port chosen by the kernel); returns the fd and fills the "addr:port" it bound.
UniqueFd listen_on(const std::string& address, std::string& bound) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  if (::inet_pton(AF_INET, address.c_str(), &sa.sin_addr) != 1) throw Error(ErrorKind::kUsage, "not an IPv4 address: " + address);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || ::listen(fd.get(), 64) != 0) {
    throw Error(ErrorKind::kBackend, "cannot listen on " + address + ": " + std::strerror(errno));
  }
  socklen_t len = sizeof sa;
  ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&sa), &len);
  bound = address + ":" + std::to_string(ntohs(sa.sin_port));
  return fd;
}

}  // namespace

int run_peer_check() {
  const WorkerContract contract = probe_contract();
  const int size = contract.placement->size;
  const int rank = contract.placement->rank;
  const std::string& host = *contract.hostname;
  auto store = detail::TcpStore::connect(*contract.store_addr, from_hex(*contract.secret_hex), rank);

  std::string bound;
  UniqueFd listener = listen_on(contract.data_addr.empty() ? "0.0.0.0" : contract.data_addr, bound);
  // Accept and drop whatever connects until every host is done: reaching the port is the check.
  std::jthread acceptor([&listener](std::stop_token stop) {
    while (!stop.stop_requested()) {
      pollfd pfd{listener.get(), POLLIN, 0};
      if (::poll(&pfd, 1, 100) > 0) UniqueFd(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    }
  });
  store->set("check/addr/" + std::to_string(rank), host + " " + bound);

  bool all_ok = true;
  for (int peer = 0; peer < size; ++peer) {
    if (peer == rank) continue;
    std::string entry = store->get("check/addr/" + std::to_string(peer), kPeerTimeout);
    std::string peer_host = entry.substr(0, entry.find(' '));
    std::string address = entry.substr(entry.find(' ') + 1);
    auto start = std::chrono::steady_clock::now();
    try {
      const Address peer_address = parse_address(address, "the address rank " + std::to_string(peer) + " published");
      connect_tcp(peer_address.host, peer_address.port, 5s);
      auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      std::printf("CHECK %s %s %s ok %.1f\n", host.c_str(), peer_host.c_str(), address.c_str(), ms);
    } catch (const std::exception& e) {
      all_ok = false;
      std::printf("CHECK %s %s %s fail %s\n", host.c_str(), peer_host.c_str(), address.c_str(), e.what());
    }
    std::fflush(stdout);
  }
  // Stay reachable until every host has finished connecting to us.
  store->add("check/done", 1);
  for (auto deadline = std::chrono::steady_clock::now() + kPeerTimeout;
       store->add("check/done", 0) < size && std::chrono::steady_clock::now() < deadline;) {
    std::this_thread::sleep_for(50ms);
  }
  return all_ok ? 0 : 1;
}

}  // namespace hvd::agent
