// The mpirun command line for `hvdrun --mpi`, as a pure function of the options, hvdrun's environment and its
// effective user id. It builds Open MPI's flags (the only MPI hvdrun launches with), in this order:
//   mpirun [--allow-run-as-root] --tag-output -np N -H h1:2,h2:2 -bind-to none -map-by slot
//          [--timestamp-output] [--output-filename DIR] [-mca plm_rsh_args "SSH OPTIONS"]
//          [-mca btl_tcp_if_include IF -mca oob_tcp_if_include IF] [-mca mpi_yield_when_idle 1]
//          -x HOROVOD_... -x NAME=VALUE
//          [--mpi-args words] PROGRAM ARGS...
// -H is the plan's: each host that got ranks, with the number placed there.
// The variables hvdrun forwards to remote workers (worker_env.h: PATH, LD_LIBRARY_PATH, HOROVOD_*, NCCL_*, ...)
// go by name (-x NAME), -x exports with their values; placement variables, the secret and HVD_* do not go.
// Throws hvd::UsageError when --mpi-args does not split (an unclosed quote) or a host names a user (Open MPI's -H
// cannot say it; the SSH config can).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "launcher/mpi/mpi_options.h"
#include "launcher/plan/plan.h"

namespace hvd::launcher {

// `environment` holds "NAME=VALUE" entries (hvdrun's environ). `yield_when_idle`: more ranks than cores here, so
// MPI's waits must yield the core instead of polling (Open MPI only does so by itself beyond the -H slots).
std::vector<std::string> mpi_command(const std::string& mpirun, const MpiOptions& options, const Plan& plan,
                                     const std::vector<std::string>& environment, uid_t euid,
                                     bool yield_when_idle = false);

}  // namespace hvd::launcher
