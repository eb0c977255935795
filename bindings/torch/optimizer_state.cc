// broadcast_optimizer_state: makes every rank's optimizer equal to root's. Per optimizer family a traits struct
// says which hyper-parameters, state tensors (all shaped like their parameter) and step counter it has; one generic
// routine then (1) checks that the param-group layout matches, (2) broadcasts hyper-parameters, (3) broadcasts
// which state exists on root and creates/drops local state to match, (4) broadcasts step counters and tensors.
#include <string>
#include <vector>

#include "hvd/torch.h"
#include "bindings/torch/optimizer_traits.h"

namespace hvd::torch {
namespace {

namespace optim = ::torch::optim;
using detail::key_of;

// Broadcasts `values` from root and throws if this rank's differ (used for layouts that must already agree).
void expect_same_as_root(const std::vector<std::int64_t>& values, int root, const std::string& what) {
  Tensor t = ::torch::tensor(values, ::torch::kInt64);
  broadcast_(t, {.root = root, .name = "optimizer_state/" + what});
  std::vector<std::int64_t> theirs(t.data_ptr<std::int64_t>(), t.data_ptr<std::int64_t>() + t.numel());
  if (theirs != values) {
    throw Error(ErrorKind::kMismatch,
                "broadcast_optimizer_state: rank " + std::to_string(hvd::rank()) + " has " + what + " " +
                    ::c10::str(::c10::IntArrayRef(values)) + ", root rank " + std::to_string(root) + " has " +
                    ::c10::str(::c10::IntArrayRef(theirs)) + "; build the same optimizer on every rank",
                {.rank = hvd::rank(), .peer = root});
  }
}

// Step (2): the hyper-parameters of every group, then of the defaults, as root has them.
template <class Traits>
void broadcast_hyper_parameters(optim::Optimizer& optimizer, int root) {
  auto& groups = optimizer.param_groups();
  std::vector<double> hyper;
  for (auto& group : groups) {
    auto h = Traits::hyper(static_cast<typename Traits::Options&>(group.options()));
    hyper.insert(hyper.end(), h.begin(), h.end());
  }
  auto d = Traits::hyper(static_cast<typename Traits::Options&>(optimizer.defaults()));
  hyper.insert(hyper.end(), d.begin(), d.end());
  Tensor hyper_t = ::torch::tensor(hyper, ::torch::kFloat64);
  broadcast_(hyper_t, {.root = root, .name = "optimizer_state/hyper_parameters"});
  const double* h = hyper_t.data_ptr<double>();
  const std::size_t per_group = d.size();
  for (std::size_t g = 0; g < groups.size(); ++g) {
    Traits::set_hyper(static_cast<typename Traits::Options&>(groups[g].options()), h + g * per_group);
  }
  Traits::set_hyper(static_cast<typename Traits::Options&>(optimizer.defaults()), h + groups.size() * per_group);
}

template <class Traits>
void broadcast_state_as(optim::Optimizer& optimizer, int root) {
  auto& groups = optimizer.param_groups();
  auto& state = optimizer.state();
  constexpr std::size_t kNumSlots = std::size(Traits::kSlots);

  std::vector<std::int64_t> layout{static_cast<std::int64_t>(groups.size())};
  expect_same_as_root(layout, root, "param group count");
  for (const auto& group : groups) layout.push_back(static_cast<std::int64_t>(group.params().size()));
  expect_same_as_root(layout, root, "param group sizes");

  broadcast_hyper_parameters<Traits>(optimizer, root);

  // Which state exists on root: per parameter, [has state, slot defined...] and the step counter.
  std::vector<Tensor> params;
  for (auto& group : groups) params.insert(params.end(), group.params().begin(), group.params().end());
  std::vector<std::int64_t> flags, steps;
  for (const auto& p : params) {
    auto it = state.find(key_of(p));
    auto* s = it == state.end() ? nullptr : static_cast<typename Traits::State*>(it->second.get());
    flags.push_back(s != nullptr);
    for (std::size_t i = 0; i < kNumSlots; ++i) flags.push_back(s != nullptr && Traits::tensors(*s)[i]->defined());
    steps.push_back(s != nullptr && Traits::step(*s) != nullptr ? *Traits::step(*s) : 0);
  }
  Tensor flags_t = ::torch::tensor(flags, ::torch::kInt64);
  Tensor steps_t = ::torch::tensor(steps, ::torch::kInt64);
  broadcast_(flags_t, {.root = root, .name = "optimizer_state/flags"});
  broadcast_(steps_t, {.root = root, .name = "optimizer_state/steps"});
  const std::int64_t* f = flags_t.data_ptr<std::int64_t>();

  ::torch::NoGradGuard no_grad;
  std::vector<TensorHandle> handles;
  for (std::size_t j = 0; j < params.size(); ++j) {
    const std::int64_t* pf = f + j * (1 + kNumSlots);
    const std::string key = key_of(params[j]);
    if (pf[0] == 0) {
      state.erase(key);
      continue;
    }
    auto& slot = state[key];
    if (!slot) slot = std::make_unique<typename Traits::State>();
    auto& s = static_cast<typename Traits::State&>(*slot);
    if (auto* step = Traits::step(s)) *step = steps_t.data_ptr<std::int64_t>()[j];
    auto tensors = Traits::tensors(s);
    for (std::size_t i = 0; i < kNumSlots; ++i) {
      Tensor& t = *tensors[i];
      if (pf[1 + i] == 0) {
        t = Tensor();
        continue;
      }
      if (!t.defined()) t = ::torch::zeros_like(params[j], ::torch::MemoryFormat::Contiguous);
      if (!t.is_contiguous()) t = t.contiguous();
      handles.push_back(broadcast_async_(
          t, {.root = root, .name = "optimizer_state/param" + std::to_string(j) + "/" + Traits::kSlots[i]}));
    }
  }
  for (auto& handle : handles) handle.wait();
}

}  // namespace

void broadcast_optimizer_state(optim::Optimizer& optimizer, int root) {
  detail::visit_optimizer(optimizer, "broadcast_optimizer_state",
                          [&]<class Traits>() { broadcast_state_as<Traits>(optimizer, root); });
}

}  // namespace hvd::torch
