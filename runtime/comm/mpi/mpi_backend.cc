// The MPI entry of the CPU backend registry, compiled when CMake found Open MPI (mpi_absent.cc otherwise).
#include "common/logging.h"
#include "hvd/error.h"
#include "runtime/comm/cpu_backend.h"
#include "runtime/comm/mpi/mpi_communicator.h"
#include "store/memory_store.h"

namespace hvd::detail {
namespace {

CpuConnection connect_mpi(const StartConfig& start) {
  // Ranks that hvdrun started without --mpi each see an MPI world of one: refuse rather than run size-1 jobs.
  const Placement& place = start.placement;
  if (place.from_launcher && place.size != 1 && !start.mpi_world_size) {
    throw Error(ErrorKind::kUsage,
                "the MPI backend needs ranks started by mpirun, but this one was started by hvdrun (HOROVOD_SIZE=" +
                    std::to_string(place.size) +
                    "); use hvdrun --mpi, or unset HOROVOD_CONTROLLER/HOROVOD_CPU_OPERATIONS");
  }
  CpuConnection c;
  c.comm = std::make_unique<MpiCommunicator>(place.hostname);
  c.store = std::make_unique<MemoryStore>();
  return c;
}

}  // namespace

CpuBackend mpi_backend() { return {"mpi", HVD_MPI_VERSION, true, connect_mpi}; }

}  // namespace hvd::detail
