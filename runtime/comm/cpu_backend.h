// The registry of CPU backends (the communicator that negotiates and moves host tensors) and the choice among
// them for this process. Each backend is an entry with a name, whether this build has it, and how to connect;
// which entries exist is decided by CMake picking source files (mpi/mpi_backend.cc or mpi/mpi_absent.cc), so
// neither the runtime nor the engine has an #if.
//
// The choice, in order (each variable read once, into StartConfig by runtime/comm/config.cc):
//  1. HOROVOD_CONTROLLER / HOROVOD_CPU_OPERATIONS = mpi | builtin (gloo is read as builtin): both set must agree,
//     since one communicator serves negotiation and data alike;
//  2. else mpi when mpirun started the process (OMPI_COMM_WORLD_SIZE set) and hvdrun did not (no HVD_STORE_ADDR);
//  3. else builtin (TCP + shared memory, rendezvous through hvdrun's store).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/comm/communicator.h"
#include "runtime/comm/config.h"
#include "store/store.h"

namespace hvd::detail {

struct CpuConnection {
  std::string backend;           // the entry's name
  std::unique_ptr<Store> store;  // the rendezvous store (in memory where the backend needs none)
  std::unique_ptr<Communicator> comm;
};

struct CpuBackend {
  std::string name;     // "builtin", "mpi"
  std::string version;  // e.g. "Open MPI 4.1.4"; empty when not built
  bool built = false;
  std::function<CpuConnection(const StartConfig& start)> connect;  // throws hvd::Error naming what is missing
};

CpuBackend builtin_backend();
CpuBackend mpi_backend();

// The entries, built or not, in the order above.
std::vector<CpuBackend> cpu_backends();
// The name the configuration asks for (rules above); throws hvd::Error naming the variables on a contradiction.
std::string choose_cpu_backend(const StartConfig& start);
std::string choose_cpu_backend(const EnvLookup& env);  // reads the StartConfig first
// Chooses and connects; a backend this build lacks is an hvd::Error that says how to get it or avoid it.
CpuConnection connect_cpu_backend(const StartConfig& start);

}  // namespace hvd::detail
