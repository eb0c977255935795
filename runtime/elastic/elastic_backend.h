// How a worker of an elastic job joins the data plane: it asks hvdrun for its place (the rendezvous op; rank,
// size and host come from the answer instead of HOROVOD_RANK...), then connects the builtin backend with the
// generation's own keys ("elastic/g<G>/" through a prefix store), so no key of an earlier generation is ever read.
// MPI cannot re-form a job in process: an elastic job on the MPI backend is refused with a clear error.
#pragma once

#include <cstdint>
#include <memory>

#include "runtime/comm/cpu_backend.h"
#include "runtime/comm/config.h"
#include "runtime/elastic/elastic_config.h"
#include "store/tcp_store.h"

namespace hvd::detail {

struct ElasticConnection {
  CpuConnection connection;  // store: the TcpStore itself (unprefixed); comm: this generation's communicator
  RendezvousAnswer answer;
};

// Joins the first generation newer than `after` (-1: the first join). A generation whose data plane cannot be
// connected (a peer died during the connect) is given up and the next one joined, a few times at most.
ElasticConnection connect_elastic(const StartConfig& start, const ElasticConfig& elastic, std::int64_t after);
// A second connection to hvdrun's store, for the event watcher.
std::unique_ptr<TcpStore> connect_elastic_store(const StartConfig& start);

}  // namespace hvd::detail
