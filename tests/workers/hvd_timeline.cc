// Timeline and autotune worker. `hvd_timeline STEPS [MODE]` runs STEPS steps of three named allreduces (a fused
// group and a lone one); STEPS = 0 runs until killed, printing "steady" once 20 steps are done. Modes:
//  --runtime FILE: no HOROVOD_TIMELINE is needed: the timeline starts at step 5 through
//    hvd::start_timeline(FILE, mark_cycles = true) and stops at step 15 through the C API's hvd_stop_timeline;
//    the steps after it must leave the file alone.
//  --mismatch: at step 2 every rank also allreduces "bad" with a shape of its own (rank r: r + 1 floats); the op
//    fails on every rank, which prints "rank R: caught <message>" and goes on.
//  --after-autotune CSV: instead of the three allreduces, each step is one batch of 64 allreduces of 16 floats
//    ("grad/<i>", 4 KiB in all: fused or not, which the fusion threshold decides); every 8 steps rank 0 looks for
//    the "final" row in the autotune log CSV and the ranks agree on it; once it is there (autotune has chosen, and
//    every rank's engine has adopted the choice at the same cycle) the ranks run STEPS more steps named
//    "tuned/<i>" and print "rank R: tuned after N steps". Fails after 20000 steps without a final row.
// Prints "rank R: done".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "hvd/c_api.h"
#include "hvd/error.h"
#include "hvd/hvd.h"

namespace {

bool has_final_row(const char* csv) {
  std::ifstream in(csv);
  for (std::string line; std::getline(in, line);) {
    if (line.find(",final,") != std::string::npos) return true;
  }
  return false;
}

// Batches of 64 small allreduces until autotune is done, then `steps` more under the chosen setting.
int after_autotune(long steps, const char* csv) {
  constexpr int kTensors = 64;
  std::vector<std::vector<float>> data(kTensors, std::vector<float>(16, 1.0f));
  std::vector<hvd::TensorView> views;
  for (auto& d : data) views.push_back({d.data(), hvd::DataType::kFloat32, {16}, {}});
  auto step = [&](const char* prefix) {
    std::vector<std::string> names;
    for (int i = 0; i < kTensors; ++i) names.push_back(prefix + std::to_string(i));
    for (auto& h : hvd::allreduce_batch_async(views, views, names, {hvd::ReduceOp::kAverage, 1, 1, ""})) h.wait();
  };
  long warm = 0;
  for (float tuned = 0; tuned == 0; ++warm) {
    if (warm == 20000) {
      std::fprintf(stderr, "rank %d: no final row in %s after %ld steps\n", hvd::rank(), csv, warm);
      return 1;
    }
    step("grad/");
    if (warm % 8 != 7) continue;
    tuned = hvd::rank() == 0 && has_final_row(csv) ? 1.0f : 0.0f;
    hvd::TensorView flag{&tuned, hvd::DataType::kFloat32, {1}, {}};
    hvd::allreduce(flag, flag, {hvd::ReduceOp::kMax, 1, 1, "autotune.done"});
  }
  std::printf("rank %d: tuned after %ld steps\n", hvd::rank(), warm);
  for (long s = 0; s < steps; ++s) step("tuned/");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const long steps = argc > 1 ? std::atol(argv[1]) : 50;
  const char* mode = argc > 2 ? argv[2] : "";
  const char* runtime_file = std::strcmp(mode, "--runtime") == 0 && argc > 3 ? argv[3] : nullptr;
  const bool mismatch = std::strcmp(mode, "--mismatch") == 0;
  hvd::init();
  if (std::strcmp(mode, "--after-autotune") == 0 && argc > 3) {
    const int rc = after_autotune(steps, argv[3]);
    if (rc == 0) std::printf("rank %d: done\n", hvd::rank());
    hvd::shutdown();
    return rc;
  }
  std::vector<float> a(1000, 1.0f), b(2000, 1.0f), c(10, 1.0f);
  for (long step = 0; steps == 0 || step < steps; ++step) {
    if (runtime_file && step == 5) hvd::start_timeline(runtime_file, true);
    if (runtime_file && step == 15 && hvd_stop_timeline() != 0) {
      std::fprintf(stderr, "hvd_stop_timeline: %s\n", hvd_last_error());
      return 1;
    }
    if (mismatch && step == 2) {
      std::vector<float> bad(static_cast<std::size_t>(hvd::rank() + 1), 1.0f);
      hvd::TensorView vbad{bad.data(), hvd::DataType::kFloat32, {hvd::rank() + 1}, {}};
      try {
        hvd::allreduce(vbad, vbad, {hvd::ReduceOp::kSum, 1, 1, "bad"});
        std::fprintf(stderr, "rank %d: the allreduce of mismatched shapes did not fail\n", hvd::rank());
        return 1;
      } catch (const hvd::Error& e) {
        std::printf("rank %d: caught %s\n", hvd::rank(), e.what());
      }
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
