#include "runtime/engine/gpu/nccl_backend.h"

#include "hvd/error.h"
#include "runtime/engine/gpu/cuda_error.h"

namespace hvd::detail {
namespace {

std::string describe(const Response& r) {
  std::string s = std::string(name_of(r.type)) + " '" + r.names.front() + "'";
  if (r.names.size() > 1) s += " (+" + std::to_string(r.names.size() - 1) + " fused)";
  return s;
}

}  // namespace

std::unique_ptr<GpuBackend> make_gpu_backend(Communicator& cpu, const Config& config) {
  return std::make_unique<NcclBackend>(cpu, config);
}

bool gpu_backend_built() { return true; }

NcclBackend::NcclBackend(Communicator& cpu, const Config& config)
    : cpu_(cpu), topology_(cpu.topology()), want_hierarchical_(config.hierarchical_allreduce) {}

NcclBackend::~NcclBackend() {
  completions_.stop();  // every handle completes, and the device is done, before the buffers and comms go
  // The engine may be destroyed on any thread: make each context's device current while its memory, stream and
  // communicators are freed (cudaFree on another device's memory, or a context made on device 0 otherwise).
  int previous = -1;
  if (cudaGetDevice(&previous) != cudaSuccess) cudaGetLastError();
  for (auto& [device, ctx] : contexts_) {
    if (cudaSetDevice(device) != cudaSuccess) cudaGetLastError();
    ctx.reset();
  }
  if (previous >= 0 && !contexts_.empty()) cudaSetDevice(previous);
}

int NcclBackend::device_for(const GpuEntries& es) const {
  for (const auto& e : es) {
    if (e) return e->input.device.index;
  }
  // A joined rank: the device it used last, else the usual one for its local rank.
  if (last_device_ >= 0) return last_device_;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    return 0;  // setup reports the missing device
  }
  return topology_.local_rank % count;
}

NcclBackend::Context& NcclBackend::context_for(int device) {
  if (auto it = contexts_.find(device); it != contexts_.end()) return *it->second;
  auto ctx = std::make_unique<Context>();
  ctx->device = device;
  try {
    ctx->comms = setup_nccl(cpu_, device, want_hierarchical_);
    DeviceGuard guard(device, "NCCL setup");
    ctx->stream = CudaStream("creating the NCCL stream on device " + std::to_string(device));
  } catch (const Error& e) {
    // Sticky: setup is collective, so it is not retried at a later response (the other ranks would not join).
    setup_failure_ = e.what();
    throw;
  }
  return *contexts_.emplace(device, std::move(ctx)).first->second;
}

void NcclBackend::execute(const Response& r, GpuEntries es) {
  const std::string what = describe(r);
  auto fail_all = [&](const std::exception_ptr& error) {
    for (auto& e : es) {
      if (e) e->handle->complete_one(error);
    }
  };
  const int device = device_for(es);
  for (const auto& e : es) {
    if (e && e->input.device.index != device) {
      // Only this rank knows: its peers' NCCL calls for this response will wait (see nccl_backend.h). One GPU
      // per rank is the documented rule; the message says so.
      fail_all(std::make_exception_ptr(Error(what + ": tensors on devices " + std::to_string(device) + " and " +
                                             std::to_string(e->input.device.index) + " in one step of rank " +
                                             std::to_string(topology_.rank) + "; hvd uses one GPU per rank")));
      return;
    }
  }
  Context* ctx = nullptr;
  std::string reason = setup_failure_;
  if (reason.empty()) {
    try {
      ctx = &context_for(device);
    } catch (const Error& e) {
      reason = e.what();
    }
  }
  if (!ctx) {
    for (auto& e : es) {
      if (!e) continue;
      e->handle->complete_one(
          std::make_exception_ptr(Error(std::string(name_of(r.type)) + " '" + e->request.name +
                                        "': GPU tensor on device " + std::to_string(device) + " but " + reason)));
    }
    return;
  }
  last_device_ = device;
  std::string where = what + " on rank " + std::to_string(topology_.rank) + " (host " + topology_.hostname +
                      "), device " + std::to_string(device);
  Op op{r, es, *ctx, std::move(where), std::vector<std::exception_ptr>(es.size()), {}};
  try {
    DeviceGuard guard(device, op.where);
    enqueue(op);
    complete_after_stream(op, device);
  } catch (...) {
    const auto error = std::current_exception();
    // Part of the response may already be on the stream, reading the inputs and writing the outputs and the
    // fallback buffers: the handles fail once the stream has passed it, so nothing is freed or reused under the
    // device. Only when even that fails (a broken stream) do they fail at once.
    try {
      DeviceGuard guard(device, op.where);
      op.errors.assign(op.errors.size(), error);
      complete_after_stream(op, device);
    } catch (...) {
      fail_all(error);
    }
  }
}

void NcclBackend::enqueue(Op& op) {
  switch (op.r.type) {
    case OpType::kAllreduce:
      allreduce(op);
      break;
    case OpType::kReducescatter:
      reducescatter(op);
      break;
    case OpType::kAllgather:
      allgather(op);
      break;
    case OpType::kBroadcast:
      broadcast(op);
      break;
    case OpType::kAlltoall:
      alltoall(op);
      break;
    case OpType::kBarrier:
    case OpType::kJoin:
      break;
  }
}

void NcclBackend::complete_after_stream(Op& op, int device) {
  CompletionThread::Item item;
  item.device = device;
  item.done = CudaEvent(op.where);
  check_cuda(cudaEventRecord(item.done.get(), op.stream()), "cudaEventRecord", op.where);
  item.comms.push_back(op.comm());
  if (op.ctx.comms.local) item.comms.push_back(op.ctx.comms.local.get());
  item.errors = std::move(op.errors);
  item.keep = std::move(op.keep);
  item.where = op.where;
  item.entries = std::move(op.es);
  completions_.push(std::move(item));
}

void* NcclBackend::output_for(Op& op, std::size_t i, const Shape& shape) {
  const std::size_t bytes = static_cast<std::size_t>(num_elements(shape)) * size_of(op.r.dtype);
  auto& e = op.es[i];
  if (e && !op.errors[i]) {
    try {
      void* p;
      if (e->allocate) {
        p = e->allocate(op.r.dtype, shape);
        if (!p && bytes > 0)
          throw Error(ErrorKind::kUsage, "the output allocator returned null for " + shape_string(shape));
      } else {
        e->handle->owned_device_output = allocate_device_output(bytes, op.where);
        p = e->handle->owned_device_output.get();
      }
      e->handle->output = TensorView{p, op.r.dtype, shape, e->input.device};
      return p;
    } catch (...) {
      op.errors[i] = std::current_exception();
    }
  }
  // A joined rank, or this rank's allocator failed: it takes part all the same, into memory nobody reads.
  op.keep.push_back(allocate_device_output(bytes, op.where));
  return op.keep.back().get();
}

void NcclBackend::copy(Op& op, void* to, const void* from, std::size_t bytes) {
  if (bytes == 0 || to == from) return;
  check_cuda(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDefault, op.stream()), "cudaMemcpyAsync", op.where);
}

void NcclBackend::zero(Op& op, void* to, std::size_t bytes) {
  if (bytes == 0) return;
  check_cuda(cudaMemsetAsync(to, 0, bytes, op.stream()), "cudaMemsetAsync", op.where);
}

}  // namespace hvd::detail
