// init, shutdown, init again: on the built-in backend the second init works; on MPI it must fail with a message
// saying why (MPI cannot start twice in a process), not crash or hang. Prints one line per step; exit 0 either way.
#include <cstdio>
#include <exception>

#include "hvd/hvd.h"

int main() {
  try {
    hvd::init();
    std::printf("first init: rank %d of %d on %s\n", hvd::rank(), hvd::size(), hvd::cpu_backend().c_str());
    hvd::shutdown();
  } catch (const std::exception& e) {
    std::printf("first init failed: %s\n", e.what());
    return 1;
  }
  try {
    hvd::init();
    std::printf("second init: rank %d of %d on %s\n", hvd::rank(), hvd::size(), hvd::cpu_backend().c_str());
    hvd::shutdown();
  } catch (const std::exception& e) {
    std::printf("second init refused: %s\n", e.what());
  }
  return 0;
}
