#include "bench_memory.h"
#include "hvd/error.h"

namespace {
[[noreturn]] void refuse() {
  throw hvd::Error("hvd-bench --gpu: this build of hvd has no NCCL (rebuild with CUDA and NCCL, -DHVD_WITH_NCCL=ON)");
}
}  // namespace

int bench_device() { refuse(); }
DeviceMemory::DeviceMemory(std::size_t) { refuse(); }
DeviceMemory::~DeviceMemory() = default;
void DeviceMemory::upload(const void*, std::size_t) { refuse(); }
void DeviceMemory::download(void*, std::size_t) const { refuse(); }
