// An asynchronous op as Python holds it. poll() never blocks; wait() releases the GIL until the op is done and
// returns what hvd.torch.synchronize() gives for it: a tensor, a list of tensors (grouped allreduce) or
// (tensor, received splits) (alltoall). The result is kept: a second wait() returns it again. The handle keeps
// the op's tensors alive; one dropped before completion hands them to a list that keeps them until the op is done
// (handle.cc), so libhvd never writes to freed memory and the script does not wait.
#pragma once

#include <vector>

#include "binding.h"
#include "hvd/torch.h"

namespace hvd::python {

class Handle {
 public:
  enum class Kind { kTensor, kTensorAndSplits, kGroup };

  explicit Handle(hvd::torch::TensorHandle op, Kind kind = Kind::kTensor);
  // A grouped allreduce: `inputs` stay alive until it completes, `outputs` are its results.
  Handle(hvd::Handle op, std::vector<at::Tensor> inputs, std::vector<at::Tensor> outputs);
  Handle(Handle&&) = default;
  Handle& operator=(Handle&&) = default;
  ~Handle();

  bool poll() const;
  py::object wait();

 private:
  Kind kind_;
  hvd::torch::TensorHandle tensor_op_;
  hvd::Handle group_op_;
  std::vector<at::Tensor> inputs_;
  std::vector<at::Tensor> outputs_;
  py::object result_;
  bool done_ = false;
};

}  // namespace hvd::python
