// hvdrun --mpi: runs the job with Open MPI's mpirun instead of hvdrun's agents. Finds mpirun (mpirun_probe.h),
// refuses one that is missing or not Open MPI, builds the command (mpi_command.h), prints it shell-quoted to
// stderr with --verbose, then runs it as its child (mpirun_child.h): signals sent to hvdrun go on to mpirun, which
// stops its ranks. When the job did not succeed hvdrun ends with the root-cause report mpirun lets it make
// (mpirun_report.h), and --report writes it as JSON. The exit code is the report's: mpirun's own (the failed
// rank's code, 128+N for its signal N), or 128+N when hvdrun received signal N. mpirun missing, not Open MPI or
// not executable: one line on stderr naming the fix, exit_code::kMpirunUnusable.
#pragma once

#include "launcher/mpi/mpi_options.h"
#include "launcher/plan/plan.h"

namespace hvd::launcher {

// `plan`: the ranks as hvdrun placed them; mpirun's -H follows it.
int run_with_mpi(const MpiOptions& options, const Plan& plan);

}  // namespace hvd::launcher
