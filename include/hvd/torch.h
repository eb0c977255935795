// hvd for LibTorch (library hvd_torch): torch::Tensor collectives, DistributedOptimizer, parameter, optimizer-state
// and object broadcast, metric averaging. Call hvd::init() first. Every call is collective: all ranks make it with
// the same names (unnamed calls are named from call order). Tensors must be contiguous and of a supported dtype
// (errors name the tensor and dtype); CUDA tensors are handed over after their device is synchronized.
#pragma once

#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>
#include <torch/ordered_dict.h>
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hvd/hvd.h"

namespace hvd::torch {

using Tensor = ::torch::Tensor;
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// ---- Bridging -------------------------------------------------------------------------------------------------
DataType to_hvd_dtype(::torch::ScalarType dtype);  // throws hvd::Error naming an unsupported dtype
::torch::ScalarType to_torch_dtype(DataType dtype);
// A view of `tensor`'s memory (not owning); `what` names the tensor in errors. Throws for non-contiguous or
// sparse tensors and unsupported dtypes.
TensorView view_of(const Tensor& tensor, const std::string& what = "tensor");
// The same, naming the tensor "OP 'NAME'" (or "OP input") in errors; the name is formatted only for an error.
TensorView view_of(const Tensor& tensor, const char* op, const std::string& name);
// An uninitialized tensor with the runtime's dtype and shape on `like`'s device.
Tensor empty_for(DataType dtype, const std::vector<std::int64_t>& shape, const ::torch::TensorOptions& like);

// The pending result of an asynchronous tensor collective. It keeps the input and output tensors alive until the
// op completes; wait() returns the output (the input itself for in-place ops) and rethrows the op's error.
class TensorHandle {
 public:
  TensorHandle() = default;
  TensorHandle(Handle handle, std::vector<Tensor> keep_alive, std::shared_ptr<Tensor> output)
      : handle_(std::move(handle)), keep_alive_(std::move(keep_alive)), output_(std::move(output)) {}
  bool valid() const { return handle_.valid(); }
  bool poll() const { return handle_.poll(); }
  Tensor wait() const;
  // alltoall only, after wait(): rows received from each rank.
  std::vector<std::int64_t> received_splits() const { return handle_.received_splits(); }

 private:
  Handle handle_;
  std::vector<Tensor> keep_alive_;
  std::shared_ptr<Tensor> output_;
};

// ---- Tensor collectives: `name_` forms are in place; the others return a new tensor --------------------------
TensorHandle allreduce_async(const Tensor& tensor, const AllreduceOptions& options = {});
TensorHandle allreduce_async_(Tensor& tensor, const AllreduceOptions& options = {});
Tensor allreduce(const Tensor& tensor, const AllreduceOptions& options = {});
void allreduce_(Tensor& tensor, const AllreduceOptions& options = {});

// Concatenation along dimension 0 (its size may differ per rank).
TensorHandle allgather_async(const Tensor& tensor, const AllgatherOptions& options = {});
Tensor allgather(const Tensor& tensor, const AllgatherOptions& options = {});

// Root's tensor everywhere.
TensorHandle broadcast_async(const Tensor& tensor, const BroadcastOptions& options = {});
TensorHandle broadcast_async_(Tensor& tensor, const BroadcastOptions& options = {});
Tensor broadcast(const Tensor& tensor, const BroadcastOptions& options = {});
void broadcast_(Tensor& tensor, const BroadcastOptions& options = {});

// Rows of dimension 0 scattered by options.splits (empty: equal parts); returns the rows received and how many
// came from each rank.
TensorHandle alltoall_async(const Tensor& tensor, const AlltoallOptions& options = {});
std::pair<Tensor, std::vector<std::int64_t>> alltoall(const Tensor& tensor, const AlltoallOptions& options = {});

// Reduces, then gives each rank its share of dimension 0 (the first ranks get one more row when it does not divide).
TensorHandle reducescatter_async(const Tensor& tensor, const ReducescatterOptions& options = {});
Tensor reducescatter(const Tensor& tensor, const ReducescatterOptions& options = {});

// ---- Compression (Horovod's Compression.none / .fp16) ----------------------------------------------------------
enum class Compression { kNone, kFP16 };
// kFP16 casts floating-point tensors wider than 16 bits to float16; anything else passes through unchanged.
Tensor compress(const Tensor& tensor, Compression compression);
Tensor decompress(const Tensor& tensor, ::torch::ScalarType original, Compression compression);

// ---- Broadcasting state ----------------------------------------------------------------------------------------
// Overwrites every rank's tensors with root's, in place (under NoGradGuard). Names must be the same on all ranks.
void broadcast_parameters(const NamedTensors& named_tensors, int root = 0);
void broadcast_parameters(const ::torch::OrderedDict<std::string, Tensor>& named_tensors, int root = 0);
// A module's parameters and buffers (its whole state).
void broadcast_parameters(const ::torch::nn::Module& module, int root = 0);

// Root's optimizer state everywhere: per-parameter state tensors and step counts (state the root has is created
// on the others, state it lacks is dropped) and every param group's hyper-parameters. Supports SGD, Adam, Adagrad
// and RMSprop; throws hvd::Error naming any other optimizer. All ranks must have the same param groups.
void broadcast_optimizer_state(::torch::optim::Optimizer& optimizer, int root = 0);

// Root's bytes everywhere (e.g. a serialized value); sizes may differ before the call.
std::string broadcast_object(const std::string& bytes, int root = 0, const std::string& name = "");

// The average of `value` over all ranks.
double metric_average(double value, const std::string& name);

// ---- DistributedOptimizer --------------------------------------------------------------------------------------
struct DistributedOptimizerOptions {
  Compression compression = Compression::kNone;
  ReduceOp op = ReduceOp::kAverage;        // kAverage, kSum or kAdasum
  double gradient_predivide_factor = 1.0;  // kAverage only: prescale 1/f, postscale f/size
  int backward_passes_per_step = 1;        // local accumulation before the allreduce
  std::int32_t process_set = 0;            // the process set whose ranks average the gradients (0: all)
};

// Wraps `optimizer` (which must outlive it) the way Horovod does. A hook on each parameter launches its gradient's
// allreduce as soon as autograd has produced it (on the backward_passes_per_step-th pass); step() waits for all of
// them, writes the averages into .grad and steps the wrapped optimizer. Parameters that got no gradient contribute
// zeros. With kAdasum the hook instead takes a local step for that parameter and the parameter's change is
// reduced with Adasum; step() applies it. Every parameter of the optimizer needs a unique name.
class DistributedOptimizer {
 public:
  DistributedOptimizer(::torch::optim::Optimizer& optimizer, const NamedTensors& named_parameters,
                       const DistributedOptimizerOptions& options = {});
  DistributedOptimizer(::torch::optim::Optimizer& optimizer,
                       const ::torch::OrderedDict<std::string, Tensor>& named_parameters,
                       const DistributedOptimizerOptions& options = {});
  ~DistributedOptimizer();  // removes the hooks; pending allreduces are waited for
  DistributedOptimizer(const DistributedOptimizer&) = delete;
  DistributedOptimizer& operator=(const DistributedOptimizer&) = delete;

  // Waits for every gradient (launching zeros for parameters that got none) and writes the results into .grad.
  // Idempotent until the next backward pass. Not needed before step(), which calls it.
  void synchronize();
  void step();
  // Throws hvd::Error when called between backward() and step() (allreduces still in flight).
  void zero_grad();
  ::torch::optim::Optimizer& optimizer();

 private:
  struct Impl;
  struct AccumulatedHook;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hvd::torch
