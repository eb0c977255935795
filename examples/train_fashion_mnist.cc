// Fashion-MNIST with hvd: Horovod's PyTorch MNIST example in C++. Every rank trains on its shard of the data
// (DistributedRandomSampler) with gradients averaged by DistributedOptimizer; rank 0 logs and writes the checkpoint.
// Extra flags for tests and benchmarks: --max-steps, --checksum (each rank prints a hash of its parameters),
// --benchmark (rank 0 prints one `BENCH key=value ...` line: throughput and the time step() waits for allreduce).
#include <torch/cuda.h>
#include <torch/data/samplers/distributed.h>
#include <torch/optim/sgd.h>
#include <torch/serialize.h>
#include <torch/utils.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <string>

#include "examples/fashion_mnist_data.h"
#include "examples/fashion_mnist_net.h"
#include "examples/training_options.h"
#include "hvd/torch.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options : fashion_mnist::TrainingOptions {
  bool no_cuda = false;
  bool fp16_allreduce = false;
  bool use_adasum = false;
  double gradient_predivide_factor = 1.0;
  std::string checkpoint;
  bool benchmark = false;
  long bench_warmup = 10;  // steps left out of the BENCH figures (allocators, caches; autotune's search)
};

using fashion_mnist::Net;

struct Timing {
  long steps = 0;
  double step_s = 0;  // whole steps, after warm-up
  double wait_s = 0;  // inside DistributedOptimizer::synchronize(): waiting for allreduces
};

void test(Net& model, hvd::examples::FashionMnistDataset& dataset, const Options& o, torch::Device device) {
  const auto result = fashion_mnist::evaluate(model, dataset, o.test_batch_size, device);
  if (hvd::rank() == 0) {
    std::printf("\nTest set: Average loss: %.4f, Accuracy: %.2f%%\n\n", result.loss, 100.0 * result.accuracy);
  }
  std::fflush(stdout);
}

