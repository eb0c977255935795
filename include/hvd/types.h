// Data types, reduction ops, devices and the non-owning tensor view that every collective takes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hvd/export.h"
#include "hvd/shape.h"

namespace hvd {

// clang-format off
enum class DataType : std::uint8_t {
  kUInt8, kInt8, kUInt16, kInt16, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64, kBool,
};
// clang-format on

HVD_API std::size_t size_of(DataType dtype);
HVD_API const char* name_of(DataType dtype);  // "float32", ...

enum class ReduceOp : std::uint8_t { kSum, kAverage, kMin, kMax, kProduct, kAdasum };
HVD_API const char* name_of(ReduceOp op);  // "sum", ...

struct Device {
  enum class Kind : std::uint8_t { kCPU, kGPU };
  Kind kind = Kind::kCPU;
  int index = -1;  // CUDA device ordinal for kGPU
  static Device cpu() { return {}; }
  static Device gpu(int index) { return {Kind::kGPU, index}; }
  bool is_gpu() const { return kind == Kind::kGPU; }
};

// A view of memory owned by the caller; it must stay valid until the op's handle completes.
struct TensorView {
  void* data = nullptr;
  DataType dtype = DataType::kFloat32;
  Shape shape;  // empty shape = a scalar (one element)
  Device device;

  std::int64_t num_elements() const {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
  std::size_t num_bytes() const { return static_cast<std::size_t>(num_elements()) * size_of(dtype); }
};

// Called on the background thread with the output's dtype and shape; returns memory for it (on the input's
// device). The memory must stay valid until the handle completes. Used by the collectives whose output size is
// known only after negotiation (hvd/collectives.h).
using OutputAllocator = std::function<void*(DataType dtype, const std::vector<std::int64_t>& shape)>;

}  // namespace hvd
