// Collectives on GPU tensors. The engine owns one GpuBackend, made on its background thread at the first GPU
// response (every rank executes responses in the same order, so the backend's collective setup lines up).
// Which implementation exists is CMake's choice of source file: engine/gpu/nccl_backend.cc when hvd is built
// with CUDA and NCCL, engine/gpu/absent.cc otherwise (it fails GPU tensors with a message saying so).
// Contract:
//  - execute() is called from the engine's background thread only, for responses with device == kGPU and no
//    error, with this rank's entries (nullopt for a joined rank: it contributes zeros);
//  - it never blocks on the device: it enqueues the work and returns; the entries' handles complete later, on
//    the backend's own thread, once the device is done (or fail with hvd::Error naming rank, host and tensor);
//  - a failure during setup fails that response's handles; the engine keeps running for CPU tensors.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "runtime/comm/communicator.h"
#include "runtime/comm/config.h"
#include "runtime/engine/message.h"
#include "runtime/engine/tensor_queue.h"

namespace hvd::detail {

using GpuEntries = std::vector<std::optional<TensorEntry>>;

class GpuBackend {
 public:
  virtual ~GpuBackend() = default;  // waits for the work in flight and completes its handles
  virtual void execute(const Response& response, GpuEntries entries) = 0;
};

// `cpu` carries the setup messages (NCCL ids) and the cross-host step of hierarchical allreduce; it must outlive
// the backend.
std::unique_ptr<GpuBackend> make_gpu_backend(Communicator& cpu, const Config& config);
// Whether this build has the NCCL implementation (hvd::nccl_built()).
bool gpu_backend_built();

}  // namespace hvd::detail
