// Failure worker: every rank runs a few allreduces, then the last rank starts a 64 MiB allreduce and exits in the
// middle of it, with code 0 by default so that hvdrun lets the others finish (HVD_TEST_VICTIM_CODE=N: exit N,
// and hvdrun stops the job). The others must see their allreduce fail within 10 s with an error naming the rank
// that died; they print "rank R: failed after S s: MESSAGE" and exit 0 if it named it in time, 1 otherwise.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "hvd/hvd.h"

int main() {
  hvd::init();
  const int rank = hvd::rank(), size = hvd::size(), victim = size - 1;
  std::vector<float> small(1024, 1.0f);
  for (int i = 0; i < 5; ++i) {
    hvd::allreduce({small.data(), hvd::DataType::kFloat32, {1024}, {}},
                   {small.data(), hvd::DataType::kFloat32, {1024}, {}}, {hvd::ReduceOp::kSum, 1, 1, "warmup"});
  }
  std::vector<float> big(16u << 20, 1.0f);
  hvd::TensorView v{big.data(), hvd::DataType::kFloat32, {static_cast<std::int64_t>(big.size())}, {}};
  auto start = std::chrono::steady_clock::now();
  auto h = hvd::allreduce_async(v, v, {hvd::ReduceOp::kSum, 1, 1, "big"});
  if (rank == victim) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::fprintf(stderr, "rank %d: exiting in the middle of an allreduce\n", rank);
    const char* code = std::getenv("HVD_TEST_VICTIM_CODE");
    _exit(code ? std::atoi(code) : 0);
  }
  try {
    h.wait();
    std::printf("rank %d: the allreduce succeeded although rank %d died\n", rank, victim);
    return 1;
  } catch (const hvd::Error& e) {
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::string msg = e.what();
    std::printf("rank %d: failed after %.2f s: %s\n", rank, s, msg.c_str());
    std::fflush(stdout);
    bool named = msg.find("rank " + std::to_string(victim)) != std::string::npos;
    hvd::shutdown();  // must return although a peer is gone
    return named && s < 10 ? 0 : 1;
  }
}
