// Chooses how each host's agent starts: a plain child process on this machine, SSH elsewhere (the addresses:
// launcher/start/coordinator_address.h).
#pragma once

#include <asio.hpp>
#include <memory>
#include <string>

#include "launcher/start/agent_process.h"
#include "launcher/plan/plan.h"
#include "launcher/session/session_options.h"

namespace hvd::launcher {

std::unique_ptr<AgentProcess> start_agent(asio::io_context& io, AgentStart start, const Plan& plan,
                                          const SessionOptions& options);

}  // namespace hvd::launcher
