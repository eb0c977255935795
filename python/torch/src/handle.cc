#include "handle.h"

#include <mutex>
#include <utility>

namespace hvd::python {

Handle::Handle(hvd::torch::TensorHandle op, Kind kind) : kind_(kind), tensor_op_(std::move(op)) {}

Handle::Handle(hvd::Handle op, std::vector<at::Tensor> inputs, std::vector<at::Tensor> outputs)
    : kind_(Kind::kGroup), group_op_(std::move(op)), inputs_(std::move(inputs)), outputs_(std::move(outputs)) {}

namespace {

// Ops whose handle Python dropped before they finished. As in Horovod, dropping a handle neither waits nor cancels:
// the op goes on (the other ranks may still need this rank's part) and its tensors stay alive here until it is
// done, so libhvd never writes to freed memory. Waiting in the destructor instead would block the script for good
// when the op can never finish (a name the other ranks refused). Leaked on purpose: never destroyed at exit, after
// the runtime (and maybe libtorch) is gone.
struct Orphan {
  hvd::torch::TensorHandle tensor_op;
  hvd::Handle group_op;
  std::vector<at::Tensor> tensors;  // inputs and outputs
  bool finished() const {
    return (!tensor_op.valid() || tensor_op.poll()) && (!group_op.valid() || group_op.poll());
  }
};
struct Orphans {
  std::mutex mutex;
  std::vector<Orphan> ops;
};

Orphans& orphans() {
  static auto* all = new Orphans;
  return *all;
}

}  // namespace

Handle::~Handle() {
  if (done_ || poll()) return;
  Orphans& o = orphans();
  std::lock_guard lock(o.mutex);
  std::erase_if(o.ops, [](const Orphan& op) { return op.finished(); });  // the list holds only ops still running
  inputs_.insert(inputs_.end(), outputs_.begin(), outputs_.end());
  o.ops.push_back({std::move(tensor_op_), std::move(group_op_), std::move(inputs_)});
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
