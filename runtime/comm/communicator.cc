#include "runtime/comm/communicator.h"

#include <cstring>

#include "hvd/error.h"
#include "runtime/reduce/reduce.h"

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

void Communicator::cross_allreduce(void*, std::size_t, DataType, ReduceOp) {
  if (topology().cross_size == 1) return;
  throw Error("cross_allreduce: this communicator cannot reduce across hosts");
}

}  // namespace hvd::detail
