// RAII owners for the CUDA and NCCL resources of the NCCL backend: the current device, a stream, an event, a
// device buffer that grows and never shrinks, and an NCCL communicator. Move-only; destructors never throw (a
// failure there is logged at debug level: the process may be tearing down after a device error).
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <memory>
#include <string>
#include <utility>

namespace hvd::detail {

// Makes `device` current for the calling thread for its lifetime, then restores the previous one.
class DeviceGuard {
 public:
  DeviceGuard(int device, const std::string& where);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

// A stream with default flags: it waits for work on the legacy default stream, so tensors produced there need no
// extra synchronization (tensors produced on other streams must be synchronized by the caller).
class CudaStream {
 public:
  CudaStream() = default;
  explicit CudaStream(const std::string& where);
  CudaStream(CudaStream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  CudaStream& operator=(CudaStream&& other) noexcept;
  ~CudaStream();
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// Recorded after a response's work; blocking sync, so waiting on it sleeps instead of spinning a core.
class CudaEvent {
 public:
  CudaEvent() = default;
  explicit CudaEvent(const std::string& where);
  CudaEvent(CudaEvent&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  CudaEvent& operator=(CudaEvent&& other) noexcept;
  ~CudaEvent();
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// Device memory that grows to the largest request and keeps it (cudaMalloc is slow and synchronizes the device).
// Growing frees the old block after `stream` has finished the work already enqueued on it: cudaFree only "may"
// synchronize (CUDA docs), and earlier responses on that stream may still read or write the old block.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&&) = delete;
  ~DeviceBuffer();
  std::byte* reserve(std::size_t bytes, cudaStream_t stream, const std::string& where);

 private:
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Device memory handed to a handle (default-allocated outputs): the deleter frees it, so handle_state.h stays
// free of CUDA.
std::shared_ptr<void> allocate_device_output(std::size_t bytes, const std::string& where);

class NcclComm {
 public:
  NcclComm() = default;
  explicit NcclComm(ncclComm_t comm) : comm_(comm) {}
  NcclComm(NcclComm&& other) noexcept : comm_(std::exchange(other.comm_, nullptr)) {}
  NcclComm& operator=(NcclComm&& other) noexcept;
  ~NcclComm();
  ncclComm_t get() const { return comm_; }
  explicit operator bool() const { return comm_ != nullptr; }

 private:
  ncclComm_t comm_ = nullptr;
};

}  // namespace hvd::detail
