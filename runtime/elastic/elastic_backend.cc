#include "runtime/elastic/elastic_backend.h"

#include <spdlog/spdlog.h>

#include "common/crypto.h"
#include "common/protocol.h"
#include "hvd/error.h"
#include "runtime/comm/solo_communicator.h"
#include "store/prefix_store.h"

namespace hvd::detail {
namespace {
constexpr int kConnectAttempts = 3;

std::unique_ptr<Communicator> connect_generation(const StartConfig& start, Store& store,
                                                 const RendezvousAnswer& answer) {
  Topology topo;
  topo.rank = answer.rank;
  topo.size = answer.size;
  topo.hostname = answer.hostname;
  if (answer.size == 1) {
    topo.hosts = {topo.hostname};
    return std::make_unique<SoloCommunicator>(topo);
  }
  PrefixStore generation_keys("elastic/g" + std::to_string(answer.generation) + "/", store);
  CommunicatorOptions options;
  options.secret = from_hex(*start.secret_hex);
  options.bind_address = start.data_addr;
  options.cpu_bind = start.cpu_bind;
  return connect_communicator(generation_keys, topo, options);
}
}  // namespace

std::unique_ptr<TcpStore> connect_elastic_store(const StartConfig& start) {
  // Elastic workers have no rank until the rendezvous answers: they say hello as -1.
  return TcpStore::connect(*start.store_addr, from_hex(*start.secret_hex), -1);
}

ElasticConnection connect_elastic(const StartConfig& start, const ElasticConfig& elastic, std::int64_t after) {
  if (choose_cpu_backend(start) == "mpi") {
    throw Error(ErrorKind::kUsage,
                std::string(protocol::kEnvElastic) +
                    "=1 but the CPU backend is MPI (HOROVOD_CONTROLLER/HOROVOD_CPU_OPERATIONS=mpi or mpirun): an "
                    "elastic job re-forms in process, which MPI cannot; use the builtin backend (unset both, and "
                    "launch with hvdrun without --mpi)");
  }
  ElasticConnection c;
  auto store = connect_elastic_store(start);
  const auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(elastic.timeout);
  for (int attempt = 1;; ++attempt) {
    c.answer = store->rendezvous(elastic.worker_id, after, timeout);
    try {
      c.connection.comm = connect_generation(start, *store, c.answer);
      break;
    } catch (const Error& e) {
      if (attempt == kConnectAttempts || !store->channel_usable()) throw;
      spdlog::warn("elastic generation {}: connecting the data plane failed ({}); joining the next generation",
                   c.answer.generation, e.what());
      after = c.answer.generation;
    }
  }
  c.connection.backend = "builtin";
  c.connection.store = std::move(store);
  return c;
}

}  // namespace hvd::detail
