#include "runtime/comm/tcp/tcp_communicator.h"

#include <algorithm>

#include "hvd/error.h"
#include "runtime/reduce/reduce.h"

namespace hvd::detail {

TcpCommunicator::TcpCommunicator(Topology topology, std::unique_ptr<TcpMesh> mesh)
    : topology_(std::move(topology)), mesh_(std::move(mesh)) {}

void TcpCommunicator::allreduce(void* data, std::size_t count, DataType dtype, ReduceOp op) {
  guarded("allreduce", [&] {
    if (count * size_of(dtype) < kTreeAllreduceBytes && topology_.size > 2) {
      tree_allreduce(*mesh_, data, count, dtype, op, scratch_);
    } else {
      ring_allreduce(*mesh_, data, count, dtype, op, scratch_);
    }
  });
}

void TcpCommunicator::cross_allreduce(void* data, std::size_t count, DataType dtype, ReduceOp op) {
  if (topology_.cross_size == 1) return;
  if (cross_members_.empty()) {
    // The ranks with this rank's local rank, in rank order (hosts[r] is rank r's host); found once.
    for (int r = 0; r < topology_.size; ++r) {
      const auto& host = topology_.hosts[static_cast<std::size_t>(r)];
      if (std::count(topology_.hosts.begin(), topology_.hosts.begin() + r, host) != topology_.local_rank) continue;
      if (r == topology_.rank) cross_index_ = static_cast<int>(cross_members_.size());
      cross_members_.push_back(r);
    }
  }
  guarded("cross_allreduce", [&] {
    SubLinks links(*mesh_, cross_members_, cross_index_);
    ring_allreduce(links, data, count, dtype, op, scratch_);
  });
}

void TcpCommunicator::allgatherv(const void* in, void* out, const std::vector<std::size_t>& bytes) {
  if (static_cast<int>(bytes.size()) != topology_.size)
    throw Error(ErrorKind::kUsage, "allgatherv: one size per rank expected");
  guarded("allgatherv", [&] { ring_allgatherv(*mesh_, in, out, bytes); });
}

void TcpCommunicator::broadcast(void* data, std::size_t bytes, int root) {
  if (root < 0 || root >= topology_.size)
    throw Error(ErrorKind::kUsage, "broadcast: root " + std::to_string(root) + " is not a rank");
  guarded("broadcast", [&] { tree_broadcast(*mesh_, data, bytes, root); });
}

void TcpCommunicator::alltoallv(const void* in, const std::vector<std::size_t>& send_bytes, void* out,
                                const std::vector<std::size_t>& recv_bytes) {
  const int n = topology_.size, r = topology_.rank;
  if (static_cast<int>(send_bytes.size()) != n || static_cast<int>(recv_bytes.size()) != n ||
      send_bytes[r] != recv_bytes[r]) {
    throw Error(ErrorKind::kUsage, "alltoallv: split sizes do not match the " + std::to_string(n) + " ranks");
  }
  guarded("alltoallv", [&] { pairwise_alltoallv(*mesh_, in, send_bytes, out, recv_bytes); });
}

void TcpCommunicator::reducescatter(const void* in, void* out, const std::vector<std::size_t>& counts, DataType dtype,
                                    ReduceOp op) {
  if (static_cast<int>(counts.size()) != topology_.size)
    throw Error(ErrorKind::kUsage, "reducescatter: one count per rank expected");
  guarded("reducescatter", [&] { ring_reducescatter(*mesh_, in, out, counts, dtype, op, scratch_); });
}

void TcpCommunicator::adasum(void* data, std::size_t count, DataType dtype) {
  guarded("adasum", [&] { adasum_allreduce(*mesh_, data, count, dtype, scratch_); });
}

void TcpCommunicator::barrier() {
  guarded("barrier", [&] { dissemination_barrier(*mesh_); });
}

std::vector<std::string> TcpCommunicator::gather_to_root(const std::string& mine) {
  std::vector<std::string> all;
  guarded("gather", [&] { all = gather_bytes(*mesh_, mine); });
  return all;
}

std::string TcpCommunicator::broadcast_from_root(const std::string& from_root) {
  std::string s;
  guarded("broadcast_from_root", [&] { s = broadcast_bytes(*mesh_, from_root); });
  return s;
}

}  // namespace hvd::detail
