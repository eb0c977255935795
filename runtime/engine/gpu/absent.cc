// The GPU backend of a build without CUDA and NCCL: every GPU tensor fails with a message that says how to get
// one, on every rank alike (so nobody waits for a peer's data).
#include <string>

#include "hvd/error.h"
#include "runtime/engine/gpu/gpu_backend.h"

namespace hvd::detail {
namespace {

class AbsentGpuBackend final : public GpuBackend {
 public:
  explicit AbsentGpuBackend(const Topology& topology) : topology_(topology) {}

  void execute(const Response& r, GpuEntries entries) override {
    for (auto& e : entries) {
      if (!e) continue;
      e->handle->complete_one(std::make_exception_ptr(
          Error(std::string(name_of(r.type)) + " '" + e->request.name + "': GPU tensor on device " +
                std::to_string(e->input.device.index) + " but this build of hvd has no NCCL (rank " +
                std::to_string(topology_.rank) + ", host " + topology_.hostname +
                "): rebuild with CUDA and NCCL (-DHVD_WITH_NCCL=ON), or copy the tensor to the CPU")));
    }
  }

 private:
  Topology topology_;
};

}  // namespace

std::unique_ptr<GpuBackend> make_gpu_backend(Communicator& cpu, const Config&) {
  return std::make_unique<AbsentGpuBackend>(cpu.topology());
}

bool gpu_backend_built() { return false; }

}  // namespace hvd::detail
