#include "runtime/engine/gpu/nccl_setup.h"

#include <spdlog/spdlog.h>

#include <cstring>
#include <map>
#include <set>

#include "hvd/error.h"
#include "runtime/engine/gpu/cuda_error.h"

namespace hvd::detail {
namespace {

constexpr char kOk = 'K', kFailed = 'E', kFlat = 'F', kHierarchical = 'H';
constexpr std::size_t kIdBytes = sizeof(ncclUniqueId);

std::string where_of(const Topology& t) { return "rank " + std::to_string(t.rank) + " (host " + t.hostname + ")"; }

// "" when this rank can use `device`, else why not, naming the rank and host.
std::string probe_device(int device, const Topology& t) {
  int count = 0;
  if (auto status = cudaGetDeviceCount(&count); status != cudaSuccess || count == 0) {
    cudaGetLastError();
    return "no CUDA device is visible to " + where_of(t) +
           ": cudaGetDeviceCount: " + (status != cudaSuccess ? cuda_text(status) : std::string("0 devices"));
  }
  if (device < 0 || device >= count) {
    return where_of(t) + " sees " + std::to_string(count) + " CUDA device(s), 0-" + std::to_string(count - 1);
  }
  if (auto status = cudaSetDevice(device); status != cudaSuccess) {
    cudaGetLastError();
    return where_of(t) + " cannot use CUDA device " + std::to_string(device) + ": cudaSetDevice: " + cuda_text(status);
  }
  return "";
}

std::string unique_id(const std::string& where) {
  ncclUniqueId id;
  check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId", nullptr, where);
  return std::string(reinterpret_cast<const char*>(&id), kIdBytes);
}

NcclComm init_comm(int nranks, const std::string& id_bytes, int rank, const std::string& where) {
  ncclUniqueId id;
  std::memcpy(&id, id_bytes.data(), kIdBytes);
  ncclComm_t comm = nullptr;
  check_nccl(ncclCommInitRank(&comm, nranks, id, rank), "ncclCommInitRank", comm, where);
  return NcclComm(comm);
}

// Whether every host's local rank 0 (its lowest rank) sent a unique id for its host. It made one only when its own
// HOROVOD_HIERARCHICAL_ALLREDUCE asked for it; a zero id would leave its host's ncclCommInitRank waiting forever.
bool every_host_sent_an_id(const std::vector<std::string>& gathered, const Topology& t) {
  std::set<std::string> seen;
  for (std::size_t r = 0; r < gathered.size() && r < t.hosts.size(); ++r) {
    if (seen.insert(t.hosts[r]).second && gathered[r].size() != 1 + kIdBytes) return false;
  }
  return true;
}

// Rank 0: the reply of step 2.
std::string answer(const std::vector<std::string>& gathered, bool hierarchical, const Topology& t,
                   const std::string& where) {
  // The first few ranks' reasons in full; a big job without GPUs would otherwise repeat one line per rank.
  constexpr int kShown = 3;
  std::string reasons;
  int failed = 0;
  for (const auto& g : gathered) {
    if (g.empty() || g[0] != kFailed) continue;
    if (failed++ < kShown) reasons += (reasons.empty() ? "" : "; ") + g.substr(1);
  }
  if (failed > kShown) reasons += "; and " + std::to_string(failed - kShown) + " more rank(s) likewise";
  if (!reasons.empty()) return kFailed + reasons;
  std::string reply(1, kOk);
  try {
    reply += unique_id(where);
  } catch (const std::exception& e) {
    return kFailed + std::string(e.what());
  }
  if (hierarchical && !every_host_sent_an_id(gathered, t)) {
    spdlog::warn(
        "hvd: hierarchical allreduce is off for GPU tensors: HOROVOD_HIERARCHICAL_ALLREDUCE differs between "
        "ranks (set it alike on every rank)");
    hierarchical = false;
  }
  reply += hierarchical ? kHierarchical : kFlat;
  for (const auto& g : gathered) reply += g.size() == 1 + kIdBytes ? g.substr(1) : std::string(kIdBytes, '\0');
  return reply;
}

}  // namespace

bool hierarchical_possible(const Topology& t) {
  if (t.cross_size <= 1 || t.hosts.size() != static_cast<std::size_t>(t.size)) return false;
  std::map<std::string, int> per_host;
  for (const auto& h : t.hosts) ++per_host[h];
  for (const auto& [host, n] : per_host) {
    if (n != t.local_size) return false;
  }
  return true;
}

NcclSetup setup_nccl(Communicator& cpu, int device, bool want_hierarchical) {
  const Topology& t = cpu.topology();
  const std::string where = "NCCL setup on " + where_of(t) + ", device " + std::to_string(device);
  const bool hierarchical = want_hierarchical && hierarchical_possible(t);

  std::string mine(1, kOk);
  if (auto why = probe_device(device, t); !why.empty()) {
    mine = kFailed + why;
  } else if (hierarchical && t.local_rank == 0) {
    try {
      mine += unique_id(where);
    } catch (const std::exception& e) {
      mine = kFailed + std::string(e.what());
    }
  }
  auto gathered = cpu.gather_to_root(mine);
  std::string reply = cpu.broadcast_from_root(t.rank == 0 ? answer(gathered, hierarchical, t, where) : "");
  if (reply.empty() || reply[0] != kOk)
    throw Error(ErrorKind::kBackend, reply.empty() ? "NCCL setup: empty reply" : reply.substr(1));

  DeviceGuard guard(device, where);
  NcclSetup setup;
  setup.global = init_comm(t.size, reply.substr(1, kIdBytes), t.rank, where);
  if (reply[1 + kIdBytes] == kHierarchical) {
    // This host's id came from its local rank 0: the lowest rank on this host (ranks fill hosts block by block).
    int root = 0;
    while (t.hosts[static_cast<std::size_t>(root)] != t.hostname) ++root;
    auto local_id = reply.substr(2 + kIdBytes + static_cast<std::size_t>(root) * kIdBytes, kIdBytes);
    setup.local = init_comm(t.local_size, local_id, t.local_rank, where + " (ranks of this host)");
  }
  return setup;
}

}  // namespace hvd::detail
