// TorchState: the model and the optimizer tracked through their snapshots (State keeps no bytes for them: the
// copies are tensors, on the tensors' devices), epoch and batch as plain values. Sync is the broadcasts in place.
#include "hvd/torch_elastic.h"
#include "bindings/torch/snapshot.h"

namespace hvd::torch::elastic {

TorchState::TorchState(::torch::nn::Module& model, DistributedOptimizer& optimizer)
    : TorchState(model, optimizer.optimizer()) {}

TorchState::TorchState(::torch::nn::Module& model, ::torch::optim::Optimizer& optimizer)
    : model_(model),
      optimizer_(optimizer),
      model_snapshot_(std::make_unique<detail::ModelSnapshot>(model)),
      optimizer_snapshot_(std::make_unique<detail::OptimizerSnapshot>(optimizer)) {
  // track() takes the first snapshot at once (State saves each object as it is tracked).
  track("model", hvd::elastic::Tracked{[this] {
                                         model_snapshot_->save();
                                         return std::vector<std::byte>{};
                                       },
                                       [this](std::span<const std::byte>) { model_snapshot_->restore(); },
                                       [this] { broadcast_parameters(model_, 0); }});
  track("optimizer", hvd::elastic::Tracked{[this] {
                                             optimizer_snapshot_->save();
                                             return std::vector<std::byte>{};
                                           },
                                           [this](std::span<const std::byte>) { optimizer_snapshot_->restore(); },
                                           [this] { broadcast_optimizer_state(optimizer_, 0); }});
  track("epoch", epoch);
  track("batch", batch);
}

TorchState::~TorchState() = default;

}  // namespace hvd::torch::elastic
