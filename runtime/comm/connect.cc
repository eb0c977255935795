// connect_communicator: rendezvous through the store, then the communicator that fits the topology.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "hvd/error.h"
#include "runtime/comm/communicator.h"
#include "runtime/comm/hierarchical.h"
#include "runtime/comm/peer_info.h"
#include "runtime/comm/shm/cpu_binding.h"
#include "runtime/comm/shm/shm_communicator.h"
#include "runtime/comm/tcp/tcp_communicator.h"

namespace hvd::detail {
namespace {
using Clock = std::chrono::steady_clock;

// Measured on the 2-core development machine (see runtime/comm/tools/comm_bench.cc).
constexpr std::size_t kDefaultShmChunk = 1u << 20;
constexpr std::size_t kDefaultSmallAllreduce = 16u << 10;

std::string random_id() {
  std::random_device rd;
  std::uint64_t v = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::vector<PeerInfo> exchange_peers(Store& store, const std::string& prefix, PeerInfo mine, int size,
                                     std::chrono::milliseconds timeout) {
  store.set(prefix + "peer/" + std::to_string(mine.rank),
            nlohmann::json{{"host", mine.host}, {"pid", mine.pid}, {"address", mine.address}}.dump());
  std::vector<PeerInfo> peers(static_cast<std::size_t>(size));
  std::vector<int> missing;
  auto deadline = Clock::now() + timeout;
  for (int r = 0; r < size; ++r) {
    auto left = std::max(std::chrono::milliseconds(1),
                         std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
    try {
      auto j = nlohmann::json::parse(store.get(prefix + "peer/" + std::to_string(r), left));
      peers[r] = {r, j.at("host").get<std::string>(), j.at("pid").get<int>(), j.at("address").get<std::string>()};
    } catch (const nlohmann::json::exception& e) {
      throw Error(ErrorKind::kBackend,
                  "connect: rank " + std::to_string(r) + " published a malformed address: " + e.what(), {.peer = r});
    } catch (const Error&) {
      missing.push_back(r);
    }
  }
  if (!missing.empty()) {
    std::string list;
    for (int r : missing) list += (list.empty() ? "" : ", ") + std::to_string(r);
    throw Error(ErrorKind::kBackend, "connect: rank" + std::string(missing.size() > 1 ? "s " : " ") + list +
                                         " did not publish a data-plane address within " +
                                         std::to_string(timeout.count()) + " ms in " + store.describe() +
                                         "; did every rank start, with the same HOROVOD_SIZE?");
  }
  return peers;
}

// Fills hosts, local and cross fields from the published host names (hosts ordered by their lowest rank).
void fill_topology(Topology& t, const std::vector<PeerInfo>& peers) {
  t.hosts.clear();
  std::vector<std::string> host_order;
  std::map<std::string, int> per_host;
  for (const auto& p : peers) {
    t.hosts.push_back(p.host);
    if (per_host[p.host]++ == 0) host_order.push_back(p.host);
  }
  t.local_rank = 0;
  for (int r = 0; r < t.rank; ++r) t.local_rank += peers[r].host == t.hostname;
  t.local_size = per_host[t.hostname];
  t.cross_size = 0;
  t.cross_rank = 0;
  for (const auto& h : host_order) {
    if (per_host[h] > t.local_rank) {
      if (h == t.hostname) t.cross_rank = t.cross_size;
      ++t.cross_size;
    }
  }
}

// The first rank of each host, in rank order: the ranks that talk across hosts.
std::vector<int> host_leaders(const std::vector<PeerInfo>& peers) {
  std::vector<int> leaders;
  std::map<std::string, bool> seen;
  for (const auto& p : peers) {
    if (!seen[p.host]) {
      seen[p.host] = true;
      leaders.push_back(p.rank);
    }
  }
  return leaders;
}
}  // namespace

std::unique_ptr<Communicator> connect_communicator(Store& store, Topology topology,
                                                   const CommunicatorOptions& options) {
  const int n = topology.size, rank = topology.rank;
  if (n < 1 || rank < 0 || rank >= n) {
    throw Error(ErrorKind::kUsage,
                "connect: rank " + std::to_string(rank) + " is outside a job of size " + std::to_string(n),
                {.rank = rank});
  }
  const std::size_t chunk = options.shm_chunk_bytes ? options.shm_chunk_bytes : kDefaultShmChunk;
  const std::size_t small =
      options.shm_small_allreduce_bytes ? options.shm_small_allreduce_bytes : kDefaultSmallAllreduce;
  if (n == 1) {
    topology.hosts = {topology.hostname};
    topology.local_rank = topology.cross_rank = 0;
    topology.local_size = topology.cross_size = 1;
    return std::make_unique<ShmCommunicator>(std::move(topology), nullptr, small);
  }
  // Each connect on a store gets its own generation of keys.
  const auto generation = (store.add("comm/generation", 1) - 1) / n;
  const std::string prefix = "comm/" + std::to_string(generation) + "/";
  if (rank == 0) store.set(prefix + "id", random_id());

  TcpListener listener(options.bind_address);
  auto peers =
      exchange_peers(store, prefix, {rank, topology.hostname, static_cast<int>(::getpid()), listener.address()}, n,
                     options.connect_timeout);
  const std::string job_id = store.get(prefix + "id", options.connect_timeout);
  fill_topology(topology, peers);
  for (auto& p : peers) p.job_rank = job_rank(topology, p.rank);

  std::vector<PeerInfo> local;
  for (const auto& p : peers) {
    if (p.host == topology.hostname) local.push_back(p);
  }
  place_on_cpus(topology.local_rank, static_cast<int>(local.size()), options.cpu_bind);
  auto make_local = [&]() -> std::unique_ptr<ShmGroup> {
    if (local.size() == 1) return nullptr;
    return std::make_unique<ShmGroup>(store, prefix, job_id, local, topology.local_rank, chunk,
                                      options.connect_timeout);
  };
  if (topology.local_size == n) return std::make_unique<ShmCommunicator>(std::move(topology), make_local(), small);

  auto mesh = std::make_unique<TcpMesh>(listener, peers, rank, options.secret, job_id, options.connect_timeout);
  if (topology.cross_size == n) return std::make_unique<TcpCommunicator>(std::move(topology), std::move(mesh));

  Topology local_topology;
  local_topology.rank = topology.local_rank;
  local_topology.size = topology.local_size;
  local_topology.local_rank = topology.local_rank;
  local_topology.local_size = topology.local_size;
  local_topology.hostname = topology.hostname;
  local_topology.hosts.assign(local.size(), topology.hostname);
  auto shm = std::make_unique<ShmCommunicator>(std::move(local_topology), make_local(), small);
  return std::make_unique<HierarchicalCommunicator>(std::move(topology), std::move(mesh), std::move(shm),
                                                    host_leaders(peers));
}

}  // namespace hvd::detail
