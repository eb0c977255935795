// libhvd's entry point: start the runtime and ask where this process stands in the job.
// With no launcher environment (HOROVOD_RANK etc. unset) init() makes a 1-rank job.
#pragma once

#include <string>

#include "hvd/collectives.h"
#include "hvd/error.h"
#include "hvd/export.h"
#include "hvd/handle.h"
#include "hvd/process_set.h"
#include "hvd/timeline.h"
#include "hvd/types.h"

namespace hvd {

HVD_API void init();      // throws hvd::Error naming the problem (bad HOROVOD_* value, unreachable store, ...)
HVD_API void shutdown();  // idempotent; pending ops fail with "hvd is shutting down"
HVD_API bool is_initialized();

HVD_API int rank();
HVD_API int size();
HVD_API int local_rank();
HVD_API int local_size();
HVD_API int cross_rank();
HVD_API int cross_size();

// The CPU backend this process negotiates and moves host tensors on: "builtin" (TCP + shared memory, under
// hvdrun) or "mpi" (Open MPI, under mpirun or hvdrun --mpi). Horovod's mpi_built()/mpi_enabled() likewise.
HVD_API std::string cpu_backend();
HVD_API bool mpi_built();    // this libhvd has the MPI backend (callable before init)
HVD_API bool mpi_enabled();  // and this process runs on it
HVD_API bool nccl_built();   // this libhvd takes GPU tensors through NCCL (callable before init)

// For framework glue: `query` says how many threads of this process compute at once (a framework's intra-op
// pool). init() asks it when HVD_CPU_BIND=auto decides whether the ranks of a host get cores of their own: a rank
// is bound only when its share holds those threads and the engine's. hvd_torch registers torch's thread count
// when it is loaded; without a query (a plain C++ program) a rank counts one busy thread.
HVD_API void set_compute_threads_query(int (*query)());

}  // namespace hvd
