#include "runtime/comm/solo_communicator.h"

#include <cstring>

namespace hvd::detail {

SoloCommunicator::SoloCommunicator(Topology topology) : topology_(std::move(topology)) {
  topology_.rank = topology_.local_rank = topology_.cross_rank = 0;
  topology_.size = topology_.local_size = topology_.cross_size = 1;
  topology_.hosts = {topology_.hostname};
}

void SoloCommunicator::allgatherv(const void* in, void* out, const std::vector<std::size_t>& bytes) {
  if (in != out && bytes.at(0) > 0) std::memmove(out, in, bytes[0]);
}

void SoloCommunicator::alltoallv(const void* in, const std::vector<std::size_t>& send_bytes, void* out,
                                 const std::vector<std::size_t>&) {
  if (in != out && send_bytes.at(0) > 0) std::memmove(out, in, send_bytes[0]);
}

void SoloCommunicator::reducescatter(const void* in, void* out, const std::vector<std::size_t>& counts, DataType dtype,
                                     ReduceOp) {
  std::size_t bytes = counts.at(0) * size_of(dtype);
  if (in != out && bytes > 0) std::memmove(out, in, bytes);
}

}  // namespace hvd::detail
