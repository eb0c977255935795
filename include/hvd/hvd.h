// libhvd's entry point: start the runtime and ask where this process stands in the job.
// With no launcher environment (HOROVOD_RANK etc. unset) init() makes a 1-rank job.
#pragma once

#include "hvd/collectives.h"
#include "hvd/error.h"
#include "hvd/handle.h"
#include "hvd/types.h"

namespace hvd {

void init();      // throws hvd::Error naming the problem (bad HOROVOD_* value, unreachable store, ...)
void shutdown();  // idempotent; pending ops fail with "hvd is shutting down"
bool is_initialized();

int rank();
int size();
int local_rank();
int local_size();
int cross_rank();
int cross_size();

}  // namespace hvd
