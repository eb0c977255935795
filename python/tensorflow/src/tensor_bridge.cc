// tf::Tensor <-> hvd::TensorView, hvd::Error -> tf::Status, and the completion of asynchronous kernels.
#include "tensor_bridge.h"

#include <atomic>
#include <memory>
#include <utility>

#include "tensorflow/core/framework/types.h"

namespace hvd::tensorflow {

DataType hvd_dtype(tf::DataType dtype) {
  switch (dtype) {
    case tf::DT_UINT8: return DataType::kUInt8;
    case tf::DT_INT8: return DataType::kInt8;
    case tf::DT_UINT16: return DataType::kUInt16;
    case tf::DT_INT16: return DataType::kInt16;
    case tf::DT_INT32: return DataType::kInt32;
    case tf::DT_INT64: return DataType::kInt64;
    case tf::DT_HALF: return DataType::kFloat16;
    case tf::DT_BFLOAT16: return DataType::kBFloat16;
    case tf::DT_FLOAT: return DataType::kFloat32;
    case tf::DT_DOUBLE: return DataType::kFloat64;
    case tf::DT_BOOL: return DataType::kBool;
    default:
      throw Error(ErrorKind::kUsage, "hvd.tensorflow: dtype " + tf::DataTypeString(dtype) +
                                         " is not supported; cast to a numeric type or bool first");
  }
}

TensorView view_of(const tf::Tensor& tensor) {
  TensorView view;
  view.data = const_cast<char*>(tensor.tensor_data().data());
  view.dtype = hvd_dtype(tensor.dtype());
  for (int d = 0; d < tensor.dims(); ++d) view.shape.push_back(tensor.dim_size(d));
  return view;
}

tf::TensorShape shape_of(const std::vector<std::int64_t>& dims) {
  tf::TensorShape shape;
  for (auto d : dims) shape.AddDim(d);
  return shape;
}

tf::Status status_of(const Error& error) {
  switch (error.kind()) {
    case ErrorKind::kUsage: return absl::InvalidArgumentError(error.what());
    case ErrorKind::kMismatch: return absl::FailedPreconditionError(error.what());
    case ErrorKind::kPeerLost:
    case ErrorKind::kMembership:
    case ErrorKind::kStall: return absl::AbortedError(error.what());
    default: return absl::UnknownError(error.what());
  }
}

TensorNaming::TensorNaming(tf::OpKernelConstruction* context) {
  bool from_node = false;
  OP_REQUIRES_OK(context, context->GetAttr("tensor_name", &name_));
  OP_REQUIRES_OK(context, context->GetAttr("name_from_node", &from_node));
  OP_REQUIRES_OK(context, context->GetAttr("eager", &eager_));
  if (name_.empty() && from_node) name_ = context->def().name();
}

std::string TensorNaming::name(std::size_t index) const {
  if (name_.empty() || index == 0) return name_;
  return name_ + "." + std::to_string(index);
}

namespace {
// The handles are done (or waiting on them runs them here): the outputs known only now, the status, then `done`.
void end_kernel(tf::OpKernelContext* context, const tf::AsyncOpKernel::DoneCallback& done, const Handles& handles,
                const std::function<void(const Handles&)>& after) {
  try {
    for (const auto& h : handles) h.wait();
    if (after) after(handles);
  } catch (const Error& e) {
    context->SetStatus(status_of(e));
  }
  done();
}
}  // namespace

void finish_when_done(tf::OpKernelContext* context, tf::AsyncOpKernel::DoneCallback done,
                      const TensorNaming& naming, const std::function<Handles()>& start,
                      std::function<void(const Handles&)> after) {
  auto handles = std::make_shared<Handles>();
  try {
    *handles = start();
  } catch (const Error& e) {
    context->SetStatus(status_of(e));
    done();
    return;
  }
  if (naming.eager() || handles->empty()) {
    end_kernel(context, done, *handles, after);  // waiting drives libhvd's cycle on this thread
    return;
  }
  // The last handle to finish ends the kernel. Each callback holds the shared handles: libhvd drops its callbacks
  // once they ran, which ends that cycle.
  auto remaining = std::make_shared<std::atomic<std::size_t>>(handles->size());
  auto finish = [context, done = std::move(done), after = std::move(after), handles, remaining] {
    if (remaining->fetch_sub(1) == 1) end_kernel(context, done, *handles, after);
  };
  for (const auto& h : *handles) h.on_done(finish);
}

}  // namespace hvd::tensorflow
