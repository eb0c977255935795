// LaunchOptions handed out: each launcher folder that runs a job takes its own options value, filled here from the
// command line, so that only cli/ and main.cc know every flag.
#pragma once

#include "launcher/cli/options.h"
#include "launcher/mpi/mpi_options.h"
#include "launcher/session/session_options.h"

namespace hvd::launcher {

// A job run by hvdrun's own agents (session/), and --check-hosts (checks/), which runs one.
SessionOptions session_options(const LaunchOptions& options);
// hvdrun --mpi (mpi/).
MpiOptions mpi_options(const LaunchOptions& options);

}  // namespace hvd::launcher
