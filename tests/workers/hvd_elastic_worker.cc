// The elastic test worker (the spec is in the elastic contract; hvdrun's elastic tests read its lines):
//   hvd_elastic_worker --steps N [--commit-every K (default 1)] [--step-ms M (default 0)]
//                      [--hold-rank R --hold-at-step H]
// State: `step` and `params` (64 floats, 0 at start). Each step first decays the parameters (params *= 0.99: an
// optimizer that updates in two phases), then allreduces a 64-float gradient that depends on the step only,
// averages it (sum / size: exact for these values, so the result is the same for every job size), applies
// params -= 0.1 * grad, ++step, and commits every K steps. A step cut short in its allreduce has decayed but not
// stepped: only the rollback to the commit (State::restore) undoes that, so a run with resets ends with the checksum
// of an undisturbed one exactly when every reset went back to the last commit.
// --hold-rank R --hold-at-step H: in this process's first training run, rank R stops before step H+1 (step == H),
// prints its holding line and sleeps until killed: the tests kill it there, between two commits when H % K != 0,
// while the other ranks wait in step H+1's allreduce with their parameters already decayed.
// Lines on stdout:
//   elastic_worker start generation=G rank=R size=S step=N        every rank, at each (re)start of training
//   elastic_worker commit step=N size=S                           rank 0, at each commit
//   elastic_worker holding step=H rank=R pid=P                    rank R, with --hold-rank
//   elastic_worker done step=N rank=R size=S checksum=<hex>       every rank, at the end
// Exit 0 once step reaches N; 2 on bad arguments; 1 when the job fails (the error on stderr).
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <thread>
#include <utility>

#include "hvd/elastic.h"
#include "hvd/hvd.h"

namespace {

struct Options {
  int steps = -1;
  int commit_every = 1;
  int step_ms = 0;
  int hold_rank = -1;
  int hold_at_step = -1;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return false;
    int* field = flag == "--steps"          ? &o.steps
                 : flag == "--commit-every" ? &o.commit_every
                 : flag == "--step-ms"      ? &o.step_ms
                 : flag == "--hold-rank"    ? &o.hold_rank
                 : flag == "--hold-at-step" ? &o.hold_at_step
                                            : nullptr;
    if (!field) return false;
    try {
      std::size_t used = 0;
      *field = std::stoi(argv[++i], &used);
      if (argv[i][used] != '\0') return false;
    } catch (const std::exception&) {
      return false;
    }
  }
  const bool hold_ok = (o.hold_rank < 0) == (o.hold_at_step < 0);  // both or neither
  return o.steps >= 0 && o.commit_every >= 1 && o.step_ms >= 0 && hold_ok;
}

using Params = std::array<float, 64>;

// Sleeps until killed: the test's SIGKILL (or SIGSTOP) is the failure.
[[noreturn]] void hold(int step) {
  std::printf("elastic_worker holding step=%d rank=%d pid=%d\n", step, hvd::rank(), static_cast<int>(::getpid()));
  std::fflush(stdout);
  for (;;) ::pause();
}

// Multiples of 1/4 below 8: sums over up to 2^20 ranks are exact, and so is dividing the sum by the size.
void gradient(int step, Params& grad) {
  for (std::size_t i = 0; i < grad.size(); ++i) grad[i] = static_cast<float>((step * 7 + static_cast<int>(i)) % 32) / 4;
}

std::uint64_t fnv1a(const void* data, std::size_t bytes) {
  std::uint64_t h = 1469598103934665603ull;
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (!parse(argc, argv, opt)) {
    std::fprintf(stderr,
                 "usage: hvd_elastic_worker --steps N [--commit-every K] [--step-ms M] [--hold-rank R "
                 "--hold-at-step H] (N >= 0, K >= 1)\n");
    return 2;
  }
  try {
    hvd::init();
    int step = 0;
    Params params{};
    hvd::elastic::State state;
    state.track("step", step);
    state.track("params", params);
    bool first_run = true;
    hvd::elastic::run(state, [&] {
      const bool may_hold = std::exchange(first_run, false);
      std::printf("elastic_worker start generation=%lld rank=%d size=%d step=%d\n",
                  static_cast<long long>(hvd::elastic::generation()), hvd::rank(), hvd::size(), step);
      std::fflush(stdout);
      Params grad;
      while (step < opt.steps) {
        if (may_hold && step == opt.hold_at_step && hvd::rank() == opt.hold_rank) hold(step);
        if (opt.step_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(opt.step_ms));
        for (float& p : params) p *= 0.99f;
        gradient(step, grad);
        hvd::allreduce(hvd::TensorView{grad.data(), hvd::DataType::kFloat32, {64}, {}},
                       hvd::TensorView{grad.data(), hvd::DataType::kFloat32, {64}, {}},
                       {.op = hvd::ReduceOp::kSum, .name = "elastic_worker.grad"});
        const float size = static_cast<float>(hvd::size());
        for (std::size_t i = 0; i < params.size(); ++i) params[i] -= 0.1f * (grad[i] / size);
        ++step;
        if (step % opt.commit_every == 0) {
          // Printed before commit(): the snapshot is taken first thing and cannot fail; what may throw after it
          // (HostsUpdatedInterrupt, a lost peer in its broadcast) comes after the commit.
          if (hvd::rank() == 0) {
            std::printf("elastic_worker commit step=%d size=%d\n", step, hvd::size());
            std::fflush(stdout);
          }
          state.commit();
        }
      }
    });
    std::printf("elastic_worker done step=%d rank=%d size=%d checksum=%016llx\n", step, hvd::rank(), hvd::size(),
                static_cast<unsigned long long>(fnv1a(params.data(), sizeof params)));
    std::fflush(stdout);
    hvd::shutdown();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "elastic_worker failed: %s\n", e.what());
    return 1;
  }
  return 0;
}
