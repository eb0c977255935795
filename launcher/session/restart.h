// --max-restarts N: when the job fails, run it again from the start, up to N more times (torchrun's behaviour
// for non-elastic jobs). Each attempt is a fresh run (new secret, agents and workers) whose workers see
// HOROVOD_RESTART_ATTEMPT=k, 0 for the first. Not restarted: success, bad input (2), and a job stopped by
// SIGHUP, SIGINT or SIGTERM (129, 130, 143): someone (Ctrl-C, scancel, the batch system) is stopping it.
#pragma once

#include <functional>

#include "launcher/session/session_options.h"

namespace hvd::launcher {

inline constexpr const char* kRestartAttemptEnv = "HOROVOD_RESTART_ATTEMPT";

bool should_restart(int exit_code);

// Calls run_once with the options of each attempt (the attempt's number exported to the workers) and returns
// the last attempt's exit code.
int run_with_restarts(const SessionOptions& options, const std::function<int(const SessionOptions&)>& run_once);

}  // namespace hvd::launcher
