// Horovod's MNIST network and the test pass shared by the Fashion-MNIST examples (static and elastic): the test set
// is sharded over the ranks there are now and the loss and accuracy averaged over them.
#pragma once

// The parts of LibTorch this file uses, not <torch/torch.h>: the whole API doubles an example's compile time.
#include <torch/data/samplers/distributed.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>
#include <torch/types.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "examples/fashion_mnist_data.h"
#include "hvd/torch.h"

// Not under namespace hvd: TORCH_MODULE names torch::nn unqualified, which hvd::torch would shadow.
namespace fashion_mnist {

struct NetImpl : ::torch::nn::Module {
  NetImpl()
      : conv1(register_module("conv1", ::torch::nn::Conv2d(::torch::nn::Conv2dOptions(1, 10, 5)))),
        conv2(register_module("conv2", ::torch::nn::Conv2d(::torch::nn::Conv2dOptions(10, 20, 5)))),
        conv2_drop(register_module("conv2_drop", ::torch::nn::Dropout2d())),
        fc1(register_module("fc1", ::torch::nn::Linear(320, 50))),
        fc2(register_module("fc2", ::torch::nn::Linear(50, 10))) {}

  ::torch::Tensor forward(::torch::Tensor x) {
    x = ::torch::relu(::torch::max_pool2d(conv1->forward(x), 2));
    x = ::torch::relu(::torch::max_pool2d(conv2_drop->forward(conv2->forward(x)), 2));
    x = ::torch::relu(fc1->forward(x.view({-1, 320})));
    x = ::torch::dropout(x, 0.5, is_training());
    return ::torch::log_softmax(fc2->forward(x), 1);
  }

  ::torch::nn::Conv2d conv1, conv2;
  ::torch::nn::Dropout2d conv2_drop;
  ::torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Net);

// FNV-1a over every parameter's bytes in order: equal only if the parameters are bitwise identical.
inline std::uint64_t parameter_checksum(Net& model) {
  std::uint64_t h = 1469598103934665603ull;
  for (const auto& p : model->parameters()) {
    ::torch::Tensor c = p.detach().cpu().contiguous();
    const auto* bytes = static_cast<const unsigned char*>(c.data_ptr());
    for (std::size_t i = 0; i < c.nbytes(); ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  }
  return h;
}

// How every example ends: with --checksum, "PARAM_CHECKSUM <fields> <sum>" (the line the tests compare across ranks
// and runs; `fields` names the rank and the step count), then output flushed and hvd shut down. Returns the exit code.
inline int finish_run(Net& model, bool checksum, const std::string& fields) {
  if (checksum) {
    std::printf("PARAM_CHECKSUM %s %016llx\n", fields.c_str(),
                static_cast<unsigned long long>(parameter_checksum(model)));
  }
  std::fflush(stdout);
  hvd::shutdown();
  return 0;
}

struct TestResult {
  double loss;
  double accuracy;  // in [0, 1]
};

// Collective: every rank tests its shard; the sums are averaged over the ranks.
inline TestResult evaluate(Net& model, hvd::examples::FashionMnistDataset& dataset, int batch_size,
                           ::torch::Device device) {
  model->eval();
  ::torch::NoGradGuard no_grad;
  ::torch::data::samplers::DistributedSequentialSampler sampler(*dataset.size(), hvd::size(), hvd::rank(), false);
  double loss_sum = 0, correct = 0, count = 0;
  while (auto indices = sampler.next(static_cast<std::size_t>(batch_size))) {
    auto batch = dataset.get_batch(*indices);
    auto output = model->forward(batch.data.to(device));
    auto target = batch.target.to(device);
    loss_sum += ::torch::nll_loss(output, target, {}, ::torch::Reduction::Sum).item<double>();
    correct += output.argmax(1).eq(target).sum().item<double>();
    count += static_cast<double>(indices->size());
  }
  // Ranks may hold one sample more or less (no padding): average the sums, then divide by the average count.
  double mean_count = hvd::torch::metric_average(count, "test_count");
  return {hvd::torch::metric_average(loss_sum, "test_loss") / mean_count,
          hvd::torch::metric_average(correct, "test_correct") / mean_count};
}

}  // namespace fashion_mnist
