// Failure worker for the stall inspector. Rank 0 submits tensor 'late' only after a delay of
// HOROVOD_STALL_CHECK_TIME_SECONDS + 3 s, while the other ranks wait on it.
//  - Without HOROVOD_STALL_SHUTDOWN_TIME_SECONDS: rank 0's log shows the warning ("stall: ... 'late' ... rank 0"),
//    then the allreduce completes and every rank exits 0.
//  - With HOROVOD_STALL_SHUTDOWN_TIME_SECONDS=S (> 0): rank 0 never submits 'late'; after S s the op fails on the
//    waiting ranks with the stall message, every engine shuts down, and every rank prints "stall shutdown: ..."
//    and exits 3.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "hvd/hvd.h"

int main() {
  hvd::init();
  const int rank = hvd::rank();
  const char* check = std::getenv("HOROVOD_STALL_CHECK_TIME_SECONDS");
  const char* shut = std::getenv("HOROVOD_STALL_SHUTDOWN_TIME_SECONDS");
  const bool shutdown_mode = shut && std::atoi(shut) > 0;
  float v[4] = {1, 1, 1, 1};
  hvd::TensorView t{v, hvd::DataType::kFloat32, {4}, {}};
  try {
    if (rank == 0) {
      if (shutdown_mode) {
        // Waits on something no other rank submits; the stall shutdown fails it too.
        hvd::allreduce(t, t, {hvd::ReduceOp::kSum, 1, 1, "only-rank-0"});
      } else {
        std::this_thread::sleep_for(std::chrono::seconds((check ? std::atoi(check) : 60) + 3));
      }
    }
    hvd::allreduce(t, t, {hvd::ReduceOp::kSum, 1, 1, "late"});
    std::printf("rank %d: 'late' done, value %.0f\n", rank, v[0]);
  } catch (const hvd::Error& e) {
    std::printf("rank %d: stall shutdown: %s\n", rank, e.what());
    std::fflush(stdout);
    hvd::shutdown();
    return 3;
  }
  hvd::shutdown();
  return 0;
}
