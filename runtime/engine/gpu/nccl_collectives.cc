// NcclBackend's collectives: each enqueues one response's work on the context's stream. Fused responses pack
// into the device fusion buffer (one NCCL call, then unpack); a joined rank (entry missing) contributes zeros.
// Data movement (allgather, broadcast, alltoall) goes as bytes, so every dtype works; uneven blocks use a group
// of broadcasts, reduces or sends/receives, one per rank.
#include <algorithm>

#include "hvd/error.h"
#include "runtime/engine/gpu/cuda_error.h"
#include "runtime/engine/gpu/nccl_backend.h"
#include "runtime/engine/gpu/nccl_types.h"
#include "runtime/engine/layout.h"
#include "runtime/reduce/reduce.h"

namespace hvd::detail {
namespace {

std::size_t elements(const Shape& shape) { return static_cast<std::size_t>(num_elements(shape)); }

// Ends an NCCL group even when a call inside it throws, so the next response does not land in this group.
class NcclGroup {
 public:
  explicit NcclGroup(const std::string& where) : where_(where) {
    check_nccl(ncclGroupStart(), "ncclGroupStart", nullptr, where_);
  }
  void end() {
    open_ = false;
    check_nccl(ncclGroupEnd(), "ncclGroupEnd", nullptr, where_);
  }
  ~NcclGroup() {
    if (open_) ncclGroupEnd();
  }

