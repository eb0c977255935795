// OptimizerSnapshot: an optimizer's per-parameter state and hyper-parameters copied aside and back. The family's
// traits (optimizer_traits.h) say which state tensors and hyper-parameters there are; the state struct itself is
// cloned (its step and flags) and its tensors deep-copied, since optimizers update them in place.
#include <string>

#include "bindings/torch/optimizer_traits.h"
#include "bindings/torch/snapshot.h"

namespace hvd::torch::detail {
namespace {

using ParamState = ::torch::optim::OptimizerParamState;

// A copy of `from` whose tensors are deep copies, written into `reuse`'s tensors where their layout matches.
template <class Traits>
std::unique_ptr<ParamState> deep_copy(const ParamState& from, ParamState* reuse) {
  auto copy = from.clone();
  auto& typed = static_cast<typename Traits::State&>(*copy);
  auto tensors = Traits::tensors(typed);
  std::vector<Tensor*> old;
  if (reuse != nullptr) old = Traits::tensors(static_cast<typename Traits::State&>(*reuse));
  for (std::size_t i = 0; i < tensors.size(); ++i)
    *tensors[i] = copy_into(old.empty() ? Tensor() : *old[i], *tensors[i]);
  return copy;
}

}  // namespace

OptimizerSnapshot::OptimizerSnapshot(::torch::optim::Optimizer& optimizer) : optimizer_(optimizer) {
  visit_optimizer(optimizer_, "TorchState", []<class Traits>() {});
}

OptimizerSnapshot::~OptimizerSnapshot() = default;

void OptimizerSnapshot::save() {
  ::torch::NoGradGuard no_grad;
  visit_optimizer(optimizer_, "TorchState", [&]<class Traits>() {
    hyper_.clear();
    for (auto& group : optimizer_.param_groups()) {
      hyper_.push_back(Traits::hyper(static_cast<typename Traits::Options&>(group.options())));
    }
    hyper_.push_back(Traits::hyper(static_cast<typename Traits::Options&>(optimizer_.defaults())));
    std::unordered_map<std::string, std::unique_ptr<ParamState>> saved;
    for (const auto& [key, state] : optimizer_.state()) {
      auto previous = state_.find(key);
      saved[key] = deep_copy<Traits>(*state, previous == state_.end() ? nullptr : previous->second.get());
    }
    state_ = std::move(saved);
  });
}

void OptimizerSnapshot::restore() {
  ::torch::NoGradGuard no_grad;
  visit_optimizer(optimizer_, "TorchState", [&]<class Traits>() {
    auto& groups = optimizer_.param_groups();
    if (hyper_.size() != groups.size() + 1) {
      throw Error(ErrorKind::kUsage, "TorchState::restore: the optimizer has " + std::to_string(groups.size()) +
                                         " param groups, the last commit had " + std::to_string(hyper_.size() - 1) +
                                         "; commit after changing the optimizer");
    }
    for (std::size_t g = 0; g < groups.size(); ++g) {
      Traits::set_hyper(static_cast<typename Traits::Options&>(groups[g].options()), hyper_[g].data());
    }
    Traits::set_hyper(static_cast<typename Traits::Options&>(optimizer_.defaults()), hyper_.back().data());
    auto& live = optimizer_.state();
    std::unordered_map<std::string, std::unique_ptr<ParamState>> restored;
    for (const auto& [key, state] : state_) {
      auto current = live.find(key);
      restored[key] = deep_copy<Traits>(*state, current == live.end() ? nullptr : current->second.get());
    }
    live.clear();
    for (auto& [key, state] : restored) live[key] = std::move(state);
  });
}

}  // namespace hvd::torch::detail
