// Device memory for hvd-bench --gpu. CMake picks the implementation: bench_memory_cuda.cc in builds with CUDA and
// NCCL, bench_memory_absent.cc otherwise (it refuses --gpu with a message saying how to get it).
#pragma once

#include <cstddef>
#include <utility>

// The device this rank benchmarks on: local_rank (made current for the calling thread).
int bench_device();

class DeviceMemory {
 public:
  DeviceMemory() = default;
  explicit DeviceMemory(std::size_t bytes);
  DeviceMemory(DeviceMemory&& other) noexcept : data_(std::exchange(other.data_, nullptr)) {}
  DeviceMemory& operator=(DeviceMemory&& other) noexcept {
    std::swap(data_, other.data_);
    return *this;
  }
  ~DeviceMemory();
  void* get() const { return data_; }
  void upload(const void* host, std::size_t bytes);
  void download(void* host, std::size_t bytes) const;

 private:
  void* data_ = nullptr;
};
