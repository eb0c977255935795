// The GPU backend over NCCL. Per device this rank uses: the NCCL communicators (nccl_setup.h), a stream, a fusion
// buffer and a scratch buffer. execute() enqueues a response's work on the stream, records an event and hands it
// with the entries to the completion thread; it blocks only for hierarchical allreduce, whose cross-host step
// runs on the CPU communicator (which only this thread may use).
// Each rank uses one GPU. Contexts are keyed by device and made at the first response on that device, which is a
// collective step: a rank that moves to another device must do so at the same step as every other rank.
// A rank's own failure after other ranks have enqueued their part (a bad pointer, an allocator that throws) may
// leave their NCCL calls waiting; the launcher then ends the job when a process fails.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/engine/gpu/cuda_resources.h"
#include "runtime/engine/gpu/nccl_setup.h"
#include "runtime/engine/gpu/completion_thread.h"
#include "runtime/engine/gpu/gpu_backend.h"
#include "runtime/engine/gpu/gpu_plan.h"

namespace hvd::detail {

class NcclBackend final : public GpuBackend {
 public:
  NcclBackend(Communicator& cpu, const Config& config);
  ~NcclBackend() override;
  void execute(const Response& response, GpuEntries entries) override;

 private:
  struct Context {
    int device = 0;
    NcclSetup comms;
    CudaStream stream;
    DeviceBuffer fusion;          // packed inputs (fused allreduce and reducescatter)
    DeviceBuffer scratch;         // fused reducescatter outputs, a joined rank's broadcast
    std::vector<std::byte> host;  // hierarchical allreduce: this rank's block on its way across hosts
  };
  // One response on its way to the stream.
  struct Op {
    const Response& r;
    GpuEntries& es;
    Context& ctx;
    std::string where;
    std::vector<std::exception_ptr> errors;   // per entry: this rank's own failures
    std::vector<std::shared_ptr<void>> keep;  // fallback outputs, alive until the device is done
    ncclComm_t comm() const { return ctx.comms.global.get(); }
    cudaStream_t stream() const { return ctx.stream.get(); }
  };

  int device_for(const GpuEntries& es) const;
  Context& context_for(int device);
  void* output_for(Op& op, std::size_t i, const Shape& shape);
  void copy(Op& op, void* to, const void* from, std::size_t bytes);
  void zero(Op& op, void* to, std::size_t bytes);
  // Hands the response to the completion thread behind an event recorded on the stream now.
  void complete_after_stream(Op& op, int device);

  // The response's collective on the stream (one of those below).
  void enqueue(Op& op);

  // nccl_collectives.cc
  void allreduce(Op& op);
  void hierarchical_allreduce(Op& op, std::byte* buf, std::size_t count, GpuReducePlan plan);
  void reducescatter(Op& op);
  void allgather(Op& op);
  void broadcast(Op& op);
  void alltoall(Op& op);

  Communicator& cpu_;
  Topology topology_;
  bool want_hierarchical_;
  std::string setup_failure_;  // the same on every rank: once set, GPU responses fail with it
  std::map<int, std::unique_ptr<Context>> contexts_;
  int last_device_ = -1;
  CompletionThread completions_;  // last: destroyed first, so it finishes the work before the contexts go
};

}  // namespace hvd::detail
