// DistributedOptimizer: gradients come out averaged (or summed) over ranks, parameters without gradients get
// zeros, accumulation over several backward passes, compression, predivide, Adasum, and misuse errors.
// Each rank's data is a known function of its rank, so every rank computes the expected result itself.
#include "tests/unit/torch/torch_test_util.h"

namespace ht = hvd::torch;
using hvd::torch::testing::ensure_init;
using hvd::torch::testing::same_on_all_ranks;

namespace {

torch::Tensor data_of(int rank) { return torch::arange(15, torch::kFloat32).reshape({5, 3}) / 10.0 + rank; }

struct Model {
  torch::Tensor w = torch::full({2, 3}, 0.5f).requires_grad_();
  torch::Tensor b = torch::full({2}, -0.25f).requires_grad_();
  torch::Tensor unused = torch::ones({4}).requires_grad_();  // never reached by backward
  ht::NamedTensors named() const { return {{"w", w}, {"b", b}, {"unused", unused}}; }
  std::vector<torch::Tensor> list() const { return {w, b, unused}; }
  torch::Tensor loss(int rank) const { return torch::addmm(b, data_of(rank), w.t()).pow(2).mean(); }
};

// Gradients of (w, b) for `rank`'s data, computed locally.
std::vector<torch::Tensor> local_grads(const Model& m, int rank) {
  Model copy;
  {
    torch::NoGradGuard no_grad;
    copy.w.copy_(m.w);
    copy.b.copy_(m.b);
  }
  return torch::autograd::grad({copy.loss(rank)}, {copy.w, copy.b});
}

std::vector<torch::Tensor> expected_grads(const Model& m, double scale) {
  std::vector<torch::Tensor> sum{torch::zeros({2, 3}), torch::zeros({2})};
  for (int r = 0; r < hvd::size(); ++r) {
    auto g = local_grads(m, r);
    sum[0] += g[0];
    sum[1] += g[1];
  }
  return {sum[0] * scale, sum[1] * scale};
}

}  // namespace

TEST_CASE("gradients are averaged or summed across ranks") {
  ensure_init();
  const int size = hvd::size();
  struct Case {
    const char* what;
    ht::DistributedOptimizerOptions options;
    double scale, tolerance;
  };
  for (const Case& c : {Case{"average", {}, 1.0 / size, 1e-6}, Case{"sum", {.op = hvd::ReduceOp::kSum}, 1.0, 1e-6},
                        Case{"predivide 2", {.gradient_predivide_factor = 2.0}, 1.0 / size, 1e-6},
                        Case{"fp16", {.compression = ht::Compression::kFP16}, 1.0 / size, 2e-3}}) {
    CAPTURE(c.what);
    Model m;
    torch::optim::SGD sgd(m.list(), torch::optim::SGDOptions(0.0));  // lr 0: only the gradients matter
    ht::DistributedOptimizer opt(sgd, m.named(), c.options);
    opt.zero_grad();
    m.loss(hvd::rank()).backward();
    opt.step();
    auto want = expected_grads(m, c.scale);
    CHECK(torch::allclose(m.w.grad(), want[0], c.tolerance, c.tolerance));
    CHECK(torch::allclose(m.b.grad(), want[1], c.tolerance, c.tolerance));
    REQUIRE(m.unused.grad().defined());
    CHECK(m.unused.grad().eq(0).all().item<bool>());
  }
}

TEST_CASE("backward_passes_per_step accumulates locally before one allreduce") {
  ensure_init();
  Model m;
  torch::optim::SGD sgd(m.list(), torch::optim::SGDOptions(0.0));
  ht::DistributedOptimizer opt(sgd, m.named(), {.backward_passes_per_step = 2});
  opt.zero_grad();
  m.loss(hvd::rank()).backward();
  m.loss(hvd::rank()).backward();
  opt.step();
  auto want = expected_grads(m, 2.0 / hvd::size());
  CHECK(torch::allclose(m.w.grad(), want[0], 1e-5, 1e-6));
}

