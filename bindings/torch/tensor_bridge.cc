// torch::Tensor <-> hvd::TensorView, the async tensor handle, and fp16 compression.
#include <torch/cuda.h>

#include <string>

#include "hvd/torch.h"

namespace hvd::torch {
namespace {

std::string dtype_name(::torch::ScalarType dtype) { return ::c10::toString(dtype); }

}  // namespace

DataType to_hvd_dtype(::torch::ScalarType dtype) {
  switch (dtype) {
    case ::torch::kUInt8: return DataType::kUInt8;
    case ::torch::kInt8: return DataType::kInt8;
    case ::torch::kInt16: return DataType::kInt16;
    case ::torch::kInt32: return DataType::kInt32;
    case ::torch::kInt64: return DataType::kInt64;
    case ::torch::kFloat16: return DataType::kFloat16;
    case ::torch::kBFloat16: return DataType::kBFloat16;
    case ::torch::kFloat32: return DataType::kFloat32;
    case ::torch::kFloat64: return DataType::kFloat64;
    case ::torch::kBool: return DataType::kBool;
    default:
      throw Error(ErrorKind::kUsage,
                  "hvd_torch: dtype " + dtype_name(dtype) +
                      " is not supported (use uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64 "
                      "or bool); cast the tensor first");
  }
}

::torch::ScalarType to_torch_dtype(DataType dtype) {
  switch (dtype) {
    case DataType::kUInt8: return ::torch::kUInt8;
    case DataType::kInt8: return ::torch::kInt8;
    case DataType::kInt16: return ::torch::kInt16;
    case DataType::kInt32: return ::torch::kInt32;
    case DataType::kInt64: return ::torch::kInt64;
    case DataType::kFloat16: return ::torch::kFloat16;
    case DataType::kBFloat16: return ::torch::kBFloat16;
    case DataType::kFloat32: return ::torch::kFloat32;
    case DataType::kFloat64: return ::torch::kFloat64;
    case DataType::kBool: return ::torch::kBool;
    case DataType::kUInt16: break;
  }
  throw Error(ErrorKind::kUsage, std::string("hvd_torch: LibTorch 1.13 has no dtype for ") + name_of(dtype));
}

namespace {

// `what()` names the tensor in errors; it is called only when there is one, so the hot path formats nothing.
template <class What>
TensorView checked_view(const Tensor& tensor, const What& what) {
  if (!tensor.defined()) throw Error(ErrorKind::kUsage, "hvd_torch: " + what() + " is an undefined tensor");
  if (tensor.is_sparse())
    throw Error(ErrorKind::kUsage, "hvd_torch: " + what() + " is sparse; densify it (to_dense()) first");
  if (!tensor.is_contiguous()) {
    throw Error(ErrorKind::kUsage, "hvd_torch: " + what() + " (" + dtype_name(tensor.scalar_type()) + ", shape " +
                                       ::c10::str(tensor.sizes()) + ") is not contiguous; call .contiguous() first");
  }
  TensorView view;
  try {
    view.dtype = to_hvd_dtype(tensor.scalar_type());
  } catch (const Error& e) {
    throw Error(e.kind(), std::string(e.what()) + " (" + what() + ")");
  }
  view.data = tensor.data_ptr();
  view.shape.assign(tensor.sizes().begin(), tensor.sizes().end());
  if (tensor.is_cuda()) {
    view.device = Device::gpu(tensor.get_device());
    // The runtime knows nothing of torch streams: the producer's kernels must be done before it reads.
    ::torch::cuda::synchronize(tensor.get_device());
  } else if (!tensor.is_cpu()) {
    throw Error(ErrorKind::kUsage, "hvd_torch: " + what() + " is on device " + tensor.device().str() +
                                       "; only CPU and CUDA are supported");
  }
  return view;
}

}  // namespace

TensorView view_of(const Tensor& tensor, const std::string& what) {
  return checked_view(tensor, [&] { return what; });
}

TensorView view_of(const Tensor& tensor, const char* op, const std::string& name) {
  return checked_view(tensor, [&] { return std::string(op) + (name.empty() ? " input" : " '" + name + "'"); });
}

Tensor empty_for(DataType dtype, const std::vector<std::int64_t>& shape, const ::torch::TensorOptions& like) {
  return ::torch::empty(shape, like.dtype(to_torch_dtype(dtype)));
}

Tensor TensorHandle::wait() const {
  if (!handle_.valid()) throw Error(ErrorKind::kUsage, "hvd_torch: wait() on an empty TensorHandle");
  handle_.wait();
  if (!output_) return Tensor();
  if (!output_->defined() && handle_.output().data != nullptr) {
    // The runtime kept the output itself (it did not call our allocator): copy it out while the handle holds it.
    const TensorView& view = handle_.output();
    *output_ = ::torch::from_blob(view.data, view.shape, ::torch::TensorOptions().dtype(to_torch_dtype(view.dtype)))
                   .clone();
  }
  return *output_;
}

Tensor compress(const Tensor& tensor, Compression compression) {
  if (compression == Compression::kFP16 && tensor.is_floating_point() && tensor.element_size() > 2) {
    return tensor.to(::torch::kFloat16);
  }
  return tensor;
}

Tensor decompress(const Tensor& tensor, ::torch::ScalarType original, Compression compression) {
  if (compression == Compression::kFP16 && tensor.scalar_type() != original) return tensor.to(original);
  return tensor;
}

}  // namespace hvd::torch
