// libhvd's entry point: start the runtime and ask where this process stands in the job.
// With no launcher environment (HOROVOD_RANK etc. unset) init() makes a 1-rank job.
#pragma once

#include "hvd/collectives.h"
#include "hvd/error.h"
#include "hvd/export.h"
#include "hvd/handle.h"
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

}  // namespace hvd
