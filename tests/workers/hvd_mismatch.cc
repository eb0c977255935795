// Failure worker: rank 1 (the last rank at np=2) passes float16 where the others pass float32, then a shape that
// differs. Every rank must get an hvd::Error naming the tensor, the op and the disagreeing ranks, and the job must
// go on: a normal allreduce afterwards succeeds. Exits 0 when all of that holds, 1 otherwise.
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "hvd/hvd.h"

namespace {
std::string failure_of(const std::function<void()>& op) {
  try {
    op();
  } catch (const hvd::Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

int main() {
  hvd::init();
  const int rank = hvd::rank(), size = hvd::size();
  const int odd = size - 1;
  int bad = 0;
  std::vector<float> f(16, 1.0f);
  std::vector<std::uint16_t> h(16, 0x3c00);
  std::string msg = failure_of([&] {
    if (rank == odd && size > 1)
      hvd::allreduce({h.data(), hvd::DataType::kFloat16, {16}, {}}, {h.data(), hvd::DataType::kFloat16, {16}, {}},
                     {hvd::ReduceOp::kSum, 1, 1, "grad/fc1.weight"});
    else
      hvd::allreduce({f.data(), hvd::DataType::kFloat32, {16}, {}}, {f.data(), hvd::DataType::kFloat32, {16}, {}},
                     {hvd::ReduceOp::kSum, 1, 1, "grad/fc1.weight"});
  });
  std::printf("rank %d dtype mismatch: %s\n", rank, msg.c_str());
  if (size > 1 &&
      (msg.find("allreduce 'grad/fc1.weight'") == std::string::npos ||
       msg.find("rank " + std::to_string(odd)) == std::string::npos || msg.find("float16") == std::string::npos)) {
    ++bad;
  }
  msg = failure_of([&] {
    std::int64_t n = rank == odd ? 8 : 16;
    hvd::allreduce({f.data(), hvd::DataType::kFloat32, {n}, {}}, {f.data(), hvd::DataType::kFloat32, {n}, {}},
                   {hvd::ReduceOp::kSum, 1, 1, "grad/shape"});
  });
  std::printf("rank %d shape mismatch: %s\n", rank, msg.c_str());
  if (size > 1 && (msg.find("shape [8]") == std::string::npos || msg.find("shape [16]") == std::string::npos)) ++bad;
  std::vector<float> ok(4, 1.0f);
  hvd::allreduce({ok.data(), hvd::DataType::kFloat32, {4}, {}}, {ok.data(), hvd::DataType::kFloat32, {4}, {}},
                 {hvd::ReduceOp::kSum, 1, 1, "after"});
  if (ok[0] != static_cast<float>(size)) ++bad;
  std::printf("rank %d job goes on: %s\n", rank, bad ? "NO" : "yes");
  hvd::shutdown();
  return bad ? 1 : 0;
}
