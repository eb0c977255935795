// Chooses how each host's agent starts: a plain child process on this machine, SSH elsewhere (the addresses:
// launcher/start/coordinator_address.h).
#pragma once

#include <asio.hpp>
#include <memory>
#include <string>

#include "launcher/start/agent_process.h"
#include "launcher/cli/options.h"
#include "launcher/plan/plan.h"

namespace hvd::launcher {

std::unique_ptr<AgentProcess> start_agent(asio::io_context& io, AgentStart start, const Plan& plan,
                                          const LaunchOptions& options);

}  // namespace hvd::launcher
