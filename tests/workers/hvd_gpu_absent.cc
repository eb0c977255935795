// A GPU tensor on a machine (or build) without CUDA devices or NCCL: every rank gets an hvd::Error on the handle
// that names the tensor, the device and what is missing; CPU ops before and after still work, and the job ends
// cleanly. Run by tests/integration/gpu_absent.sh under hvdrun (it skips where a GPU is present: this program
// hands the runtime a pointer that is not device memory).
#include <cstdio>
#include <string>
#include <vector>

#include "hvd/hvd.h"

namespace {

int g_rank = 0;

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "gpu_absent rank %d: %s\n", g_rank, why.c_str());
  std::exit(1);
}

void cpu_allreduce(const std::string& name) {
  std::vector<float> v(16, static_cast<float>(g_rank + 1));
  hvd::TensorView t{v.data(), hvd::DataType::kFloat32, {16}, {}};
  hvd::allreduce(t, t, {hvd::ReduceOp::kSum, 1, 1, name});
  const float want = static_cast<float>(hvd::size() * (hvd::size() + 1) / 2);
  if (v[0] != want || v[15] != want) die(name + ": CPU allreduce gave " + std::to_string(v[0]));
}

// The error of a GPU op, checked for what it must say.
void expect_gpu_error(hvd::Handle h, const std::string& tensor) {
  try {
    h.wait();
  } catch (const hvd::Error& e) {
    std::string m = e.what();
    std::printf("rank %d: %s\n", g_rank, m.c_str());
    if (m.find("'" + tensor + "'") == std::string::npos) die("the error does not name the tensor: " + m);
    if (m.find("device 0") == std::string::npos) die("the error does not name the device: " + m);
    if (m.find("no CUDA device") == std::string::npos && m.find("no NCCL") == std::string::npos)
      die("the error does not say that no CUDA device or no NCCL is available: " + m);
    return;
  }
  die(tensor + ": a GPU op succeeded on a machine without a GPU");
}

}  // namespace

int main() {
  try {
    hvd::init();
    g_rank = hvd::rank();
    cpu_allreduce("before");
    // Not device memory: the runtime must refuse before touching it.
    std::vector<float> host(8, 1.0f);
    hvd::TensorView gpu{host.data(), hvd::DataType::kFloat32, {8}, hvd::Device::gpu(0)};
    expect_gpu_error(hvd::allreduce_async(gpu, gpu, {hvd::ReduceOp::kSum, 1, 1, "gpu.x"}), "gpu.x");
    cpu_allreduce("between");
    expect_gpu_error(hvd::allgather_async(gpu, {"gpu.gathered", {}}), "gpu.gathered");
    cpu_allreduce("after");
    hvd::shutdown();
  } catch (const std::exception& e) {
    die(e.what());
  }
  std::printf("rank %d: gpu_absent ok\n", g_rank);
  return 0;
}
