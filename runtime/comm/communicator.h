// The data plane among the ranks of one job: the collectives the engine executes, on raw host buffers.
// Implementations: shared memory between ranks of one host, TCP between hosts, hierarchical when both.
// Contract:
//  - every rank calls the same operations in the same order (the engine guarantees it);
//  - calls come from one thread (the engine's background thread);
//  - a broken peer fails the call, and every later one, with hvd::Error naming the peer's rank and host;
//  - no call busy-waits without bound: ranks may outnumber cores;
//  - abort() is the one exception to "one thread": any thread may call it, at any time.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/stop.h"
#include "hvd/types.h"
#include "runtime/comm/shm/cpu_binding.h"
#include "store/store.h"

namespace hvd::detail {

struct Topology {
  int rank = 0, size = 1;
  int local_rank = 0, local_size = 1;
  int cross_rank = 0, cross_size = 1;
  std::string hostname;
  std::vector<std::string> hosts;  // hosts[r] = hostname of rank r (filled by connect() from the store)
  // A process set's communicator numbers its members 0..; job_ranks[r] is member r's rank in the job, how errors
  // name it (what hvd.rank() says there). Empty: this communicator's ranks are the job's.
  std::vector<int> job_ranks;
};

// How errors name rank `r` of a communicator with topology `t`: its rank in the job.
inline int job_rank(const Topology& t, int r) {
  return r >= 0 && static_cast<std::size_t>(r) < t.job_ranks.size() ? t.job_ranks[static_cast<std::size_t>(r)] : r;
}

// One buffer of an allreduce over several: `count` elements of the call's dtype at `data`.
struct MutableBuffer {
  void* data = nullptr;
  std::size_t count = 0;
};

struct CommunicatorOptions {
  std::string secret;        // raw job secret: authenticates every data-plane connection
  std::string bind_address;  // HVD_DATA_ADDR, or empty for all interfaces / auto
  std::chrono::milliseconds connect_timeout{30000};
  // Tuning (0 = the measured defaults in connect.cc): bytes per shared-memory slot buffer (each rank has two),
  // and the largest allreduce that takes the one-barrier shared-memory path.
  std::size_t shm_chunk_bytes = 0;
  std::size_t shm_small_allreduce_bytes = 0;
  // Whether ranks sharing a host each take their own share of its cores (shm/cpu_binding.h).
  CpuBind cpu_bind = CpuBind::kNone;
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual const Topology& topology() const = 0;

  // In place on `count` elements. op is kSum, kMin, kMax or kProduct (Average/scaling are the engine's job:
  // it scales before/after). float16/bfloat16 are reduced through float arithmetic.
  virtual void allreduce(void* data, std::size_t count, DataType dtype, ReduceOp op) = 0;
  // allreduce in place on each buffer, with the results (bit for bit) of one allreduce over the buffers
  // concatenated in order. Buffers may be empty; they must not overlap. The default packs into a scratch buffer
  // this communicator keeps (grows, never shrinks), allreduces and unpacks; shared memory reads and writes the
  // buffers directly, so that a fused step costs the copies of one allreduce.
  virtual void allreduce_buffers(std::span<const MutableBuffer> buffers, DataType dtype, ReduceOp op);
  // Rank r contributes bytes[r] bytes; `out` receives every rank's bytes concatenated in rank order. `in` may be
  // this rank's place inside `out` (in place).
  virtual void allgatherv(const void* in, void* out, const std::vector<std::size_t>& bytes) = 0;
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
  // send_bytes[r] bytes from `in` (consecutive, rank order) go to rank r; recv_bytes[r] bytes from rank r land
  // consecutively in `out`.
  virtual void alltoallv(const void* in, const std::vector<std::size_t>& send_bytes, void* out,
                         const std::vector<std::size_t>& recv_bytes) = 0;
  // `in` holds counts[0] + ... elements; rank r receives the reduction of its block (counts[r] elements) in out,
  // which must not overlap `in`.
  virtual void reducescatter(const void* in, void* out, const std::vector<std::size_t>& counts, DataType dtype,
                             ReduceOp op) = 0;
  // Adasum (Maleki et al. 2020) in place over float16/bfloat16/float32/float64.
  virtual void adasum(void* data, std::size_t count, DataType dtype) = 0;
  virtual void barrier() = 0;
  // allreduce in place among the ranks that share this rank's local rank, one per host (the "cross" group of
  // hierarchical GPU allreduce). The default serves a single host (nothing to do) and refuses otherwise.
  virtual void cross_allreduce(void* data, std::size_t count, DataType dtype, ReduceOp op);

  // Small-message helpers for the engine's negotiation: rank 0 gathers every rank's bytes (other ranks get an
  // empty vector); rank 0's bytes go to all (the argument is ignored elsewhere). Any length.
  virtual std::vector<std::string> gather_to_root(const std::string& mine) = 0;
  virtual std::string broadcast_from_root(const std::string& from_root) = 0;

  // Elastic jobs: hvdrun is re-forming the job. From any thread: the operation in flight (blocked on a peer that
  // may never answer, e.g. its host vanished without closing its sockets) and every later one fail at once with
  // ErrorKind::kMembership saying `stop` (common/stop.h). Never throws. The default (one rank, nothing ever waits)
  // does nothing.
  virtual void abort(const Stop& /*stop*/) noexcept {}

  // Process sets: a communicator over `ranks` (ranks of this one, ascending, numbered 0.. in that order), or
  // nullptr on a rank outside them. Called from a framework thread while the engine's thread runs collectives
  // here, so it must not use this communicator's links. The default connects the members afresh through `store`
  // under `key` (collective over the members only); MPI splits (collective over every rank).
  virtual std::unique_ptr<Communicator> subset(const std::vector<int>& ranks, Store& store, const std::string& key,
                                               const CommunicatorOptions& options);

 private:
  std::vector<std::byte> pack_scratch_;  // allreduce_buffers' default only
};

// Publishes this rank's data-plane address in `store`, reads everyone's, and connects the mesh (shared memory
// inside a host, TCP across hosts). Throws hvd::Error naming the ranks that did not show up within the timeout.
// Collective over all ranks. Uses keys under "comm/" in `store`; calling it again on the same store (a second
// communicator) is fine. Ranks with the same topology.hostname share memory; topology.rank and size must be
// set, the local/cross fields and hosts are recomputed from what the ranks publish.
std::unique_ptr<Communicator> connect_communicator(Store& store, Topology topology, const CommunicatorOptions& options);

}  // namespace hvd::detail