 private:
  const std::string& where_;
  bool open_ = true;
};

// Reduces rank q's block of `in` (counts[q] elements, in rank order) into `recv` on rank q: one ncclReduceScatter
// when the blocks are even, else one ncclReduce per rank in one group.
void reduce_scatter_blocks(const void* in, void* recv, const std::vector<std::size_t>& counts, std::size_t dsize,
                           ncclDataType_t type, ncclRedOp_t red, ncclComm_t comm, cudaStream_t stream,
                           const std::string& where) {
  if (std::all_of(counts.begin(), counts.end(), [&](std::size_t c) { return c == counts[0]; })) {
    check_nccl(ncclReduceScatter(in, recv, counts[0], type, red, comm, stream), "ncclReduceScatter", comm, where);
    return;
  }
  NcclGroup group(where);
  std::size_t off = 0;
  for (std::size_t q = 0; q < counts.size(); ++q) {
    if (counts[q] > 0) {
      check_nccl(ncclReduce(static_cast<const std::byte*>(in) + off, recv, counts[q], type, red, static_cast<int>(q),
                            comm, stream),
                 "ncclReduce", comm, where);
    }
    off += counts[q] * dsize;
  }
  group.end();
}

}  // namespace

void NcclBackend::allreduce(Op& op) {
  const Response& r = op.r;
  const std::size_t dsize = size_of(r.dtype);
  const auto type = nccl_type(r.dtype);
  GpuReducePlan plan = plan_gpu_reduction(r, topology_.size);
  std::size_t total = 0;
  for (const auto& s : r.shapes) total += elements(s);
  if (total == 0) return;
  // Integer average divides once, by the whole job: it cannot be split into a local and a cross step.
  const bool hierarchical = op.ctx.comms.local && (plan.op != GpuReduction::kAverage || is_floating(r.dtype));
  if (op.es.size() == 1 && op.es[0] && !hierarchical) {
    ReductionOp red(plan, r.dtype, op.comm(), op.where);
    check_nccl(
        ncclAllReduce(op.es[0]->input.data, op.es[0]->output.data, total, type, red.get(), op.comm(), op.stream()),
        "ncclAllReduce", op.comm(), op.where);
    return;
  }
  const std::size_t block = hierarchical ? (total + topology_.local_size - 1) / topology_.local_size : 0;
  const std::size_t padded = hierarchical ? block * topology_.local_size : total;
  std::byte* buf = op.ctx.fusion.reserve(padded * dsize, op.stream(), op.where);
  std::size_t off = 0;
  for (std::size_t i = 0; i < op.es.size(); ++i) {
    const std::size_t bytes = elements(r.shapes[i]) * dsize;
    if (op.es[i])
      copy(op, buf + off, op.es[i]->input.data, bytes);
    else
      zero(op, buf + off, bytes);
    off += bytes;
  }
  zero(op, buf + off, (padded - total) * dsize);
  if (hierarchical) {
    hierarchical_allreduce(op, buf, padded, plan);
  } else {
    ReductionOp red(plan, r.dtype, op.comm(), op.where);
    check_nccl(ncclAllReduce(buf, buf, total, type, red.get(), op.comm(), op.stream()), "ncclAllReduce", op.comm(),
               op.where);
  }
  off = 0;
  for (std::size_t i = 0; i < op.es.size(); ++i) {
    const std::size_t bytes = elements(r.shapes[i]) * dsize;
    if (op.es[i]) copy(op, op.es[i]->output.data, buf + off, bytes);
    off += bytes;
  }
}

// Reduce-scatter among the ranks of this host, allreduce of this rank's block with the ranks of the same local
// rank on the other hosts (CPU communicator), allgather among the ranks of this host. `count` divides by
// local_size. Blocks this thread on the stream for the CPU step.
void NcclBackend::hierarchical_allreduce(Op& op, std::byte* buf, std::size_t count, GpuReducePlan plan) {
  const Response& r = op.r;
  const std::size_t dsize = size_of(r.dtype);
  const auto type = nccl_type(r.dtype);
  ncclComm_t local = op.ctx.comms.local.get();
  if (plan.op == GpuReduction::kAverage) {  // ncclAvg would divide by the host's ranks only
    plan.op = GpuReduction::kPreMulSum;
    plan.factor = 1.0 / topology_.size;
  }
  const std::size_t block = count / static_cast<std::size_t>(topology_.local_size);
  std::byte* mine = buf + static_cast<std::size_t>(topology_.local_rank) * block * dsize;
  {
    ReductionOp red(plan, r.dtype, local, op.where);
    check_nccl(ncclReduceScatter(buf, mine, block, type, red.get(), local, op.stream()), "ncclReduceScatter (host)",
               local, op.where);
  }
  op.ctx.host.resize(block * dsize);
  check_cuda(cudaMemcpyAsync(op.ctx.host.data(), mine, block * dsize, cudaMemcpyDeviceToHost, op.stream()),
             "cudaMemcpyAsync to the host", op.where);
  check_cuda(cudaStreamSynchronize(op.stream()), "cudaStreamSynchronize", op.where);
  cpu_.cross_allreduce(op.ctx.host.data(), block, r.dtype, plan.cross_op);
  check_cuda(cudaMemcpyAsync(mine, op.ctx.host.data(), block * dsize, cudaMemcpyHostToDevice, op.stream()),
             "cudaMemcpyAsync from the host", op.where);
  check_nccl(ncclAllGather(mine, buf, block, type, local, op.stream()), "ncclAllGather (host)", local, op.where);
}

void NcclBackend::reducescatter(Op& op) {
  const Response& r = op.r;
  const int size = topology_.size, rank = topology_.rank;
  const std::size_t dsize = size_of(r.dtype), k = op.es.size();
  std::vector<std::size_t> row_elems(k), counts(static_cast<std::size_t>(size), 0);
  std::size_t total = 0;
  for (std::size_t i = 0; i < k; ++i) {
    row_elems[i] = elements(tail(r.shapes[i]));
    total += elements(r.shapes[i]);
    for (int q = 0; q < size; ++q)
      counts[q] += static_cast<std::size_t>(rows_of(r.shapes[i][0], q, size)) * row_elems[i];
  }
  std::vector<void*> outs(k);
  for (std::size_t i = 0; i < k; ++i) {
    auto shape = r.shapes[i];
    shape[0] = rows_of(shape[0], rank, size);
    outs[i] = output_for(op, i, shape);
  }
  if (total == 0) return;
  const void* in;
  if (k == 1 && op.es[0]) {
    in = op.es[0]->input.data;
  } else {
    // Pack so that rank q's block holds every tensor's rows for q, in tensor order.
    std::byte* buf = op.ctx.fusion.reserve(total * dsize, op.stream(), op.where);
    std::size_t off = 0;
    for (int q = 0; q < size; ++q) {
      for (std::size_t i = 0; i < k; ++i) {
        const std::size_t bytes = static_cast<std::size_t>(rows_of(r.shapes[i][0], q, size)) * row_elems[i] * dsize;
        const std::size_t from = static_cast<std::size_t>(first_row(r.shapes[i][0], q, size)) * row_elems[i] * dsize;
        if (op.es[i])
          copy(op, buf + off, static_cast<const std::byte*>(op.es[i]->input.data) + from, bytes);
        else
          zero(op, buf + off, bytes);
        off += bytes;
      }
    }
    in = buf;
  }
  void* recv =
      k == 1 ? outs[0] : op.ctx.scratch.reserve(std::max<std::size_t>(counts[rank], 1) * dsize, op.stream(), op.where);
  const auto type = nccl_type(r.dtype);
  ReductionOp red(plan_gpu_reduction(r, size), r.dtype, op.comm(), op.where);
  reduce_scatter_blocks(in, recv, counts, dsize, type, red.get(), op.comm(), op.stream(), op.where);
  if (k == 1) return;
  std::size_t off = 0;
  for (std::size_t i = 0; i < k; ++i) {
    const std::size_t bytes = static_cast<std::size_t>(rows_of(r.shapes[i][0], rank, size)) * row_elems[i] * dsize;
    if (op.es[i]) copy(op, outs[i], static_cast<std::byte*>(recv) + off, bytes);
    off += bytes;
  }
}

void NcclBackend::allgather(Op& op) {
  const int size = topology_.size, rank = topology_.rank;
  const AllgatherLayout l = allgather_layout(op.r, size);
  const auto& bytes = l.bytes;
  auto* out = static_cast<std::byte*>(output_for(op, 0, l.output_shape));
  const void* in = op.es[0] ? op.es[0]->input.data : nullptr;
  if (l.empty) return;
  if (std::all_of(bytes.begin(), bytes.end(), [&](std::size_t b) { return b == bytes[0]; })) {
    check_nccl(ncclAllGather(in, out, bytes[0], ncclUint8, op.comm(), op.stream()), "ncclAllGather", op.comm(),
               op.where);
    return;
  }
  NcclGroup group(op.where);
  std::size_t off = 0;
  for (int q = 0; q < size; ++q) {
    if (bytes[q] > 0) {
      const void* send = q == rank ? in : out + off;  // only the root's send buffer is read
      check_nccl(ncclBroadcast(send, out + off, bytes[q], ncclUint8, q, op.comm(), op.stream()), "ncclBroadcast",
                 op.comm(), op.where);
    }
    off += bytes[q];
  }
  group.end();
}

void NcclBackend::broadcast(Op& op) {
  const Response& r = op.r;
  const std::size_t bytes = elements(r.shapes[0]) * size_of(r.dtype);
  if (bytes == 0) return;
  void* out = op.es[0] ? op.es[0]->output.data : op.ctx.scratch.reserve(bytes, op.stream(), op.where);
  const void* in = op.es[0] ? op.es[0]->input.data : out;
  check_nccl(ncclBroadcast(in, out, bytes, ncclUint8, r.root, op.comm(), op.stream()), "ncclBroadcast", op.comm(),
             op.where);
}

void NcclBackend::alltoall(Op& op) {
  const int size = topology_.size, rank = topology_.rank;
  const AlltoallLayout l = alltoall_layout(op.r, rank, size);
  const auto& send = l.send_bytes;
  const auto& recv = l.recv_bytes;
  auto* out = static_cast<std::byte*>(output_for(op, 0, l.output_shape));
  if (op.es[0]) op.es[0]->handle->received_splits = l.received_rows;
  const auto* in = static_cast<const std::byte*>(op.es[0]->input.data);  // validation refuses joined ranks
  std::size_t send_off = 0, recv_off = 0;
  NcclGroup group(op.where);
  for (int q = 0; q < size; ++q) {
    if (q == rank) {
      copy(op, out + recv_off, in + send_off, send[q]);
    } else {
      if (send[q] > 0)
        check_nccl(ncclSend(in + send_off, send[q], ncclUint8, q, op.comm(), op.stream()), "ncclSend", op.comm(),
                   op.where);
      if (recv[q] > 0)
        check_nccl(ncclRecv(out + recv_off, recv[q], ncclUint8, q, op.comm(), op.stream()), "ncclRecv", op.comm(),
                   op.where);
    }
    send_off += send[q];
    recv_off += recv[q];
  }
  group.end();
}

}  // namespace hvd::detail
