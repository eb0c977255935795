// broadcast_optimizer_state: ranks that start different (state present or not, other hyper-parameters) end with
// root's state. Root's values are deterministic, so every rank knows what to expect.
#include "tests/unit/torch/torch_test_util.h"

namespace ht = hvd::torch;
using hvd::torch::testing::ensure_init;
using hvd::torch::testing::same_on_all_ranks;

namespace {

// Two parameters (same values everywhere) and one step with gradient `g` on each.
struct Params {
  torch::Tensor w = torch::ones({3, 2}).requires_grad_();
  torch::Tensor b = torch::zeros({2}).requires_grad_();
  std::vector<torch::Tensor> list() const { return {w, b}; }
};

void step_with_grad(torch::optim::Optimizer& opt, const Params& p, float g) {
  for (const auto& t : p.list()) t.mutable_grad() = torch::full_like(t, g);
  opt.step();
}

template <class State>
State* state_of(torch::optim::Optimizer& opt, const torch::Tensor& p) {
  auto it = opt.state().find(c10::guts::to_string(p.unsafeGetTensorImpl()));
  return it == opt.state().end() ? nullptr : static_cast<State*>(it->second.get());
}

}  // namespace

TEST_CASE("SGD momentum: root's buffers and hyper-parameters everywhere") {
  ensure_init();
  const int rank = hvd::rank();
  Params p;
  // Root has momentum state after two steps; the others have none and another learning rate.
  torch::optim::SGD opt(p.list(), torch::optim::SGDOptions(rank == 0 ? 0.1 : 0.5).momentum(0.9));
  if (rank == 0) {
    step_with_grad(opt, p, 1.0f);
    step_with_grad(opt, p, 2.0f);
  }
  ht::broadcast_optimizer_state(opt, 0);
  auto& options = static_cast<torch::optim::SGDOptions&>(opt.param_groups()[0].options());
  CHECK(options.lr() == 0.1);
  CHECK(options.momentum() == 0.9);
  for (const auto& t : p.list()) {
    auto* s = state_of<torch::optim::SGDParamState>(opt, t);
    REQUIRE(s != nullptr);
    // momentum_buffer = 0.9 * 1 + 2 after the second step
    CHECK(torch::allclose(s->momentum_buffer(), torch::full_like(t, 2.9f)));
    CHECK(same_on_all_ranks(s->momentum_buffer(), "sgd"));
  }
}

TEST_CASE("SGD: state only the other ranks have is dropped") {
  ensure_init();
  Params p;
  torch::optim::SGD opt(p.list(), torch::optim::SGDOptions(0.1).momentum(0.9));
  if (hvd::rank() != 0) step_with_grad(opt, p, 1.0f);
  ht::broadcast_optimizer_state(opt, 0);
  CHECK(opt.state().empty());
}

TEST_CASE("Adam: moments, step counts and amsgrad follow root") {
  ensure_init();
  const int rank = hvd::rank();
  Params p;
  torch::optim::Adam opt(p.list(), torch::optim::AdamOptions(rank == 0 ? 1e-3 : 1e-2).amsgrad(rank != 0));
  step_with_grad(opt, p, static_cast<float>(rank + 1));
  if (rank == 0) step_with_grad(opt, p, 1.0f);
  ht::broadcast_optimizer_state(opt, 0);
  auto& options = static_cast<torch::optim::AdamOptions&>(opt.param_groups()[0].options());
  CHECK(options.lr() == 1e-3);
  CHECK_FALSE(options.amsgrad());
  for (const auto& t : p.list()) {
    auto* s = state_of<torch::optim::AdamParamState>(opt, t);
    REQUIRE(s != nullptr);
    CHECK(s->step() == 2);
    CHECK(torch::allclose(s->exp_avg(), torch::full_like(t, 0.19f)));       // 0.9 * 0.1 + 0.1 * 1
    CHECK(torch::allclose(s->exp_avg_sq(), torch::full_like(t, 0.001999f)));  // 0.999 * 0.001 + 0.001 * 1
    CHECK_FALSE(s->max_exp_avg_sq().defined());
    CHECK(same_on_all_ranks(s->exp_avg_sq(), "adam"));
  }
}

TEST_CASE("Adagrad and RMSprop state is broadcast") {
  ensure_init();
  const int rank = hvd::rank();
  Params p;
  torch::optim::Adagrad adagrad(p.list(), torch::optim::AdagradOptions(0.01));
  torch::optim::RMSprop rmsprop(p.list(), torch::optim::RMSpropOptions(0.01).momentum(rank == 0 ? 0.5 : 0.0));
  step_with_grad(adagrad, p, static_cast<float>(rank + 1));
  step_with_grad(rmsprop, p, static_cast<float>(rank + 1));
  ht::broadcast_optimizer_state(adagrad, 0);
  ht::broadcast_optimizer_state(rmsprop, 0);
  auto* a = state_of<torch::optim::AdagradParamState>(adagrad, p.w);
  auto* r = state_of<torch::optim::RMSpropParamState>(rmsprop, p.w);
  REQUIRE(a != nullptr);
  REQUIRE(r != nullptr);
  CHECK(torch::allclose(a->sum(), torch::full_like(p.w, 1.0f)));
  CHECK(a->step() == 1);
  CHECK(torch::allclose(r->square_avg(), torch::full_like(p.w, 0.01f)));
  CHECK(r->momentum_buffer().defined());
  CHECK(static_cast<torch::optim::RMSpropOptions&>(rmsprop.param_groups()[0].options()).momentum() == 0.5);
}

TEST_CASE("unsupported optimizers are named") {
  ensure_init();
  Params p;
  torch::optim::LBFGS opt(p.list(), torch::optim::LBFGSOptions(1.0));
  CHECK_THROWS_WITH_AS(ht::broadcast_optimizer_state(opt, 0), doctest::Contains("unsupported optimizer"), hvd::Error);
}

TEST_CASE("broadcast_parameters makes parameters equal root's") {
  ensure_init();
  torch::nn::Linear layer(4, 3);
  {
    torch::NoGradGuard no_grad;
    layer->weight.fill_(static_cast<float>(hvd::rank()));
  }
  ht::broadcast_parameters(layer->named_parameters(), 0);
  CHECK(layer->weight.eq(0).all().item<bool>());
  CHECK(same_on_all_ranks(layer->bias, "bias"));
}
