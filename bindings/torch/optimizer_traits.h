// What hvd_torch knows of each LibTorch optimizer family (private to hvd_torch): its hyper-parameters as doubles,
// its per-parameter state tensors (each shaped like its parameter, possibly undefined) and its step counter.
// visit_optimizer() calls `visitor.template operator()<Traits>()` with the family's traits and throws hvd::Error
// (usage) naming an optimizer of any other family. broadcast_optimizer_state and TorchState's snapshots use it.
#pragma once

#include <torch/optim/adagrad.h>
#include <torch/optim/adam.h>
#include <torch/optim/rmsprop.h>
#include <torch/optim/sgd.h>

#include <cstdint>
#include <string>
#include <typeinfo>
#include <vector>

#include "hvd/torch.h"

namespace hvd::torch::detail {

namespace optim = ::torch::optim;

struct SgdTraits {
  using Options = optim::SGDOptions;
  using State = optim::SGDParamState;
  static constexpr const char* kSlots[] = {"momentum_buffer"};
  static std::vector<double> hyper(const Options& o) {
    return {o.lr(), o.momentum(), o.dampening(), o.weight_decay(), o.nesterov() ? 1.0 : 0.0};
  }
  static void set_hyper(Options& o, const double* v) {
    o.lr(v[0]).momentum(v[1]).dampening(v[2]).weight_decay(v[3]).nesterov(v[4] != 0.0);
  }
  static std::vector<Tensor*> tensors(State& s) { return {&s.momentum_buffer()}; }
  static std::int64_t* step(State&) { return nullptr; }
};

struct AdamTraits {
  using Options = optim::AdamOptions;
  using State = optim::AdamParamState;
  static constexpr const char* kSlots[] = {"exp_avg", "exp_avg_sq", "max_exp_avg_sq"};
  static std::vector<double> hyper(const Options& o) {
    return {o.lr(), std::get<0>(o.betas()), std::get<1>(o.betas()), o.eps(), o.weight_decay(), o.amsgrad() ? 1.0 : 0.0};
  }
  static void set_hyper(Options& o, const double* v) {
    o.lr(v[0]).betas(std::make_tuple(v[1], v[2])).eps(v[3]).weight_decay(v[4]).amsgrad(v[5] != 0.0);
  }
  static std::vector<Tensor*> tensors(State& s) { return {&s.exp_avg(), &s.exp_avg_sq(), &s.max_exp_avg_sq()}; }
  static std::int64_t* step(State& s) { return &s.step(); }
};

struct AdagradTraits {
  using Options = optim::AdagradOptions;
  using State = optim::AdagradParamState;
  static constexpr const char* kSlots[] = {"sum"};
  static std::vector<double> hyper(const Options& o) {
    return {o.lr(), o.lr_decay(), o.weight_decay(), o.initial_accumulator_value(), o.eps()};
  }
  static void set_hyper(Options& o, const double* v) {
    o.lr(v[0]).lr_decay(v[1]).weight_decay(v[2]).initial_accumulator_value(v[3]).eps(v[4]);
  }
  static std::vector<Tensor*> tensors(State& s) { return {&s.sum()}; }
  static std::int64_t* step(State& s) { return &s.step(); }
};

struct RmspropTraits {
  using Options = optim::RMSpropOptions;
  using State = optim::RMSpropParamState;
  static constexpr const char* kSlots[] = {"square_avg", "momentum_buffer", "grad_avg"};
  static std::vector<double> hyper(const Options& o) {
    return {o.lr(), o.alpha(), o.eps(), o.weight_decay(), o.momentum(), o.centered() ? 1.0 : 0.0};
  }
  static void set_hyper(Options& o, const double* v) {
    o.lr(v[0]).alpha(v[1]).eps(v[2]).weight_decay(v[3]).momentum(v[4]).centered(v[5] != 0.0);
  }
  static std::vector<Tensor*> tensors(State& s) { return {&s.square_avg(), &s.momentum_buffer(), &s.grad_avg()}; }
  static std::int64_t* step(State& s) { return &s.step(); }
};

// The optimizer's key for `param` in Optimizer::state().
inline std::string key_of(const Tensor& param) { return ::c10::guts::to_string(param.unsafeGetTensorImpl()); }

template <class Visitor>
decltype(auto) visit_optimizer(const optim::Optimizer& optimizer, const std::string& what, Visitor&& visitor) {
  const optim::OptimizerOptions* defaults = &optimizer.defaults();
  if (dynamic_cast<const optim::SGDOptions*>(defaults)) return visitor.template operator()<SgdTraits>();
  if (dynamic_cast<const optim::AdamOptions*>(defaults)) return visitor.template operator()<AdamTraits>();
  if (dynamic_cast<const optim::AdagradOptions*>(defaults)) return visitor.template operator()<AdagradTraits>();
  if (dynamic_cast<const optim::RMSpropOptions*>(defaults)) return visitor.template operator()<RmspropTraits>();
  throw Error(ErrorKind::kUsage, what + ": unsupported optimizer (options type " + typeid(*defaults).name() +
                                     "); supported: SGD, Adam, Adagrad, RMSprop");
}

}  // namespace hvd::torch::detail
