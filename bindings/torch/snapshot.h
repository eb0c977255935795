// In-memory snapshots of a module's tensors and an optimizer's state, for TorchState (private to hvd_torch).
// save() copies into the snapshot's own tensors (allocated the first time, reused while shapes, dtypes and devices
// stay the same); restore() copies back into the live tensors in place. Not thread-safe: the training thread's.
#pragma once

#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "hvd/torch.h"

namespace hvd::torch::detail {

// Whether `saved` can take `live`'s values with copy_ (same shape, dtype and device).
bool same_layout(const Tensor& saved, const Tensor& live);
// `live`'s values in `saved` (reused when same_layout) or in a new tensor; undefined stays undefined.
Tensor copy_into(Tensor saved, const Tensor& live);

// Every parameter and buffer of a module (recursively), by name.
class ModelSnapshot {
 public:
  explicit ModelSnapshot(::torch::nn::Module& model) : model_(model) {}
  void save();
  // Throws hvd::Error naming a tensor the module has gained or lost since save().
  void restore();

 private:
  NamedTensors live() const;
  ::torch::nn::Module& model_;
  NamedTensors saved_;
};

// Per-parameter state (step and tensors) and every param group's and the defaults' hyper-parameters.
class OptimizerSnapshot {
 public:
  // Throws hvd::Error (usage) for an optimizer family hvd_torch does not know (optimizer_traits.h).
  explicit OptimizerSnapshot(::torch::optim::Optimizer& optimizer);
  ~OptimizerSnapshot();
  void save();
  // Throws hvd::Error when the optimizer's param groups changed in number since save().
  void restore();

 private:
  ::torch::optim::Optimizer& optimizer_;
  std::vector<std::vector<double>> hyper_;  // per group, then the defaults
  std::unordered_map<std::string, std::unique_ptr<::torch::optim::OptimizerParamState>> state_;
};

}  // namespace hvd::torch::detail
