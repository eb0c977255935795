#include <cuda_runtime_api.h>

#include <string>

#include "bench_memory.h"
#include "hvd/hvd.h"

namespace {
void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw hvd::Error(std::string("hvd-bench --gpu: ") + what + ": " + cudaGetErrorString(status));
}
}  // namespace

int bench_device() {
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (hvd::local_rank() >= count) {
    throw hvd::Error("hvd-bench --gpu: " + std::to_string(hvd::local_size()) + " ranks on this host but " +
                     std::to_string(count) + " CUDA device(s); NCCL needs one device per rank");
  }
  check(cudaSetDevice(hvd::local_rank()), "cudaSetDevice");
  return hvd::local_rank();
}

DeviceMemory::DeviceMemory(std::size_t bytes) {
  bench_device();
  check(cudaMalloc(&data_, bytes ? bytes : 1), "cudaMalloc");
}

DeviceMemory::~DeviceMemory() {
  if (data_) cudaFree(data_);
}

void DeviceMemory::upload(const void* host, std::size_t bytes) {
  check(cudaMemcpy(data_, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to the device");
}

void DeviceMemory::download(void* host, std::size_t bytes) const {
  check(cudaMemcpy(host, data_, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to the host");
}
