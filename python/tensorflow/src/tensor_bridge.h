// What every hvd TensorFlow kernel shares: a tf::Tensor seen as an hvd::TensorView (no copy), the tensor's name in
// the job, and the end of an asynchronous kernel: an hvd::Handle whose completion (on libhvd's engine thread, via
// Handle::on_done) sets the kernel's status from the op's error and calls TensorFlow's `done`.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "hvd/collectives.h"
#include "hvd/error.h"
#include "tensorflow/core/framework/op_kernel.h"

namespace hvd::tensorflow {

namespace tf = ::tensorflow;

// The hvd dtype of a TensorFlow dtype; throws hvd::Error (kUsage) naming it when hvd has none.
DataType hvd_dtype(tf::DataType dtype);
TensorView view_of(const tf::Tensor& tensor);
// hvd's error as a TensorFlow status: a bad call is InvalidArgument, ranks that disagree FailedPrecondition, a lost
// peer, a re-formed job or a stall Aborted (what hvd.tensorflow turns into HorovodInternalError), else Unknown.
tf::Status status_of(const Error& error);
tf::TensorShape shape_of(const std::vector<std::int64_t>& dims);

// The name libhvd negotiates the tensor under: the `tensor_name` attribute when set; else, in a graph, the node's
// name (the same on every rank that built the same graph); else (eager) empty: libhvd names it by call order. And
// whether the op was called eagerly (the `eager` attribute).
class TensorNaming {
 public:
  explicit TensorNaming(tf::OpKernelConstruction* context);
  std::string name(std::size_t index = 0) const;
  bool eager() const { return eager_; }

 private:
  std::string name_;
  bool eager_ = false;
};

// Ends an asynchronous kernel when the handles `start` returns are all done: `after` (may be empty) runs first when
// all succeeded (to fill outputs known only then), then `done`; else the first error is the kernel's status. An
// hvd::Error thrown by `start` fails the kernel at once (handles it started already complete unobserved). Called
// eagerly (naming.eager()), it waits here, running libhvd's cycle on this thread; in a graph it returns at once and
// libhvd's thread ends the kernel (a graph's ops must all be in flight: ranks may run them in other orders).
using Handles = std::vector<Handle>;
void finish_when_done(tf::OpKernelContext* context, tf::AsyncOpKernel::DoneCallback done,
                      const TensorNaming& naming, const std::function<Handles()>& start,
                      std::function<void(const Handles&)> after = {});

}  // namespace hvd::tensorflow
