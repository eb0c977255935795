#include "runtime/comm/hierarchical.h"

#include <algorithm>

#include "runtime/reduce/reduce.h"

namespace hvd::detail {

HierarchicalCommunicator::HierarchicalCommunicator(Topology topology, std::unique_ptr<TcpMesh> mesh,
                                                   std::unique_ptr<ShmCommunicator> local, std::vector<int> leaders)
    : TcpCommunicator(std::move(topology), std::move(mesh)), local_(std::move(local)), leaders_(std::move(leaders)) {}

void HierarchicalCommunicator::allreduce(void* data, std::size_t count, DataType dtype, ReduceOp op) {
  guarded("allreduce", [&] {
    local_->allreduce(data, count, dtype, op);
    if (topology_.local_rank == 0) {
      auto me = std::find(leaders_.begin(), leaders_.end(), topology_.rank) - leaders_.begin();
      SubLinks links(*mesh_, leaders_, static_cast<int>(me));
      if (count * size_of(dtype) < kTreeAllreduceBytes && links.size() > 2) {
        tree_allreduce(links, data, count, dtype, op, scratch_);
      } else {
        ring_allreduce(links, data, count, dtype, op, scratch_);
      }
    }
    local_->broadcast(data, count * size_of(dtype), 0);
  });
}

void HierarchicalCommunicator::on_failure(const std::string& reason) noexcept {
  if (auto* g = local_->group()) g->abort(reason);
}

}  // namespace hvd::detail
