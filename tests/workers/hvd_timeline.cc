// Timeline worker: runs STEPS steps of three named allreduces (a fused group and a lone one); STEPS = 0 runs until
// killed, printing "steady" once 20 steps are done. With `--runtime FILE`, no HOROVOD_TIMELINE is needed: the
// timeline starts at step 5 through hvd::start_timeline(FILE, mark_cycles = true) and stops at step 15 through
// the C API's hvd_stop_timeline; the steps after it must leave the file alone. Prints "rank R: done".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "hvd/c_api.h"
#include "hvd/hvd.h"

int main(int argc, char** argv) {
  const long steps = argc > 1 ? std::atol(argv[1]) : 50;
  const char* runtime_file = argc > 3 && std::strcmp(argv[2], "--runtime") == 0 ? argv[3] : nullptr;
  hvd::init();
  std::vector<float> a(1000, 1.0f), b(2000, 1.0f), c(10, 1.0f);
  for (long step = 0; steps == 0 || step < steps; ++step) {
    if (runtime_file && step == 5) hvd::start_timeline(runtime_file, true);
    if (runtime_file && step == 15 && hvd_stop_timeline() != 0) {
      std::fprintf(stderr, "hvd_stop_timeline: %s\n", hvd_last_error());
      return 1;
    }
    hvd::TensorView va{a.data(), hvd::DataType::kFloat32, {1000}, {}};
    hvd::TensorView vb{b.data(), hvd::DataType::kFloat32, {2000}, {}};
    hvd::TensorView vc{c.data(), hvd::DataType::kFloat32, {10}, {}};
    auto ha = hvd::allreduce_async(va, va, {hvd::ReduceOp::kAverage, 1, 1, "grad/a"});
    auto hb = hvd::allreduce_async(vb, vb, {hvd::ReduceOp::kAverage, 1, 1, "grad/b"});
    ha.wait();
    hb.wait();
    hvd::allreduce(vc, vc, {hvd::ReduceOp::kAverage, 1, 1, "loss"});
    if (steps == 0 && step == 20) {
      std::printf("rank %d: steady\n", hvd::rank());
      std::fflush(stdout);
    }
  }
  if (runtime_file && hvd_start_timeline(nullptr, 0) == 0) {
    std::fprintf(stderr, "hvd_start_timeline(NULL) did not fail\n");
    return 1;
  }
  std::printf("rank %d: done\n", hvd::rank());
  hvd::shutdown();
  return 0;
}
