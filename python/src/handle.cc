#include "handle.h"

#include <utility>

namespace hvd::python {

Handle::Handle(hvd::torch::TensorHandle op, Kind kind) : kind_(kind), tensor_op_(std::move(op)) {}

Handle::Handle(hvd::Handle op, std::vector<at::Tensor> inputs, std::vector<at::Tensor> outputs)
    : kind_(Kind::kGroup), group_op_(std::move(op)), inputs_(std::move(inputs)), outputs_(std::move(outputs)) {}

Handle::~Handle() {
  if (done_ || poll()) return;
  py::gil_scoped_release no_gil;
  try {
    if (kind_ == Kind::kGroup) {
      group_op_.wait();
    } else {
      tensor_op_.wait();
    }
  } catch (...) {  // nobody is left to see the error: the handle was dropped
  }
}

bool Handle::poll() const {
  if (done_) return true;
  return kind_ == Kind::kGroup ? !group_op_.valid() || group_op_.poll() : !tensor_op_.valid() || tensor_op_.poll();
}

py::object Handle::wait() {
  if (done_) return result_;
  if (kind_ == Kind::kGroup) {
    {
      py::gil_scoped_release no_gil;
      group_op_.wait();
    }
    result_ = py::cast(outputs_);
  } else {
    at::Tensor output;
    {
      py::gil_scoped_release no_gil;
      output = tensor_op_.wait();
    }
    if (kind_ == Kind::kTensorAndSplits) {
      const auto& splits = tensor_op_.received_splits();
      at::Tensor received = at::tensor(splits, at::kLong).to(at::kInt);
      result_ = py::make_tuple(output, received);
    } else {
      result_ = py::cast(output);
    }
  }
  done_ = true;
  inputs_.clear();
  return result_;
}

void register_handle(py::module_& m) {
  py::class_<Handle>(m, "Handle", "An asynchronous op: poll(), wait() (hvd.torch.poll / synchronize)")
      .def("poll", &Handle::poll, "True once the op is done (successfully or not); never blocks")
      .def("wait", &Handle::wait, "Waits (without the GIL) and returns the op's result; raises its error");
}

}  // namespace hvd::python
