// The command line both Fashion-MNIST examples (static and elastic) share: the same flags with the same defaults and
// help, and the same parse-then-run main. Each example derives its Options from TrainingOptions and adds its own
// flags after add_training_options().
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

namespace fashion_mnist {

struct TrainingOptions {
  int epochs = 10;
  int batch_size = 64;
  int test_batch_size = 1000;
  double lr = 0.01;
  double momentum = 0.9;  // Horovod's MNIST example uses 0.5; Fashion-MNIST needs 0.9 (see docs/cpp-api.md)
  std::uint64_t seed = 42;
  int log_interval = 10;
  std::string data_dir = "/usr/share/datasets/fashion-mnist";
  int threads = 1;
  long max_steps = -1;  // stop training after this many steps (all epochs); -1: no limit
  bool checksum = false;
};

// lr_help: how the example scales the learning rate with the number of ranks.
inline void add_training_options(CLI::App& app, TrainingOptions& o, const std::string& lr_help) {
  app.add_option("--epochs", o.epochs, "number of epochs to train")->capture_default_str();
  app.add_option("--batch-size", o.batch_size, "input batch size for training, per rank")->capture_default_str();
  app.add_option("--test-batch-size", o.test_batch_size, "input batch size for testing")->capture_default_str();
  app.add_option("--lr", o.lr, lr_help)->capture_default_str();
  app.add_option("--momentum", o.momentum, "SGD momentum")->capture_default_str();
  app.add_option("--seed", o.seed, "random seed")->capture_default_str();
  app.add_option("--log-interval", o.log_interval, "batches between progress lines")->capture_default_str();
  app.add_option("--data-dir", o.data_dir, "directory with the Fashion-MNIST IDX files (.gz or plain)")
      ->capture_default_str();
  app.add_option("--threads", o.threads, "intra-op threads per rank")->capture_default_str();
  app.add_option("--max-steps", o.max_steps, "stop after this many training steps (-1: no limit)")
      ->capture_default_str();
  app.add_flag("--checksum", o.checksum, "every rank prints a checksum of its parameters at the end");
}

// Parses the command line into the options app was built over, then runs; an exception from run ends the example
// with exit code 1 and one line naming it. A bad command line exits as CLI11 says (usage on stderr, non-zero).
template <class Run>
int parse_and_run(CLI::App& app, int argc, char** argv, const char* program, Run&& run) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    return run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return 1;
  }
}

}  // namespace fashion_mnist
