// The built-in CPU backend: TCP between hosts, shared memory inside one, rendezvous through hvdrun's store.
#include <spdlog/spdlog.h>

#include "common/crypto.h"
#include "common/protocol.h"
#include "hvd/error.h"
#include "runtime/comm/cpu_backend.h"
#include "runtime/comm/solo_communicator.h"
#include "store/memory_store.h"
#include "store/tcp_store.h"

namespace hvd::detail {
namespace {

CpuConnection connect_builtin(const StartConfig& start) {
  const Placement& place = start.placement;
  // Under mpirun without hvdrun's placement each rank would be a job of one, and training would silently stop
  // averaging: refuse instead.
  if (auto world = start.mpi_world_size; world && *world != 1 && !place.from_launcher) {
    throw Error(ErrorKind::kUsage,
                "this rank was started by mpirun (OMPI_COMM_WORLD_SIZE=" + std::to_string(*world) +
                    ") but the builtin backend was asked for (HOROVOD_CONTROLLER/HOROVOD_CPU_OPERATIONS); set them to "
                    "mpi or unset them, or launch with hvdrun without --mpi");
  }
  // Rank, size and host are enough: the local and cross fields come from what the ranks publish at connect.
  Topology topo;
  topo.rank = place.rank;
  topo.size = place.size;
  topo.hostname = place.hostname;
  CpuConnection c;
  if (place.size == 1) {
    c.store = std::make_unique<MemoryStore>();
    c.comm = std::make_unique<SoloCommunicator>(topo);
    return c;
  }
  const auto& addr = start.store_addr;
  const auto& secret_hex = start.secret_hex;
  if (!addr || !secret_hex) {
    throw Error(ErrorKind::kUsage,
                std::string("HOROVOD_SIZE=") + std::to_string(place.size) + " but " +
                    (!addr ? protocol::kEnvStoreAddr : protocol::kEnvSecret) +
                    " is not set: start multi-rank jobs with hvdrun (or with mpirun, on the MPI backend)");
  }
  std::string secret = from_hex(*secret_hex);
  c.store = TcpStore::connect(*addr, secret, place.rank);
  CommunicatorOptions options;
  options.secret = secret;
  options.bind_address = start.data_addr;
  options.cpu_bind = start.cpu_bind;
  c.comm = connect_communicator(*c.store, topo, options);
  return c;
}

}  // namespace

CpuBackend builtin_backend() { return {"builtin", "", true, connect_builtin}; }

}  // namespace hvd::detail
