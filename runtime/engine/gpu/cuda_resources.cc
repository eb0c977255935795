#include "runtime/engine/gpu/cuda_resources.h"

#include <spdlog/spdlog.h>

#include <utility>

#include "runtime/engine/gpu/cuda_error.h"

namespace hvd::detail {
namespace {

void log_teardown(const char* call, cudaError_t status) {
  if (status != cudaSuccess) spdlog::debug("hvd: {} during teardown: {}", call, cuda_text(status));
}

}  // namespace

DeviceGuard::DeviceGuard(int device, const std::string& where) {
  check_cuda(cudaGetDevice(&previous_), "cudaGetDevice", where);
  if (previous_ != device) check_cuda(cudaSetDevice(device), "cudaSetDevice", where);
}

DeviceGuard::~DeviceGuard() {
  int now = -1;
  if (previous_ >= 0 && cudaGetDevice(&now) == cudaSuccess && now != previous_) cudaSetDevice(previous_);
}

CudaStream::CudaStream(const std::string& where) { check_cuda(cudaStreamCreate(&stream_), "cudaStreamCreate", where); }

CudaStream& CudaStream::operator=(CudaStream&& other) noexcept {
  std::swap(stream_, other.stream_);
  return *this;
}

CudaStream::~CudaStream() {
  if (stream_) log_teardown("cudaStreamDestroy", cudaStreamDestroy(stream_));
}

CudaEvent::CudaEvent(const std::string& where) {
  check_cuda(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming | cudaEventBlockingSync),
             "cudaEventCreateWithFlags", where);
}

CudaEvent& CudaEvent::operator=(CudaEvent&& other) noexcept {
  std::swap(event_, other.event_);
  return *this;
}

CudaEvent::~CudaEvent() {
  if (event_) log_teardown("cudaEventDestroy", cudaEventDestroy(event_));
}

DeviceBuffer::~DeviceBuffer() {
  if (data_) log_teardown("cudaFree", cudaFree(data_));
}

std::byte* DeviceBuffer::reserve(std::size_t bytes, cudaStream_t stream, const std::string& where) {
  if (bytes <= bytes_) return data_;
  if (data_) {
    // Earlier responses on the stream may still use the old block (rare: the buffer only grows).
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize before growing a device buffer", where);
    check_cuda(cudaFree(data_), "cudaFree", where);
  }
  data_ = nullptr;
  bytes_ = 0;
  void* p = nullptr;
  check_cuda(cudaMalloc(&p, bytes), ("cudaMalloc of " + std::to_string(bytes) + " bytes").c_str(), where);
  data_ = static_cast<std::byte*>(p);
  bytes_ = bytes;
  return data_;
}

std::shared_ptr<void> allocate_device_output(std::size_t bytes, const std::string& where) {
  void* p = nullptr;
  if (bytes > 0) {
    check_cuda(cudaMalloc(&p, bytes), ("cudaMalloc of " + std::to_string(bytes) + " bytes").c_str(), where);
  }
  return std::shared_ptr<void>(p, [](void* q) {
    if (q) log_teardown("cudaFree", cudaFree(q));
  });
}

NcclComm& NcclComm::operator=(NcclComm&& other) noexcept {
  std::swap(comm_, other.comm_);
  return *this;
}

NcclComm::~NcclComm() {
  if (!comm_) return;
  // Healthy: finalize flushes the pending work, destroy frees the rest. Failed (asynchronous error, or finalize
  // failed): abort, which also ends kernels that wait for a peer that is gone; destroy would wait forever.
  ncclResult_t async = ncclSuccess;
  const bool healthy = ncclCommGetAsyncError(comm_, &async) == ncclSuccess && async == ncclSuccess;
  if (healthy && ncclCommFinalize(comm_) == ncclSuccess) {
    if (auto status = ncclCommDestroy(comm_); status != ncclSuccess) {
      spdlog::debug("hvd: ncclCommDestroy during teardown: {}", ncclGetErrorString(status));
    }
    return;
  }
  if (auto status = ncclCommAbort(comm_); status != ncclSuccess) {
    spdlog::debug("hvd: ncclCommAbort during teardown: {}", ncclGetErrorString(status));
  }
}

}  // namespace hvd::detail
