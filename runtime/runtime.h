// The one runtime instance of a process: configuration, rendezvous store, communicator and engine, created by
// hvd::init() and destroyed by hvd::shutdown(). This is libhvd's only global state. Internal accessors let the
// benchmark reach the communicator directly (--raw).
#pragma once

#include <memory>

#include "runtime/comm/communicator.h"
#include "runtime/config.h"
#include "runtime/engine/engine.h"
#include "runtime/store/store.h"

namespace hvd::detail {

class Runtime {
 public:
  // Builds from the environment: the tunables, then the CPU backend (comm/cpu_backend.h) and its placement:
  // HOROVOD_* with HVD_STORE_ADDR, HVD_SECRET, HVD_DATA_ADDR from hvdrun, or MPI's own under mpirun.
  static void init();
  static void shutdown();
  static bool initialized();
  // Throws hvd::Error "hvd is not initialized; call hvd::init() first" when there is none.
  static Runtime& get();

  const Config& config() const { return config_; }
  const Topology& topology() const { return comm_->topology(); }
  const std::string& cpu_backend() const { return cpu_backend_; }  // "builtin" or "mpi"
  Communicator& communicator() { return *comm_; }
  Store& store() { return *store_; }  // the rendezvous store (hvd-bench --raw builds its own communicator)
  Engine& engine() { return *engine_; }

  ~Runtime();

 private:
  Runtime() = default;
  Config config_;
  std::string cpu_backend_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Communicator> comm_;
  std::unique_ptr<Engine> engine_;
};

}  // namespace hvd::detail
