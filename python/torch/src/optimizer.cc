// hvd_torch's DistributedOptimizer over a Python torch.optim optimizer. The C++ optimizer wraps a
// torch::optim::Optimizer; PythonOptimizer is one whose param groups hold the Python optimizer's parameters (the
// same tensors) and whose step() calls back into Python to step exactly the parameters left in its groups (Adasum
// steps one parameter at a time from the gradient hooks). The hooks themselves are C++ (no GIL per gradient):
// they fire inside loss.backward(), which runs without the GIL, and launch each allreduce as its gradient is ready.
#include <memory>
#include <utility>
#include <vector>

#include "binding.h"
#include "hvd/torch.h"

namespace hvd::python {
namespace {

struct NoOptions : ::torch::optim::OptimizerCloneableOptions<NoOptions> {};

class PythonOptimizer : public ::torch::optim::Optimizer {
 public:
  // step_subset(list of tensors) steps the Python optimizer on those parameters only.
  PythonOptimizer(const std::vector<std::vector<at::Tensor>>& groups, py::function step_subset)
      : Optimizer(to_groups(groups), std::make_unique<NoOptions>()), step_subset_(std::move(step_subset)) {}

  ~PythonOptimizer() override {
    py::gil_scoped_acquire gil;
    step_subset_ = py::function();
  }

  at::Tensor step(LossClosure) override {
    std::vector<at::Tensor> params;
    for (auto& group : param_groups()) params.insert(params.end(), group.params().begin(), group.params().end());
    py::gil_scoped_acquire gil;
    step_subset_(params);
    return {};
  }

 private:
  static std::vector<::torch::optim::OptimizerParamGroup> to_groups(const std::vector<std::vector<at::Tensor>>& g) {
    std::vector<::torch::optim::OptimizerParamGroup> groups;
    for (const auto& params : g) groups.emplace_back(params);
    return groups;
  }

  py::function step_subset_;
};

// Owns the adapter and the C++ optimizer over it; declared in this order so the optimizer (which removes its
// hooks and waits for in-flight allreduces) goes first.
class DistributedOptimizer {
 public:
  DistributedOptimizer(const std::vector<std::vector<at::Tensor>>& groups, const hvd::torch::NamedTensors& named,
                       ReduceOp op, bool fp16, double gradient_predivide_factor, int backward_passes_per_step,
                       py::function step_subset, std::int32_t process_set)
      : adapter_(std::make_unique<PythonOptimizer>(groups, std::move(step_subset))) {
    hvd::torch::DistributedOptimizerOptions options;
    options.op = op;
    options.compression = fp16 ? hvd::torch::Compression::kFP16 : hvd::torch::Compression::kNone;
    options.gradient_predivide_factor = gradient_predivide_factor;
    options.backward_passes_per_step = backward_passes_per_step;
    options.process_set = process_set;
    optimizer_ = std::make_unique<hvd::torch::DistributedOptimizer>(*adapter_, named, options);
  }

  ~DistributedOptimizer() {
    py::gil_scoped_release no_gil;  // waiting for in-flight allreduces must not hold the engine's callers up
    optimizer_.reset();
  }

  void synchronize() { optimizer_->synchronize(); }
  void zero_grad() { optimizer_->zero_grad(); }

 private:
  std::unique_ptr<PythonOptimizer> adapter_;
  std::unique_ptr<hvd::torch::DistributedOptimizer> optimizer_;
};

}  // namespace

void register_optimizer(py::module_& m) {
  py::class_<DistributedOptimizer>(m, "DistributedOptimizer")
      .def(py::init<const std::vector<std::vector<at::Tensor>>&, const hvd::torch::NamedTensors&, ReduceOp, bool,
                    double, int, py::function, std::int32_t>(),
           py::arg("param_groups"), py::arg("named_parameters"), py::arg("op"), py::arg("fp16"),
           py::arg("gradient_predivide_factor"), py::arg("backward_passes_per_step"), py::arg("step_subset"),
           py::arg("process_set_id") = 0)
      .def("synchronize", &DistributedOptimizer::synchronize, py::call_guard<py::gil_scoped_release>(),
           "Waits for every gradient's allreduce and writes the results into .grad (Adasum: into the parameters)")
      .def("zero_grad", &DistributedOptimizer::zero_grad, py::call_guard<py::gil_scoped_release>(),
           "Zeroes the gradients; raises while allreduces are in flight");
}

}  // namespace hvd::python