int run(const Options& o) {
  hvd::init();
  torch::set_num_threads(o.threads);
  torch::manual_seed(o.seed);
  const bool cuda = !o.no_cuda && torch::cuda::is_available();
  torch::Device device = cuda ? torch::Device(torch::kCUDA, hvd::local_rank()) : torch::Device(torch::kCPU);
  if (cuda) torch::cuda::manual_seed(o.seed);

  hvd::examples::FashionMnistDataset train_set(hvd::examples::load_fashion_mnist(o.data_dir, true));
  hvd::examples::FashionMnistDataset test_set(hvd::examples::load_fashion_mnist(o.data_dir, false));

  Net model;
  model->to(device);
  // Horovod's rule: scale the learning rate by the number of ranks (not with Adasum, which adapts itself).
  const double lr_scaler = o.use_adasum ? 1.0 : hvd::size();
  torch::optim::SGD sgd(model->parameters(), torch::optim::SGDOptions(o.lr * lr_scaler).momentum(o.momentum));
  hvd::torch::broadcast_parameters(model->named_parameters(), 0);
  hvd::torch::broadcast_optimizer_state(sgd, 0);
  hvd::torch::DistributedOptimizerOptions dopts;
  dopts.compression = o.fp16_allreduce ? hvd::torch::Compression::kFP16 : hvd::torch::Compression::kNone;
  dopts.op = o.use_adasum ? hvd::ReduceOp::kAdasum : hvd::ReduceOp::kAverage;
  dopts.gradient_predivide_factor = o.gradient_predivide_factor;
  hvd::torch::DistributedOptimizer optimizer(sgd, model->named_parameters(), dopts);

  torch::data::samplers::DistributedRandomSampler sampler(*train_set.size(), hvd::size(), hvd::rank());
  const long shard = static_cast<long>((*train_set.size() + hvd::size() - 1) / hvd::size());
  const long batches = (shard + o.batch_size - 1) / o.batch_size;
  Timing timing;
  long step = 0;
  const auto train_start = Clock::now();
  for (int epoch = 1; epoch <= o.epochs && step != o.max_steps; ++epoch) {
    model->train();
    sampler.set_epoch(static_cast<std::size_t>(epoch));
    sampler.reset();
    long batch_idx = 0;
    while (step != o.max_steps) {
      const auto t0 = Clock::now();
      auto indices = sampler.next(static_cast<std::size_t>(o.batch_size));
      if (!indices) break;
      auto batch = train_set.get_batch(*indices);
      optimizer.zero_grad();
      auto loss = torch::nll_loss(model->forward(batch.data.to(device)), batch.target.to(device));
      loss.backward();
      const auto t1 = Clock::now();
      optimizer.synchronize();
      const auto t2 = Clock::now();
      optimizer.step();
      if (++step > o.bench_warmup) {  // the first steps warm up allocators and the runtime's caches
        ++timing.steps;
        timing.step_s += std::chrono::duration<double>(Clock::now() - t0).count();
        timing.wait_s += std::chrono::duration<double>(t2 - t1).count();
      }
      if (batch_idx % o.log_interval == 0 && hvd::rank() == 0) {
        std::printf("Train Epoch: %d [%ld/%ld (%.0f%%)]\tLoss: %.6f\n", epoch, batch_idx * o.batch_size, shard,
                    100.0 * static_cast<double>(batch_idx) / static_cast<double>(batches), loss.item<double>());
        std::fflush(stdout);
      }
      ++batch_idx;
    }
    const double train_s = std::chrono::duration<double>(Clock::now() - train_start).count();
    if (!o.benchmark) test(model, test_set, o, device);
    if (hvd::rank() == 0 && !o.benchmark) std::printf("Epoch %d done: %.1f s of training so far\n", epoch, train_s);
    if (hvd::rank() == 0 && !o.checkpoint.empty()) torch::save(model, o.checkpoint);
  }
  if (o.benchmark && hvd::rank() == 0) {
    const double per_step = timing.step_s / static_cast<double>(std::max(1L, timing.steps));
    std::printf(
        "BENCH np=%d threads=%d batch=%d steps=%ld samples_per_sec=%.1f step_ms=%.3f wait_ms=%.3f "
        "wait_share=%.4f\n",
        hvd::size(), o.threads, o.batch_size, timing.steps, hvd::size() * o.batch_size / per_step, 1000.0 * per_step,
        1000.0 * timing.wait_s / static_cast<double>(std::max(1L, timing.steps)),
        timing.wait_s / std::max(1e-12, timing.step_s));
  }
  return fashion_mnist::finish_run(model, o.checksum,
                                   "rank=" + std::to_string(hvd::rank()) + " steps=" + std::to_string(step));
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"Train Horovod's MNIST network on Fashion-MNIST with hvd"};
  fashion_mnist::add_training_options(app, o, "learning rate (multiplied by the number of ranks unless --use-adasum)");
  app.add_flag("--no-cuda", o.no_cuda, "train on the CPU even when CUDA is available");
  app.add_flag("--fp16-allreduce", o.fp16_allreduce, "compress gradients to float16 for the allreduce");
  app.add_flag("--use-adasum", o.use_adasum, "reduce with Adasum instead of averaging");
  app.add_option("--gradient-predivide-factor", o.gradient_predivide_factor,
                 "divide gradients by this before the allreduce and by size/factor after")
      ->capture_default_str();
  app.add_option("--checkpoint", o.checkpoint, "rank 0 saves the model here after each epoch");
  app.add_flag("--benchmark", o.benchmark, "skip testing; rank 0 prints a BENCH line with throughput figures");
  app.add_option("--bench-warmup", o.bench_warmup, "steps the BENCH figures leave out")->capture_default_str();
  return fashion_mnist::parse_and_run(app, argc, argv, "train_fashion_mnist", [&] { return run(o); });
}
