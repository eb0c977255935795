// `hvdrun --check-hosts -H ...`: a preflight that runs one probe per host through the normal job path, so it
// checks exactly what a job needs: SSH to each host, the agent there, the agent's authenticated link back to
// hvdrun, and TCP from every host to every other host's data-plane address. Prints a table and a verdict;
// returns 0 only when every check passes.
#pragma once

#include <string>

#include "launcher/session/session_options.h"

namespace hvd::launcher {

int check_hosts(SessionOptions options, const std::string& local_agent_path);

}  // namespace hvd::launcher