TEST_CASE("the step keeps parameters identical across ranks") {
  ensure_init();
  for (auto op : {hvd::ReduceOp::kAverage, hvd::ReduceOp::kAdasum}) {
    CAPTURE(hvd::name_of(op));
    Model m;
    torch::optim::SGD sgd(m.list(), torch::optim::SGDOptions(0.1).momentum(0.5));
    ht::DistributedOptimizer opt(sgd, m.named(), {.op = op});
    for (int i = 0; i < 3; ++i) {
      opt.zero_grad();
      m.loss(hvd::rank()).backward();
      opt.step();
    }
    CHECK(same_on_all_ranks(m.w.detach(), std::string("w/") + hvd::name_of(op)));
    CHECK(same_on_all_ranks(m.b.detach(), std::string("b/") + hvd::name_of(op)));
    if (hvd::size() == 1) {  // one rank: Adasum of one delta is that delta, so both equal plain SGD
      Model plain;
      torch::optim::SGD ref(plain.list(), torch::optim::SGDOptions(0.1).momentum(0.5));
      for (int i = 0; i < 3; ++i) {
        ref.zero_grad();
        plain.loss(0).backward();
        ref.step();
      }
      CHECK(torch::allclose(m.w, plain.w, 1e-6, 1e-7));
    }
  }
}

TEST_CASE("misuse is reported") {
  ensure_init();
  Model m;
  torch::optim::SGD sgd(m.list(), torch::optim::SGDOptions(0.1));
  CHECK_THROWS_WITH_AS(ht::DistributedOptimizer(sgd, ht::NamedTensors{{"w", m.w}, {"w", m.b}, {"u", m.unused}}),
                       doctest::Contains("duplicate parameter name 'w'"), hvd::Error);
  CHECK_THROWS_WITH_AS(ht::DistributedOptimizer(sgd, ht::NamedTensors{{"w", m.w}, {"u", m.unused}}),
                       doctest::Contains("no name in named_parameters"), hvd::Error);
  CHECK_THROWS_WITH_AS(
      ht::DistributedOptimizer(sgd, m.named(), {.op = hvd::ReduceOp::kSum, .gradient_predivide_factor = 2.0}),
      doctest::Contains("gradient_predivide_factor"), hvd::Error);

  ht::DistributedOptimizer opt(sgd, m.named());
  m.loss(hvd::rank()).backward();
  CHECK_THROWS_WITH_AS(opt.zero_grad(), doctest::Contains("between backward() and step()"), hvd::Error);
  CHECK_THROWS_WITH(m.loss(hvd::rank()).backward(), doctest::Contains("more than backward_passes_per_step"));
  opt.step();
  opt.zero_grad();  // fine after step()
}

TEST_CASE("a failed step is dropped: the next backward pass and zero_grad() start clean") {
  ensure_init();
  if (hvd::size() < 2) {
    MESSAGE("needs 2 ranks for a failing allreduce (tests/integration/torch_unit_np2.sh)");
    return;
  }
  // Rank-dependent shapes make 'grad/x' fail on every rank (a mismatch) while 'grad/y' succeeds: a step with one
  // failed op and one finished op, like a step cut by a lost peer. The error reaches the script somewhere else
  // (here nowhere: step() is never called), as when an elastic job's metric allreduce fails first.
  torch::Tensor x = torch::ones({1 + hvd::rank()}).requires_grad_();
  torch::Tensor y = torch::ones({2}).requires_grad_();
  torch::optim::SGD sgd(std::vector<torch::Tensor>{x, y}, torch::optim::SGDOptions(0.0));
  ht::DistributedOptimizer opt(sgd, ht::NamedTensors{{"x", x}, {"y", y}});
  const double mean = (hvd::size() + 1) / 2.0;  // the average of rank + 1
  (x.sum() + (y * (hvd::rank() + 1)).sum()).backward();
  hvd::barrier();  // after the barrier both ops are done: the engine answers requests in order

  // A backward pass right after the failed step, without zero_grad(), starts a new step (no "computed more than
  // backward_passes_per_step"): x still differs, so its op fails again and step() says so; y is averaged.
  y.mutable_grad() = torch::Tensor();
  (x.sum() + (y * (hvd::rank() + 1)).sum()).backward();
  CHECK_THROWS_AS(opt.step(), hvd::Error);
  CHECK(torch::allclose(y.grad(), torch::full({2}, mean)));

  // zero_grad() after a failed step, with x the same shape everywhere again (set_data: the optimizer's hook
  // follows the parameter to its new shape): both ops succeed.
  {
    torch::NoGradGuard no_grad;
    x.set_data(torch::ones({1}));
    x.mutable_grad() = torch::Tensor();
  }
  CHECK_NOTHROW(opt.zero_grad());
  (x.sum() * (hvd::rank() + 1) + (y * (hvd::rank() + 1)).sum()).backward();
  CHECK_NOTHROW(opt.step());
  CHECK(x.grad().item<double>() == doctest::Approx(mean));
  CHECK(torch::allclose(y.grad(), torch::full({2}, mean)));
}
