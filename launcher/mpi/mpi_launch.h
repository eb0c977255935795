// hvdrun --mpi: runs the job with Open MPI's mpirun instead of hvdrun's agents. Finds mpirun (mpirun_probe.h),
// refuses one that is missing or not Open MPI, builds the command (mpi_command.h), prints it shell-quoted to
// stderr with --verbose, then replaces hvdrun with it: mpirun's exit code is the job's, and signals reach mpirun
// directly, which stops its ranks. Returns only when that cannot happen, after one line on stderr naming the fix:
// exit_code::kMpirunUnusable.
#pragma once

#include "launcher/cli/options.h"

namespace hvd::launcher {

int run_with_mpi(const LaunchOptions& options);

}  // namespace hvd::launcher
