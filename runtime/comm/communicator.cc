#include "runtime/comm/communicator.h"

#include <algorithm>
#include <cstring>

#include "hvd/error.h"
#include "runtime/reduce/reduce.h"
#include "store/prefix_store.h"

namespace hvd::detail {

void Communicator::allreduce_buffers(std::span<const MutableBuffer> buffers, DataType dtype, ReduceOp op) {
  if (buffers.size() == 1) return allreduce(buffers[0].data, buffers[0].count, dtype, op);
  const std::size_t es = size_of(dtype);
  std::size_t total = 0;
  for (const auto& b : buffers) total += b.count;
  if (total == 0) return;
  if (pack_scratch_.size() < total * es) pack_scratch_.resize(total * es);
  std::byte* p = pack_scratch_.data();
  for (const auto& b : buffers) {
    if (b.count) std::memcpy(p, b.data, b.count * es);
    p += b.count * es;
  }
  allreduce(pack_scratch_.data(), total, dtype, op);
  p = pack_scratch_.data();
  for (const auto& b : buffers) {
    if (b.count) std::memcpy(b.data, p, b.count * es);
    p += b.count * es;
  }
}

std::unique_ptr<Communicator> Communicator::subset(const std::vector<int>& ranks, Store& store,
                                                 const std::string& key, const CommunicatorOptions& options) {
  const auto mine = std::find(ranks.begin(), ranks.end(), topology().rank);
  if (mine == ranks.end()) return nullptr;
  Topology t;
  t.rank = static_cast<int>(mine - ranks.begin());
  t.size = static_cast<int>(ranks.size());
  t.hostname = topology().hostname;
  for (int r : ranks) t.job_ranks.push_back(job_rank(topology(), r));
  PrefixStore keys(key, store);
  CommunicatorOptions o = options;
  o.cpu_bind = CpuBind::kNone;  // the job's placement stays: a set's local numbering must not move threads
  return connect_communicator(keys, std::move(t), o);
}

void Communicator::cross_allreduce(void*, std::size_t, DataType, ReduceOp) {
  if (topology().cross_size == 1) return;
  throw Error(ErrorKind::kInternal, "cross_allreduce: this communicator cannot reduce across hosts");
}

}  // namespace hvd::detail
