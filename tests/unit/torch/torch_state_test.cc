// TorchState (hvd/torch_elastic.h) in a static job: commit/restore round trips of a model, its optimizer (state
// tensors, step counts, hyper-parameters), epoch and batch; sync gives every rank rank 0's; unsupported optimizers
// are refused.
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>

#include "hvd/torch_elastic.h"
#include "tests/unit/torch/torch_test_util.h"

namespace ht = hvd::torch;
using hvd::torch::testing::ensure_init;
using hvd::torch::testing::same_on_all_ranks;

namespace {

// A module with parameters and buffers (BatchNorm's running statistics).
torch::nn::Sequential make_model() {
  return torch::nn::Sequential(torch::nn::Linear(4, 3), torch::nn::BatchNorm1d(3), torch::nn::Linear(3, 2));
}

void train_steps(torch::nn::Sequential& model, torch::optim::Optimizer& optimizer, int steps, int seed) {
  for (int i = 0; i < steps; ++i) {
    optimizer.zero_grad();
    torch::Tensor input = torch::arange(32, torch::kFloat32).reshape({8, 4}) / (10.0 + i + seed);
    model->forward(input).pow(2).mean().backward();
    optimizer.step();
  }
}

std::vector<torch::Tensor> copies(const torch::nn::Sequential& model) {
  std::vector<torch::Tensor> list;
  for (const auto& p : model->parameters()) list.push_back(p.detach().clone());
  for (const auto& b : model->buffers()) list.push_back(b.detach().clone());
  return list;
}

bool equal(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].equal(b[i])) return false;
  }
  return true;
}

std::vector<torch::Tensor> adam_state(torch::optim::Adam& adam) {
  std::vector<torch::Tensor> list;
  for (const auto& p : adam.param_groups()[0].params()) {
    auto it = adam.state().find(c10::guts::to_string(p.unsafeGetTensorImpl()));
    if (it == adam.state().end()) continue;
    auto& s = static_cast<torch::optim::AdamParamState&>(*it->second);
    list.push_back(s.exp_avg().clone());
    list.push_back(s.exp_avg_sq().clone());
    list.push_back(torch::tensor({static_cast<double>(s.step())}));
  }
  return list;
}

}  // namespace

TEST_CASE("TorchState: restore puts back the last commit, as often as needed") {
  ensure_init();
  auto model = make_model();
  torch::optim::Adam adam(model->parameters(), torch::optim::AdamOptions(0.01));
  ht::elastic::TorchState state(*model, adam);
  train_steps(model, adam, 2, 0);
  state.epoch = 3;
  state.batch = 7;
  state.commit();
  const auto params = copies(model);
  const auto moments = adam_state(adam);
  REQUIRE(moments.size() == 3 * model->parameters().size());

  for (int round = 0; round < 2; ++round) {
    CAPTURE(round);
    train_steps(model, adam, 3, round + 1);
    static_cast<torch::optim::AdamOptions&>(adam.param_groups()[0].options()).lr(0.5);
    state.epoch = 9;
    state.batch = 1;
    REQUIRE_FALSE(equal(copies(model), params));
    state.restore();
    CHECK(equal(copies(model), params));
    CHECK(equal(adam_state(adam), moments));
    CHECK(static_cast<torch::optim::AdamOptions&>(adam.param_groups()[0].options()).lr() == 0.01);
    CHECK(state.epoch == 3);
    CHECK(state.batch == 7);
  }
}

TEST_CASE("TorchState: restore before any commit goes back to construction; state made later is dropped") {
  ensure_init();
  auto model = make_model();
  torch::optim::SGD sgd(model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  const auto initial = copies(model);
  ht::elastic::TorchState state(*model, sgd);
  train_steps(model, sgd, 2, 0);
  REQUIRE_FALSE(sgd.state().empty());  // momentum buffers exist now
  state.restore();
  CHECK(equal(copies(model), initial));
  CHECK(sgd.state().empty());
}

TEST_CASE("TorchState: sync gives every rank rank 0's model, optimizer state, epoch and batch") {
  ensure_init();
  torch::manual_seed(100 + hvd::rank());  // a different model on every rank
  auto model = make_model();
  torch::optim::SGD sgd(model->parameters(), torch::optim::SGDOptions(0.1 * (hvd::rank() + 1)).momentum(0.9));
  train_steps(model, sgd, 1 + hvd::rank(), hvd::rank());
  ht::DistributedOptimizer distributed(sgd, model->named_parameters());
  ht::elastic::TorchState state(*model, distributed);
  state.epoch = 10 + hvd::rank();
  state.sync();
  for (const auto& item : model->named_parameters()) CHECK(same_on_all_ranks(item.value(), "param/" + item.key()));
  for (const auto& item : model->named_buffers()) CHECK(same_on_all_ranks(item.value(), "buffer/" + item.key()));
  for (const auto& p : model->parameters()) {
    auto& s = static_cast<torch::optim::SGDParamState&>(*sgd.state().at(c10::guts::to_string(p.unsafeGetTensorImpl())));
    CHECK(same_on_all_ranks(s.momentum_buffer(), "momentum"));
  }
  CHECK(static_cast<torch::optim::SGDOptions&>(sgd.param_groups()[0].options()).lr() == doctest::Approx(0.1));
  CHECK(state.epoch == 10);
  // Training goes on in step on every rank, through the DistributedOptimizer the state was made from.
  distributed.zero_grad();
  model->forward(torch::ones({8, 4}) * (hvd::rank() + 1)).pow(2).mean().backward();
  distributed.step();
  for (const auto& item : model->named_parameters()) CHECK(same_on_all_ranks(item.value(), "after/" + item.key()));
}

TEST_CASE("TorchState: an optimizer hvd_torch cannot copy is refused by name") {
  ensure_init();
  auto model = make_model();
  torch::optim::LBFGS lbfgs(model->parameters());
  CHECK_THROWS_WITH_AS(ht::elastic::TorchState(*model, lbfgs), doctest::Contains("unsupported optimizer"), hvd::Error);
}
