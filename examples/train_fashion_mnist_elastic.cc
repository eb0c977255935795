// Fashion-MNIST as an elastic job (Horovod's pytorch_mnist_elastic.py in C++), the network and test of
// train_fashion_mnist:
//
//   hvdrun -np 2 --min-np 1 --max-np 4 -H localhost:4 ./train_fashion_mnist_elastic --epochs 3
//
// Workers may die or join while it trains: hvd::elastic::run restores the last commit (every --batches-per-commit
// steps), the job re-forms in process and training goes on. The state is a TorchState (model, optimizer, epoch,
// batch) plus the samples of this epoch the whole job has trained on: each step takes the next batch-size x size
// samples of the epoch's order, one batch per rank, so after a change of size the rest of the epoch is shared by
// the ranks there are now and no sample is seen twice. A reset callback keeps the learning rate at lr x size.
// It also runs as a static job. --max-steps and --checksum for tests: each rank prints a hash of its parameters at
// the end and after each (re)start's sync ("elastic synced ..."), rank 0 at each commit ("elastic commit ..."), so
// a test can see that a reset went back to the committed parameters.
#include <torch/optim/sgd.h>
#include <torch/utils.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <thread>

#include "examples/fashion_mnist_data.h"
#include "examples/fashion_mnist_net.h"
#include "examples/training_options.h"
#include "hvd/elastic.h"
#include "hvd/torch.h"
#include "hvd/torch_elastic.h"

namespace {

struct Options : fashion_mnist::TrainingOptions {
  int batches_per_commit = 10;
  int step_ms = 0;  // sleep per step: a slower job for tests
};

using fashion_mnist::Net;

// This rank's batch of the step that starts at `processed` in the epoch's `order`: the step covers batch_size x size
// samples; past the end of the epoch a rank takes samples from its start again (every rank steps with a full batch).
std::vector<std::size_t> batch_of(const std::vector<std::size_t>& order, std::int64_t processed, int batch_size) {
  std::vector<std::size_t> indices(static_cast<std::size_t>(batch_size));
  const std::int64_t first = processed + static_cast<std::int64_t>(hvd::rank()) * batch_size;
  for (int i = 0; i < batch_size; ++i) indices[i] = order[static_cast<std::size_t>(first + i) % order.size()];
  return indices;
}

void set_lr(torch::optim::SGD& sgd, double lr) {
  for (auto& group : sgd.param_groups()) static_cast<torch::optim::SGDOptions&>(group.options()).lr(lr);
}

int run(const Options& o) {
  hvd::init();
  torch::set_num_threads(o.threads);
  torch::manual_seed(o.seed);
  hvd::examples::FashionMnistDataset train_set(hvd::examples::load_fashion_mnist(o.data_dir, true));
  hvd::examples::FashionMnistDataset test_set(hvd::examples::load_fashion_mnist(o.data_dir, false));
  const auto samples = static_cast<std::int64_t>(*train_set.size());

  Net model;
  torch::optim::SGD sgd(model->parameters(), torch::optim::SGDOptions(o.lr * hvd::size()).momentum(o.momentum));
  hvd::torch::DistributedOptimizer optimizer(sgd, model->named_parameters());

  hvd::torch::elastic::TorchState state(*model, optimizer);  // epoch counts finished epochs; batch, this epoch's
  std::int64_t processed = 0;                                // samples of this epoch the whole job has trained on
  std::int64_t steps = 0;
  state.track("processed", processed);
  state.track("steps", steps);
  state.on_reset([&] { set_lr(sgd, o.lr * hvd::size()); });

  const auto commit = [&] {
    if (o.checksum && hvd::rank() == 0) {
      std::printf("elastic commit steps=%lld checksum=%016llx\n", static_cast<long long>(steps),
                  static_cast<unsigned long long>(fashion_mnist::parameter_checksum(model)));
      std::fflush(stdout);
    }
    state.commit();
  };

  hvd::elastic::run(state, [&] {
    std::printf("elastic start rank=%d size=%d epoch=%lld steps=%lld pid=%d\n", hvd::rank(), hvd::size(),
                static_cast<long long>(state.epoch), static_cast<long long>(steps), static_cast<int>(getpid()));
    if (o.checksum) {
      std::printf("elastic synced rank=%d size=%d steps=%lld checksum=%016llx\n", hvd::rank(), hvd::size(),
                  static_cast<long long>(steps), static_cast<unsigned long long>(fashion_mnist::parameter_checksum(model)));
    }
    std::fflush(stdout);
    while (state.epoch < o.epochs && steps != o.max_steps) {
      model->train();
      std::vector<std::size_t> order(static_cast<std::size_t>(samples));
      std::iota(order.begin(), order.end(), std::size_t{0});
      std::shuffle(order.begin(), order.end(), std::mt19937_64(o.seed + static_cast<std::uint64_t>(state.epoch)));
      while (processed < samples && steps != o.max_steps) {
        auto batch = train_set.get_batch(batch_of(order, processed, o.batch_size));
        optimizer.zero_grad();
        auto loss = torch::nll_loss(model->forward(batch.data), batch.target);
        loss.backward();
        optimizer.step();
        if (o.step_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(o.step_ms));
        processed += static_cast<std::int64_t>(o.batch_size) * hvd::size();
        ++state.batch;
        ++steps;
        if (state.batch % o.log_interval == 0 && hvd::rank() == 0) {
          std::printf("Train Epoch: %lld batch %lld [%lld/%lld (%.0f%%)] size %d\tLoss: %.6f\n",
                      static_cast<long long>(state.epoch + 1), static_cast<long long>(state.batch),
                      static_cast<long long>(std::min(processed, samples)),
                      static_cast<long long>(samples), 100.0 * static_cast<double>(processed) / samples, hvd::size(),
                      loss.item<double>());
          std::fflush(stdout);
        }
        if (steps % o.batches_per_commit == 0 || steps == o.max_steps) commit();
      }
      if (steps == o.max_steps) break;
      if (o.max_steps < 0) {
        const auto result = fashion_mnist::evaluate(model, test_set, o.test_batch_size, torch::kCPU);
        if (hvd::rank() == 0) {
          std::printf("\nTest set: Average loss: %.4f, Accuracy: %.2f%%\n\n", result.loss, 100.0 * result.accuracy);
          std::fflush(stdout);
        }
      }
      ++state.epoch;
      state.batch = 0;
      processed = 0;
      commit();
    }
  });
  return fashion_mnist::finish_run(model, o.checksum,
                                   "rank=" + std::to_string(hvd::rank()) + " size=" + std::to_string(hvd::size()) +
                                       " steps=" + std::to_string(steps));
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"Train Horovod's MNIST network on Fashion-MNIST as an elastic hvd job"};
  fashion_mnist::add_training_options(app, o, "learning rate (multiplied by the number of ranks)");
  app.add_option("--batches-per-commit", o.batches_per_commit, "steps between two commits of the state")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--step-ms", o.step_ms, "sleep this long per step (tests: a slower job)")->capture_default_str();
  return fashion_mnist::parse_and_run(app, argc, argv, "train_fashion_mnist_elastic", [&] { return run(o); });
}
