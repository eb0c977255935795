// Communicator over a full TCP mesh (tcp/mesh.h) running the generic algorithms (algo/algorithms.h): used when
// ranks span hosts. allreduce: binomial tree under kTreeAllreduceBytes with more than two ranks, else the
// pipelined ring. Any failure fails the mesh, so every later call, here and on the peers, fails too.
#pragma once

#include <memory>

#include "hvd/error.h"
#include "runtime/comm/algo/algorithms.h"
#include "runtime/comm/communicator.h"
#include "runtime/comm/tcp/mesh.h"

namespace hvd::detail {

inline constexpr std::size_t kTreeAllreduceBytes = 64u << 10;

class TcpCommunicator : public Communicator {
 public:
  TcpCommunicator(Topology topology, std::unique_ptr<TcpMesh> mesh);

  const Topology& topology() const override { return topology_; }
  void allreduce(void* data, std::size_t count, DataType dtype, ReduceOp op) override;
  void allgatherv(const void* in, void* out, const std::vector<std::size_t>& bytes) override;
  void broadcast(void* data, std::size_t bytes, int root) override;
  void alltoallv(const void* in, const std::vector<std::size_t>& send_bytes, void* out,
                 const std::vector<std::size_t>& recv_bytes) override;
  void reducescatter(const void* in, void* out, const std::vector<std::size_t>& counts, DataType dtype,
                     ReduceOp op) override;
  void adasum(void* data, std::size_t count, DataType dtype) override;
  void barrier() override;
  void cross_allreduce(void* data, std::size_t count, DataType dtype, ReduceOp op) override;
  std::vector<std::string> gather_to_root(const std::string& mine) override;
  std::string broadcast_from_root(const std::string& from_root) override;
  void abort(const Stop& stop) noexcept override { mesh_->abort(stop); }

 protected:
  // Runs body; a failure fails the mesh (and whatever on_failure adds) and is rethrown naming this rank and op.
  template <class F>
  void guarded(const char* op, F&& body);
  virtual void on_failure(const std::string& /*reason*/) noexcept {}

  Topology topology_;
  std::unique_ptr<TcpMesh> mesh_;
  Scratch scratch_;
  std::vector<int> cross_members_;  // cross_allreduce's group: global ranks, found at its first call
  int cross_index_ = -1;            // this rank's place in it
};

template <class F>
void TcpCommunicator::guarded(const char* op, F&& body) {
  const std::string where =
      std::string(op) + " on rank " + std::to_string(job_rank(topology_, topology_.rank)) + " (" + topology_.hostname +
      ") failed: ";
  try {
    mesh_->check();
    body();
  } catch (const std::exception& e) {
    std::string reason = e.what();
    mesh_->fail(reason);
    on_failure(reason);
    // A failed link is a lost peer unless the error already says what it is.
    const auto* known = dynamic_cast<const Error*>(&e);
    const bool classified = known && known->kind() != ErrorKind::kInternal;
    throw Error(classified ? known->kind() : ErrorKind::kPeerLost, where + reason,
                {.rank = job_rank(topology_, topology_.rank),
                 .host = topology_.hostname,
                 .peer = known ? known->context().peer : -1});
  }
}

}  // namespace hvd::detail
