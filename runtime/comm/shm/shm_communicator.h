// Communicator for ranks that all share one host: every collective goes through the host group's
// shared-memory slots (shm/group.h), chunk by chunk, in rounds that alternate the two slot buffers.
//  allreduce  (and allreduce_buffers, which reads and writes the caller's buffers as if they were one) small: each rank
//  copies its input into its slot, one barrier, every rank reduces all slots
//             (rank order, so every rank gets bit-identical results); large: per chunk, each rank copies in the
//             parts the others own, barrier, reduces its own part straight from its input and the peers' slots,
//             barrier, copies the others' reduced parts out (1 + 2/n copies of the data per rank, no scratch).
//  reducescatter, allgatherv, broadcast, alltoallv, gather/broadcast of small messages: copy in, barrier, copy
//             out. adasum: allgather into a scratch buffer, then the same combination tree as the TCP version.
// Size 1 needs no segment: every op is a copy.
#pragma once

#include <exception>
#include <memory>
#include <string>

#include "runtime/comm/communicator.h"
#include "runtime/comm/shm/group.h"

namespace hvd::detail {

class ShmCommunicator : public Communicator {
 public:
  // group is null for a 1-rank job.
  ShmCommunicator(Topology topology, std::unique_ptr<ShmGroup> group, std::size_t small_allreduce_bytes);

  const Topology& topology() const override { return topology_; }
  void allreduce(void* data, std::size_t count, DataType dtype, ReduceOp op) override;
  void allreduce_buffers(std::span<const MutableBuffer> buffers, DataType dtype, ReduceOp op) override;
  void allgatherv(const void* in, void* out, const std::vector<std::size_t>& bytes) override;
  void broadcast(void* data, std::size_t bytes, int root) override;
  void alltoallv(const void* in, const std::vector<std::size_t>& send_bytes, void* out,
                 const std::vector<std::size_t>& recv_bytes) override;
  void reducescatter(const void* in, void* out, const std::vector<std::size_t>& counts, DataType dtype,
                     ReduceOp op) override;
  void adasum(void* data, std::size_t count, DataType dtype) override;
  void barrier() override;
  std::vector<std::string> gather_to_root(const std::string& mine) override;
  std::string broadcast_from_root(const std::string& from_root) override;
  void abort(const Stop& stop) noexcept override {
    if (group_) group_->interrupt(stop);
  }

  ShmGroup* group() { return group_.get(); }

 private:
  // Runs body; on failure marks the group failed (so the peers stop too) and rethrows.
  template <class F>
  void guarded(const char* op, F&& body);
  // Views of the data an allreduce reads and writes: one buffer, or several seen as one (allreduce_buffers).
  class OneBuffer;
  class Pieces;
  template <class View>
  void allreduce_view(const View& data, std::size_t count, DataType dtype, ReduceOp op);
  template <class View>
  void allreduce_small(const View& data, std::size_t count, DataType dtype, ReduceOp op);
  template <class View>
  void allreduce_large(const View& data, std::size_t count, DataType dtype, ReduceOp op);

  Topology topology_;
  std::unique_ptr<ShmGroup> group_;
  std::size_t small_bytes_;
  std::vector<std::byte> scratch_;   // adasum only; grows, never shrinks
  std::vector<std::size_t> starts_;  // allreduce: first element of each buffer; grows, never shrinks
};

template <class F>
void ShmCommunicator::guarded(const char* op, F&& body) {
  group_->check(op);
  try {
    body();
  } catch (const std::exception& e) {
    group_->abort(std::string(op) + " on " + describe(group_->peer(group_->rank())) + ": " + e.what());
    throw;
  }
}

}  // namespace hvd::detail
