// hvdrun --check-build: what this build of hvd has, in horovodrun --check-build's layout: frameworks, controllers
// and tensor operations, each [X] or [ ] with its version (from the generated build_info.h), then the mpirun that
// --mpi would run. Always exit code 0: it reports, it does not judge.
#pragma once

#include <optional>
#include <string>

#include "launcher/mpi/mpirun_probe.h"

namespace hvd::launcher {

// The report for `mpirun` as probed (nullopt: none in PATH). Pure, so tests can check its lines.
std::string build_report(const std::optional<MpirunInfo>& mpirun);

// Probes mpirun (HVD_MPIRUN, else PATH), prints the report to stdout, returns 0.
int check_build();

}  // namespace hvd::launcher
