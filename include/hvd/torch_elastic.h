// Elastic training with LibTorch (library hvd_torch; see hvd/elastic.h): TorchState keeps a module, its optimizer,
// the epoch and the batch across resets. commit() copies every parameter, buffer and optimizer state tensor in
// memory, on the tensors' own devices, into the same snapshot tensors each time; restore() copies them back in
// place; sync() broadcasts rank 0's in place (broadcast_parameters, broadcast_optimizer_state).
//
//   hvd::torch::elastic::TorchState state(*model, optimizer);   // optimizer: a DistributedOptimizer or its optimizer
//   state.on_reset([&] { set_lr(sgd, base_lr * hvd::size()); });
//   hvd::elastic::run(state, [&] { for (; state.epoch < epochs; ++state.epoch, state.batch = 0) { ... } });
#pragma once

#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include <cstdint>
#include <memory>

#include "hvd/elastic.h"
#include "hvd/torch.h"

namespace hvd::torch::detail {
class ModelSnapshot;
class OptimizerSnapshot;
}  // namespace hvd::torch::detail

namespace hvd::torch::elastic {

class TorchState : public hvd::elastic::State {
 public:
  // `model` and `optimizer` must outlive the state. The optimizer is one broadcast_optimizer_state supports (SGD,
  // Adam, Adagrad, RMSprop), else hvd::Error (usage). Everything is snapshotted here, so restore() before any
  // commit() goes back to the values the model and optimizer had at construction.
  TorchState(::torch::nn::Module& model, ::torch::optim::Optimizer& optimizer);
  TorchState(::torch::nn::Module& model, DistributedOptimizer& optimizer);
  ~TorchState() override;

  // Tracked with the tensors: restored and synced with them.
  std::int64_t epoch = 0;
  std::int64_t batch = 0;

  ::torch::nn::Module& model() const noexcept { return model_; }
  ::torch::optim::Optimizer& optimizer() const noexcept { return optimizer_; }

 private:
  ::torch::nn::Module& model_;
  ::torch::optim::Optimizer& optimizer_;
  std::unique_ptr<detail::ModelSnapshot> model_snapshot_;
  std::unique_ptr<detail::OptimizerSnapshot> optimizer_snapshot_;
};

}  // namespace hvd::torch::elastic
