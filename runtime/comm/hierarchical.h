// Communicator for ranks on several hosts with several ranks on some host: allreduce is hierarchical (shared
// memory allreduce inside each host, an allreduce among the hosts' local rank 0 over TCP, then a shared-memory
// broadcast inside each host); every other op runs over the TCP mesh of all ranks. A failure on either side
// fails both, so ranks waiting in shared memory and ranks waiting on sockets all stop.
#pragma once

#include "runtime/comm/shm/shm_communicator.h"
#include "runtime/comm/tcp/tcp_communicator.h"

namespace hvd::detail {

class HierarchicalCommunicator : public TcpCommunicator {
 public:
  // local: this host's ranks (its topology is local: rank = local rank); leaders: global ranks of every host's
  // local rank 0, in host order.
  HierarchicalCommunicator(Topology topology, std::unique_ptr<TcpMesh> mesh, std::unique_ptr<ShmCommunicator> local,
                           std::vector<int> leaders);
  void allreduce(void* data, std::size_t count, DataType dtype, ReduceOp op) override;
  // The mesh first: the op that the shared-memory abort wakes records its failure on the mesh (guarded), and a mesh
  // not yet aborted would take it for a lost peer, so a later call would fail kPeerLost instead of kMembership.
  void abort(const Stop& stop) noexcept override {
    TcpCommunicator::abort(stop);
    local_->abort(stop);
  }

 private:
  void on_failure(const std::string& reason) noexcept override;

  std::unique_ptr<ShmCommunicator> local_;
  std::vector<int> leaders_;
};

}  // namespace hvd::detail
