// The data plane of a 1-rank job: every collective is a copy or nothing. Lets init() work without a launcher,
// a store or a network, and keeps np=1 free of data-plane setup.
#pragma once

#include "runtime/comm/communicator.h"

namespace hvd::detail {

class SoloCommunicator : public Communicator {
 public:
  explicit SoloCommunicator(Topology topology);
  const Topology& topology() const override { return topology_; }
  void allreduce(void*, std::size_t, DataType, ReduceOp) override {}
  void allgatherv(const void* in, void* out, const std::vector<std::size_t>& bytes) override;
  void broadcast(void*, std::size_t, int) override {}
  void alltoallv(const void* in, const std::vector<std::size_t>& send_bytes, void* out,
                 const std::vector<std::size_t>& recv_bytes) override;
  void reducescatter(const void* in, void* out, const std::vector<std::size_t>& counts, DataType dtype,
                     ReduceOp op) override;
  void adasum(void*, std::size_t, DataType) override {}
  void barrier() override {}
  std::vector<std::string> gather_to_root(const std::string& mine) override { return {mine}; }
  std::string broadcast_from_root(const std::string& from_root) override { return from_root; }

 private:
  Topology topology_;
};

}  // namespace hvd::detail
