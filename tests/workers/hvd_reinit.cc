// init, shutdown, init again: on the built-in backend the second init works; on MPI it must fail with a message
// saying why (MPI cannot start twice in a process), not crash or hang. Prints one line per step; exit 0 either way.
#include <cstdio>
#include <exception>

#include "hvd/hvd.h"

namespace {

// One init and shutdown: prints "<step> init: rank R of N on B", or "<step> init <failed>: <why>" and returns false.
bool init_and_shutdown(const char* step, const char* failed) {
  try {
    hvd::init();
    std::printf("%s init: rank %d of %d on %s\n", step, hvd::rank(), hvd::size(), hvd::cpu_backend().c_str());
    hvd::shutdown();
    return true;
  } catch (const std::exception& e) {
    std::printf("%s init %s: %s\n", step, failed, e.what());
    return false;
  }
}

}  // namespace

int main() {
  if (!init_and_shutdown("first", "failed")) return 1;
  init_and_shutdown("second", "refused");
  return 0;
}
