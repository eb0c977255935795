// ModelSnapshot: a module's parameters and buffers copied aside and back, by name, without autograd seeing it.
#include <string>

#include "bindings/torch/snapshot.h"

namespace hvd::torch::detail {

bool same_layout(const Tensor& saved, const Tensor& live) {
  return saved.defined() && live.defined() && saved.sizes() == live.sizes() &&
         saved.scalar_type() == live.scalar_type() && saved.device() == live.device();
}

Tensor copy_into(Tensor saved, const Tensor& live) {
  if (!live.defined()) return Tensor();
  if (same_layout(saved, live)) return saved.copy_(live.detach());
  return live.detach().clone(::torch::MemoryFormat::Contiguous);
}

NamedTensors ModelSnapshot::live() const {
  NamedTensors list;
  for (const auto& item : model_.named_parameters()) list.emplace_back("param/" + item.key(), item.value());
  for (const auto& item : model_.named_buffers()) list.emplace_back("buffer/" + item.key(), item.value());
  return list;
}

void ModelSnapshot::save() {
  ::torch::NoGradGuard no_grad;
  NamedTensors tensors = live();
  if (saved_.size() != tensors.size()) saved_.resize(tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    Tensor previous = saved_[i].first == tensors[i].first ? saved_[i].second : Tensor();
    saved_[i] = {tensors[i].first, copy_into(previous, tensors[i].second)};
  }
}

void ModelSnapshot::restore() {
  ::torch::NoGradGuard no_grad;
  NamedTensors tensors = live();
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const auto& [name, tensor] = tensors[i];
    if (i >= saved_.size() || saved_[i].first != name) {
      throw Error(ErrorKind::kUsage, "TorchState::restore: the model has '" + name +
                                         "', which the last commit did not; build the " +
                                         "model the same way before and after a reset (commit after changing it)");
    }
    if (!tensor.defined() || !saved_[i].second.defined()) continue;
    tensor.detach().copy_(saved_[i].second);  // in place: the optimizer and the hooks keep these tensors
  }
  if (saved_.size() > tensors.size()) {
    throw Error(ErrorKind::kUsage, "TorchState::restore: the last commit has '" + saved_[tensors.size()].first +
                                       "', which the model no longer has; commit after changing the model");
  }
}

}  // namespace hvd::torch::detail
